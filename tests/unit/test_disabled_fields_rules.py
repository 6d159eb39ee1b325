"""drop_disabled_fields (the rules whose gates are off, remembered per setting of the gates)
drops exactly what the rules say, one by one: for each rule, unless all its gates are on or
the old object used the field, drop it. Random objects carry any mix of gated fields (empty
ones too: a drop removes `taints: []`, which no rule counts as used), random gate settings,
and the same gates mapping changed between calls."""
import copy

from hypothesis import given, settings, strategies as st

from drasim import disabledfields
from drasim.disabledfields import RULES, drop_disabled_fields

GATES = sorted({g for rules in RULES.values() for needed, _, _ in rules for g in needed})
_empty_or = lambda v: st.sampled_from([v, [], {}, None, ""])   # noqa: E731

device = st.fixed_dictionaries({"name": st.just("d")}, optional={
    "taints": _empty_or([{"key": "k", "effect": "NoSchedule"}]),
    "consumesCounters": _empty_or([{"counterSet": "s", "counters": {}, "compatibilityGroups": ["a"]}]),
    "nodeName": _empty_or("n"), "allNodes": st.booleans(), "nodeSelector": _empty_or({"a": 1}),
    "bindingConditions": _empty_or(["c"]), "bindsToNode": st.booleans(),
    "allowMultipleAllocations": st.booleans(),
    "capacity": st.just({"mem": {"value": "1", "requestPolicy": {"default": "1"}}, "x": {"value": "2"}}),
    "nodeAllocatableResources": _empty_or({"cpu": "1"}),
    "attributes": st.just({"a": {"strings": ["x"]}, "b": {"int": 1}, "c": {"ints": []}}),
})
slice_ = st.builds(lambda devices, extra: {"kind": "ResourceSlice", "spec": dict(extra, devices=devices)},
                   st.lists(device, max_size=3),
                   st.fixed_dictionaries({}, optional={"sharedCounters": _empty_or([{"name": "s"}]),
                                                       "perDeviceNodeSelection": st.booleans(),
                                                       "partitionTypeAttribute": _empty_or("p")}))
claim = st.builds(lambda groups: {"kind": "ResourceClaim", "status": {"allocation": {"devices": {"results": [
    {"device": "d", **({"compatibilityGroups": groups} if groups is not None else {})}]}}}},
    st.one_of(st.none(), _empty_or({"a": ["b"]})))
pod = st.builds(lambda g: {"kind": "Pod", "spec": {} if g is None else {"schedulingGroup": g}},
                st.one_of(st.none(), _empty_or({"podGroupName": "g"})))
group = st.builds(lambda spec: {"kind": "PodGroup", "spec": spec},
                  st.fixed_dictionaries({}, optional={"schedulingConstraints": _empty_or({"a": 1}),
                                                      "resourceClaims": _empty_or([{"name": "c"}])}))
objects = st.one_of(slice_, claim, pod, group)


def by_the_rules(kind, obj, old, gates):
    for needed, used, drop in RULES.get(kind, ()):
        if all(gates.get(g, False) for g in needed) or used(old):
            continue
        drop(obj)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(objects, st.one_of(st.none(), objects), st.dictionaries(st.sampled_from(GATES), st.booleans())),
                min_size=1, max_size=6))
def test_drops_are_the_rules_one_by_one(calls):
    gates: dict = {}
    for obj, old, setting in calls:
        gates.clear()
        gates.update(setting)   # one mapping, changed between calls
        if old is not None and old["kind"] != obj["kind"]:
            old = None
        want = copy.deepcopy(obj)
        by_the_rules(obj["kind"], want, old, gates)
        drop_disabled_fields(obj["kind"], obj, old, gates)
        assert obj == want


def test_remembered_per_setting():
    """Not vacuous: the remembered rules differ by setting, and unknown kinds drop nothing."""
    disabledfields._OFF_RULES.clear()
    s = {"kind": "ResourceSlice", "spec": {"devices": [{"name": "d", "taints": []}]}}
    drop_disabled_fields("ResourceSlice", s, None, {"DRADeviceTaints": True})
    assert "taints" in s["spec"]["devices"][0]
    drop_disabled_fields("ResourceSlice", s, None, {"DRADeviceTaints": False})
    assert "taints" not in s["spec"]["devices"][0]
    assert len(disabledfields._OFF_RULES) == 2
    drop_disabled_fields("Node", {"kind": "Node"}, None, {})
