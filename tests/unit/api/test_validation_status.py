"""validation/status.py: the quick "clean?" walk agrees with the walk that words the errors.

validate_status answers [] when _clean says so and otherwise gives _status_errors; so on any
status — snapshots' ones, mutated at random — validate_status must equal _status_errors."""
import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.validation import status

POD_STATUS = {"phase": "Running", "qosClass": "BestEffort",
              "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
              "containerStatuses": [{"name": "c", "ready": True}],
              "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x"}],
              "extendedResourceClaimStatus": {"resourceClaimName": "p-ext", "requestMappings": [
                  {"containerName": "c", "resourceName": "example.com/gpu", "requestName": "r0"}]}}
CLAIM_STATUS = {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "d", "pool": "p", "device": "g0",
                                                        "tolerations": [], "consumedCapacity": {}}]},
                               "nodeSelector": {"nodeSelectorTerms": []}},
                "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}
NODE_STATUS = {"capacity": {"cpu": "1"}, "allocatable": {"cpu": "1"}, "conditions": []}
BASES = [("Pod", POD_STATUS), ("ResourceClaim", CLAIM_STATUS), ("Node", NODE_STATUS), ("Namespace", {"phase": "Active"})]
values = st.one_of(st.none(), st.booleans(), st.integers(-1, 1), st.sampled_from(["", "x", "True"]),
                   st.just([]), st.just({}), st.just([None]), st.just([{}]), st.just([1]), st.just(["x"]),
                   st.just([{"type": 1}]), st.just([{"request": "r"}]))


def places(value, out):
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        out.append((value, k))
        places(v, out)
    return out


@settings(max_examples=1000, deadline=None)
@given(st.data(), st.sampled_from(BASES))
def test_the_quick_walk_agrees_with_the_full_one(data, base):
    kind, base_status = base
    obj = {"kind": kind, "status": copy.deepcopy(base_status)}
    for _ in range(data.draw(st.integers(0, 3))):
        spots = [(c, k) for c, k in places(obj, []) if not (c is obj and k == "kind")]
        if not spots:
            break
        container, key = data.draw(st.sampled_from(spots))
        if data.draw(st.booleans()) and isinstance(container, dict):
            container.pop(key)
        else:
            container[key] = copy.deepcopy(data.draw(values))   # st.just values are shared
    assert [str(e) for e in status.validate_status(obj)] == [str(e) for e in status._status_errors(obj)]


def test_snapshot_statuses_are_clean_by_the_quick_walk():
    for kind, base_status in BASES:
        assert status._clean({"kind": kind, "status": base_status}), kind


KEYS = ["phase", "type", "status", "name", "resourceClaimName", "containerName", "resourceName", "requestName",
        "conditions", "containerStatuses", "resourceClaimStatuses", "extendedResourceClaimStatus", "requestMappings"]


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_a_pod_status_that_decodes_has_no_shape_errors(data):
    """What lets admission skip a created pod's status shape checks (validation.validate_object,
    status_decoded): every pod whose body strict decoding lets through — in the Go types every
    field these checks read is a string, every list item an object or null — has none."""
    from drasim.api import decode
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": copy.deepcopy(POD_STATUS)}
    for _ in range(data.draw(st.integers(1, 4))):
        spots = [(c, k) for c, k in places(obj.get("status"), [])] + [(obj, "status")]
        container, key = data.draw(st.sampled_from(spots))
        how = data.draw(st.sampled_from(["pop", "replace", "add"]))
        if how == "pop" and isinstance(container, dict):
            container.pop(key, None)
        elif how == "add" and isinstance(container.get(key) if isinstance(container, dict) else None, dict):
            container[key][data.draw(st.sampled_from(KEYS))] = copy.deepcopy(data.draw(values))
        else:
            container[key] = copy.deepcopy(data.draw(values))
    try:
        decoded = decode.decode("Pod", obj)
    except decode.DecodeError:
        return
    assert status._status_errors(decoded) == []


def test_decodable_pod_statuses_are_what_the_skip_covers():
    """Not vacuous: odd but decodable statuses (null items, empty objects, no status) pass
    strict decoding and have no shape errors; a wrongly typed field is refused by decoding."""
    import pytest
    from drasim.api import decode
    for odd in ({"conditions": [None]}, {"containerStatuses": [{}]}, None, {},
                {"extendedResourceClaimStatus": {"requestMappings": [None]}}):
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": odd}
        assert status._status_errors(decode.decode("Pod", obj)) == []
    for bad in ({"phase": 1}, {"conditions": [1]}, {"conditions": {}}, {"resourceClaimStatuses": [{"name": True}]}):
        with pytest.raises(decode.DecodeError):
            decode.decode("Pod", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": bad})
