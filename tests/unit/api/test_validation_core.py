"""Pod, Node, Namespace, ResourceQuota validation for the fields drasim uses (core validation.go)."""
import pytest

from drasim.api.validation import validate_object

IMPLICIT = "deviceclass.resource.kubernetes.io/"


def pod(*containers, claims=None, name="p"):
    spec = {"containers": list(containers)}
    if claims is not None:
        spec["resourceClaims"] = claims
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def ctr(requests=None, limits=None, claims=None, name="c"):
    res = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    if claims is not None:
        res["claims"] = claims
    return {"name": name, "image": "x", "resources": res}


def messages(obj, old=None):
    return [str(e) for e in validate_object(obj, old)]


@pytest.mark.parametrize("obj", [
    pytest.param(pod(ctr({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1"})), id="cpu-overcommit"),
    pytest.param(pod(ctr({"example.com/gpu": "2"}, {"example.com/gpu": "2"})), id="extended-equal"),
    pytest.param(pod(ctr({IMPLICIT + "a" * 63: "1"})), id="implicit-63-native-no-limit-needed"),
    pytest.param(pod(ctr(claims=[{"name": "gpu"}]), claims=[{"name": "gpu", "resourceClaimTemplateName": "tpl"}]),
                 id="claim-ref"),
    pytest.param({"kind": "Node", "metadata": {"name": "node-1"},
                  "status": {"allocatable": {"cpu": "8", "example.com/gpu": "4"}}}, id="node"),
    pytest.param({"kind": "Namespace", "metadata": {"name": "team-a"}}, id="namespace"),
    pytest.param({"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
                  "spec": {"hard": {"requests.example.com/gpu": "4", "pods": "10",
                                    "gpu.deviceclass.resource.k8s.io/devices": "2"}}}, id="quota"),
])
def test_valid(obj):
    """Well-formed core objects pass."""
    assert messages(obj) == []


@pytest.mark.parametrize(("obj", "want"), [
    pytest.param(pod(ctr({IMPLICIT + "a" * 64: "1"})),
                 [f'spec.containers[0].resources.requests[{IMPLICIT}{"a" * 64}]: Invalid value: "{IMPLICIT}{"a" * 64}": '
                  "name part must be no more than 63 bytes"], id="implicit-64"),
    pytest.param(pod(ctr({"example.com/gpu": "1"})),
                 ["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"],
                 id="extended-no-limit"),
    pytest.param(pod(ctr({"example.com/gpu": "1"}, {"example.com/gpu": "2"})),
                 ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
                 id="extended-request-not-limit"),
    pytest.param(pod(ctr(limits={"example.com/gpu": "500m"})),
                 ['spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer'],
                 id="extended-fraction"),
    pytest.param(pod(ctr({"cpu": "2"}, {"cpu": "1"})),
                 ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
                 id="cpu-request-above-limit"),
    pytest.param(pod(ctr({"gpu": "1"})),
                 ['spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
                  'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers'],
                 id="bare-name"),
    pytest.param(pod(ctr({"cpu": "-1"})),
                 ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
                 id="negative"),
    pytest.param(pod(ctr(claims=[{"name": "gpu"}])),
                 ['spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the names in '
                  "pod.spec.resourceClaims which is empty"], id="claim-ref-missing"),
    pytest.param(pod(ctr(claims=[{"name": "x"}]), claims=[{"name": "a", "resourceClaimName": "c"}, {"name": "b", "resourceClaimName": "d"}]),
                 ['spec.containers[0].resources.claims[0]: Not found: "x": must be one of the names in '
                  "pod.spec.resourceClaims: a, b"], id="claim-ref-unknown"),
    pytest.param(pod(ctr(), claims=[{"name": "gpu"}]),
                 ['spec.resourceClaims[0]: Invalid value: {"name":"gpu"}: must specify one of: `resourceClaimName`, '
                  "`resourceClaimTemplateName`"], id="claim-neither"),
    pytest.param(pod(ctr(), claims=[{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]),
                 ['spec.resourceClaims[0]: Invalid value: {"name":"gpu","resourceClaimName":"a","resourceClaimTemplateName":"b"}: '
                  "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"], id="claim-both"),
    pytest.param(pod(ctr(), claims=[{"resourceClaimName": "a"}]), ["spec.resourceClaims[0].name: Required value"],
                 id="claim-name-required"),
    pytest.param(pod(ctr(), claims=[{"name": "g", "resourceClaimName": "a"}, {"name": "g", "resourceClaimName": "b"}]),
                 ['spec.resourceClaims[1].name: Duplicate value: "g"'], id="claim-duplicate"),
    pytest.param({"kind": "Node", "metadata": {"name": "node-1"}, "status": {"capacity": {"example.com/gpu": "lots"}}},
                 ["status.capacity.example.com/gpu: Invalid value: \"lots\": quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"], id="node-bad-quantity"),
    pytest.param({"kind": "Namespace", "metadata": {"name": "a.b"}},
                 ['metadata.name: Invalid value: "a.b": must not contain dots'], id="namespace-dots"),
    pytest.param({"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
                  "spec": {"hard": {"gpus": "1"}}},
                 ['spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified',
                  'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota'], id="quota-name"),
])
def test_invalid(obj, want):
    """Each bad core object yields exactly the API server's messages."""
    assert messages(obj) == want


def test_ephemeral_containers_cannot_be_set_on_create():
    """k8s: ValidatePodCreate; they arrive later through the ephemeralcontainers subresource."""
    fresh = pod(ctr())
    fresh["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
    assert messages(fresh) == ["spec.ephemeralContainers: Forbidden: cannot be set on create"]
    # a snapshot of a live pod (`kubectl get -o yaml` after `kubectl debug`) is replayed as it is
    live = dict(fresh, status={"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]})
    assert messages(live) == []
