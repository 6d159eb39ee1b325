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
