"""The not-ready / unreachable tolerations a pod gets by default (k8s: the
DefaultTolerationSeconds admission plugin): added unless a toleration of that key with effect
NoExecute or none already covers it; whatever the pod lists is kept in its order."""
import copy

from hypothesis import given, settings, strategies as st

from drasim.api.defaults import _DEFAULT_TOLERATION_SECONDS, _NODE_PROBLEM_TAINTS, default_pod

toleration = st.one_of(
    st.fixed_dictionaries({}, optional={"key": st.sampled_from(list(_NODE_PROBLEM_TAINTS) + ["other", "", None]),
                                        "effect": st.sampled_from(["NoExecute", "NoSchedule", "", None]),
                                        "operator": st.sampled_from(["Exists", "Equal"])}),
    st.sampled_from([None, "x", 1]))


def by_the_rule(tolerations: list) -> list:
    out = list(tolerations)
    for key in _NODE_PROBLEM_TAINTS:
        if not any(isinstance(t, dict) and t.get("key") == key and t.get("effect") in ("NoExecute", None, "")
                   for t in out):
            out.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": _DEFAULT_TOLERATION_SECONDS})
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(toleration, max_size=5))
def test_default_tolerations(tolerations):
    pod = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}],
                                                              "tolerations": copy.deepcopy(tolerations)}}
    default_pod(pod, "2026-01-01T00:00:00Z")
    assert pod["spec"]["tolerations"] == by_the_rule(tolerations)


def test_a_pod_without_tolerations_gets_both():
    pod = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    default_pod(pod, "2026-01-01T00:00:00Z")
    assert [t["key"] for t in pod["spec"]["tolerations"]] == list(_NODE_PROBLEM_TAINTS)
