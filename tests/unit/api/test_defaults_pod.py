"""Pod defaulting (k8s: pkg/apis/core/v1/defaults.go, pod strategy PrepareForCreate)."""
from drasim.api.defaults import apply_defaults


def test_limits_copied_to_requests():
    """Limits missing from requests are copied (extended-resources.md §4.1)."""
    pod = {"kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "resources": {"limits": {"example.com/gpu": "1", "cpu": "2"},
                                                               "requests": {"cpu": "1"}}}]}}
    apply_defaults(pod, "2026-01-01T00:00:00Z", namespaced=True)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "example.com/gpu": "1"}
    assert pod["metadata"]["namespace"] == "default" and pod["status"]["phase"] == "Pending"


def test_match_label_keys_merged_into_affinity_selector():
    """matchLabelKeys/mismatchLabelKeys become In/NotIn on the pod's own label values."""
    term = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}},
            "matchLabelKeys": ["version", "missing"], "mismatchLabelKeys": ["team"]}
    pod = {"kind": "Pod", "metadata": {"name": "p", "labels": {"app": "web", "version": "v2", "team": "a"}},
           "spec": {"containers": [{"name": "c"}],
                    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}}
    apply_defaults(pod, "2026-01-01T00:00:00Z", namespaced=True)
    merged = pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert merged["labelSelector"]["matchExpressions"] == [
        {"key": "version", "operator": "In", "values": ["v2"]},
        {"key": "team", "operator": "NotIn", "values": ["a"]}]
