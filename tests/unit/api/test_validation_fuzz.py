"""Validators and strict decoding never raise, whatever JSON shape they are given."""
import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.fielderrors import FieldError
from drasim.api.schema import field_names, unknown_fields
from drasim.api.validation import VALIDATORS, validate_object


VOCAB = sorted(field_names() | {"containers", "initContainers", "resources", "requests", "limits", "claims",
                                      "resourceClaims", "resourceClaimName", "resourceClaimTemplateName", "hard",
                                      "capacity", "allocatable", "cpu", "example.com/gpu", "request"})
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                    st.text(max_size=8), st.sampled_from(["", "All", "Exists", "Equal", "NoSchedule", "1Gi", "500m",
                                                          "a/b", "x.example.com/y", "1.2.3", "-1", "\ud800", "device.driver == 'a'"]))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.sampled_from(VOCAB), st.text(max_size=4)), inner, max_size=5)), max_leaves=40)

GOOD = {
    "DeviceClass": {"kind": "DeviceClass", "metadata": {"name": "c"}, "spec": {
        "selectors": [{"cel": {"expression": "x" * 10241}}], "config": [{"opaque": {"driver": "d", "parameters": {}}}],
        "extendedResourceName": "example.com/g"}},
    "ResourceSlice": {"kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {
        "driver": "d", "pool": {"name": "p", "resourceSliceCount": 1}, "perDeviceNodeSelection": True,
        "sharedCounters": [{"name": "s", "counters": {"c": {"value": "1"}}}],
        "devices": [{"name": "g", "allNodes": True, "attributes": {"a": {"int": 1}, "v": {"version": "1.0.0"}},
                     "capacity": {"m": {"value": "8", "requestPolicy": {"default": "2", "validValues": ["2"],
                                                                         "validRange": {"min": "1", "step": "1"}}}},
                     "taints": [{"key": "k", "effect": "None"}], "bindingConditions": ["a"],
                     "consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}],
                     "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}],
                                                             "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}]}}]}},
    "ResourceClaim": {"kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "d"}, "spec": {"devices": {
        "requests": [{"name": "r", "exactly": {"deviceClassName": "c", "tolerations": [{"operator": "Equal"}],
                                               "capacity": {"requests": {"m": "1"}}, "selectors": [{"cel": {"expression": ""}}]}},
                     {"name": "s", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}],
        "constraints": [{"requests": ["r", "s/a"], "matchAttribute": "d/x"}],
        "config": [{"requests": ["r"], "opaque": {"driver": "d", "parameters": {}}}]}}},
    "ResourceClaimTemplate": {"kind": "ResourceClaimTemplate", "metadata": {"name": "t", "namespace": "d"},
                              "spec": {"metadata": {"labels": {"a": "b"}}, "spec": {"devices": {"requests": []}}}},
    "DeviceTaintRule": {"kind": "DeviceTaintRule", "metadata": {"name": "r"},
                        "spec": {"deviceSelector": {"driver": "d"}, "taint": {"key": "k", "effect": "None"}}},
    "Pod": {"kind": "Pod", "metadata": {"name": "p", "namespace": "d", "labels": {"a": "b"}, "annotations": {"a": "b"}},
            "spec": {"resourceClaims": [{"name": "g", "resourceClaimName": "c"}],
                     "containers": [{"name": "c", "image": "i", "resources": {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"},
                                                   "claims": [{"name": "g", "request": "r"}]}}]}},
    "Node": {"kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": "1"}, "allocatable": {"cpu": "1"}}},
    "Namespace": {"kind": "Namespace", "metadata": {"name": "n"}},
    "ResourceQuota": {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "d"}, "spec": {"hard": {"pods": "1"}}},
}


def _containers(value, out):
    """Every (container, key) pair reachable in a JSON value, for mutation."""
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((value, k))
            _containers(v, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((value, i))
            _containers(v, out)
    return out


@st.composite
def mutated(draw):
    kind = draw(st.sampled_from(sorted(GOOD)))
    obj = copy.deepcopy(GOOD[kind])
    for _ in range(draw(st.integers(1, 4))):
        spots = _containers(obj, [])
        parent, key = draw(st.sampled_from(spots))
        parent[key] = draw(JSON)
    return obj


def _check(obj, old=None):
    errs = validate_object(obj, old)
    assert all(isinstance(e, FieldError) for e in errs)
    for e in errs:
        str(e)
    if isinstance(obj, dict) and isinstance(obj.get("kind"), str):
        unknown_fields(obj["kind"], obj)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(VALIDATORS)), body=JSON)
def test_random_structures_never_raise(kind, body):
    """Arbitrary JSON under a known kind yields FieldErrors, never an exception."""
    obj = dict(body) if isinstance(body, dict) else {"spec": body}
    obj["kind"] = kind
    _check(obj)
    _check(obj, copy.deepcopy(obj))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=mutated())
def test_mutated_objects_never_raise(obj):
    """Replacing any part of a realistic object with junk (wrong types, None) never crashes validation."""
    before = copy.deepcopy(obj)
    _check(obj)
    _check(obj, GOOD.get(obj.get("kind")) if isinstance(obj.get("kind"), str) else None)
    assert obj == before or obj != obj  # inputs are never mutated (NaN compares unequal to itself)


def test_good_objects_need_cel_only():
    """Seeds are realistic; the class, claim and slice seeds carry deliberate conflicts to reach error paths."""
    for kind, obj in GOOD.items():
        errs = [str(e) for e in validate_object(obj)]
        if kind == "DeviceClass":
            assert errs == ["spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"]
        elif kind not in ("ResourceClaim", "ResourceSlice"):
            assert errs == [], kind
