"""ResourceClaim / ResourceClaimTemplate validation (VALID; allocator.md §3.9-3.13)."""
import copy

import pytest

from drasim.api.validation import validate_object

REF_MSG = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
ONE_OF = "exactly one of `exactly` or `firstAvailable` is required"


def exactly(cls="gpu", **kw):
    return {"deviceClassName": cls, "allocationMode": "ExactCount", "count": 1, **kw}


def claim(*requests, constraints=None, config=None, name="c"):
    devices = {"requests": list(requests)}
    if constraints is not None:
        devices["constraints"] = constraints
    if config is not None:
        devices["config"] = config
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}


def req(name="r0", **kw):
    return {"name": name, **(kw or {"exactly": exactly()})}


def messages(obj, old=None):
    return [str(e) for e in validate_object(obj, old)]


@pytest.mark.parametrize("obj", [
    pytest.param(claim(req()), id="one-request"),
    pytest.param(claim(req(exactly={"deviceClassName": "gpu", "allocationMode": "All"})), id="all-mode"),
    pytest.param(claim(req(firstAvailable=[{"name": "big", "deviceClassName": "gpu"}, {"name": "small", "deviceClassName": "gpu"}]),
                       constraints=[{"requests": ["r0/big"], "matchAttribute": "gpu.example.com/numa"}]), id="first-available"),
    pytest.param(claim(req(), config=[{"requests": ["r0"], "opaque": {"driver": "gpu.example.com", "parameters": {}}}]),
                 id="config"),
    pytest.param(claim(req(exactly=exactly(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute"}],
                                           capacity={"requests": {"memory": "4Gi"}}))), id="tolerations-capacity"),
])
def test_valid(obj):
    """Well-formed claims pass."""
    assert messages(obj) == []


@pytest.mark.parametrize(("obj", "want"), [
    pytest.param(claim(req("")), ['spec.devices.requests[0].name: Invalid value: "": a lowercase RFC 1123 label must '
                                  "consist of lower case alphanumeric characters or '-', and must start and end with an "
                                  "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"], id="request-name-empty"),
    pytest.param(claim({"name": "r0"}), [f"spec.devices.requests[0]: Required value: {ONE_OF}"], id="neither"),
    pytest.param(claim(req(exactly=exactly(), firstAvailable=[{"name": "a", "deviceClassName": "gpu"}])),
                 [f"spec.devices.requests[0]: Invalid value: null: {ONE_OF}, but multiple fields are set"], id="both"),
    pytest.param(claim(req(exactly=exactly(""))), ["spec.devices.requests[0].exactly.deviceClassName: Required value"],
                 id="class-required"),
    pytest.param(claim(req(exactly={"deviceClassName": "gpu", "allocationMode": "All", "count": 2})),
                 ["spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"],
                 id="all-with-count"),
    pytest.param(claim(req(exactly=exactly(count=-1))),
                 ["spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"], id="negative-count"),
    pytest.param(claim(req(exactly=exactly(allocationMode="Some"))),
                 ['spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"'],
                 id="bad-mode"),
    pytest.param(claim(req(), req()), ['spec.devices.requests[1]: Duplicate value: "r0"'], id="duplicate-request"),
    pytest.param(claim(*[req(f"r{i}") for i in range(33)]),
                 ["spec.devices.requests: Too many: 33: must have at most 32 items"], id="too-many-requests"),
    pytest.param(claim(req(firstAvailable=[{"name": f"s{i}", "deviceClassName": "gpu"} for i in range(9)])),
                 ["spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items"], id="too-many-subrequests"),
    pytest.param(claim(req(), constraints=[{"requests": ["nope"], "matchAttribute": "gpu.example.com/numa"}]),
                 [f'spec.devices.constraints[0].requests[0]: Invalid value: "nope": {REF_MSG}'], id="constraint-unknown-request"),
    pytest.param(claim(req(), constraints=[{"requests": ["r0/x"], "matchAttribute": "gpu.example.com/numa"}]),
                 [f'spec.devices.constraints[0].requests[0]: Invalid value: "r0/x": {REF_MSG}'], id="constraint-no-subrequests"),
    pytest.param(claim(req(), constraints=[{"requests": ["a/b/c"], "matchAttribute": "gpu.example.com/numa"}]),
                 [f'spec.devices.constraints[0].requests[0]: Invalid value: "a/b/c": {REF_MSG}'], id="constraint-two-slashes"),
    pytest.param(claim(req(), constraints=[{"matchAttribute": "numa"}]),
                 ['spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully qualified name must be a '
                  "domain and a name separated by a slash"], id="match-attribute-not-qualified"),
    pytest.param(claim(req(), constraints=[{}]),
                 ['spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or "distinctAttribute" '
                  "is required, but multiple fields are set"], id="constraint-empty"),
    pytest.param(claim(req(), config=[{"requests": ["r1"], "opaque": {"driver": "d.example.com", "parameters": {}}}]),
                 [f'spec.devices.config[0].requests[0]: Invalid value: "r1": {REF_MSG}'], id="config-unknown-request"),
    pytest.param(claim(req(exactly=exactly(selectors=[{"cel": {"expression": "x" * 10241}}]))),
                 ["spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"],
                 id="cel-too-long"),
    pytest.param(claim(req(exactly=exactly(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}]))),
                 ['spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": must be empty for operator `Exists`'],
                 id="toleration"),
    pytest.param(dict(claim(req()), metadata={"name": "c"}), ["metadata.namespace: Required value"], id="namespace-required"),
])
def test_invalid(obj, want):
    """Each bad claim yields exactly the API server's messages."""
    assert messages(obj) == want


def test_count_zero_is_defaulted_not_rejected():
    """defaults.go: ExactCount with count 0 means 1, so it is accepted."""
    assert messages(claim(req(exactly=exactly(count=0)))) == []


def test_spec_is_immutable():
    """allocator.md §3.13: any spec change on update is `field is immutable`; metadata changes are fine."""
    old = claim(req())
    same = copy.deepcopy(old)
    same["metadata"]["labels"] = {"a": "b"}
    assert messages(same, old) == []
    changed = claim(req("r1"))
    got = messages(changed, old)
    assert len(got) == 1 and got[0].startswith("spec: Invalid value: {") and got[0].endswith(": field is immutable")


def template(*requests):
    c = claim(*requests)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": c["metadata"],
            "spec": {"metadata": {"labels": {"app": "x"}}, "spec": c["spec"]}}


def test_template_paths_have_spec_spec_prefix():
    """cel.md §6.1: template errors are reported under spec.spec."""
    assert messages(template(req())) == []
    assert messages(template({"name": "r0"})) == [f"spec.spec.devices.requests[0]: Required value: {ONE_OF}"]
    old = template(req())
    new = template(req("r1"))
    assert messages(new, old)[0].startswith("spec: Invalid value:")
