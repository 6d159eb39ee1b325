"""A device record holds what a fresh parse of its device gives, whatever was parsed before it.

DeviceRec takes its capacity records from a memo keyed by the capacity map's orjson text (one
parse per distinct map across a fleet) and skips the counter comprehensions for devices that
consume none. Over random devices built one after another (the memo warm with look-alikes:
"1" and 1, lists and tuples of valid values, the same names with other values or policies), each
record must equal, field by field, what parsing that device alone gives.

A stored (admitted) slice's records are built on their first read, not when the slice arrives;
they must equal the records of the same slice parsed at once.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.allocator import model
from drasim.allocator.model import CapacityRec, DeviceRec, SliceRec, _fits_without_requests, counter_value

quantity = st.sampled_from(["1", "2", "500m", "1Gi", "1024Mi", 1, 2])
policies = st.fixed_dictionaries({}, optional={
    "default": quantity,
    "validValues": st.lists(quantity, min_size=1, max_size=3).flatmap(
        lambda v: st.sampled_from([v, tuple(v)])),
    "validRange": st.fixed_dictionaries({"min": quantity}, optional={"max": quantity, "step": quantity})})
capacities = st.dictionaries(st.sampled_from(["memory", "cores"]),
                             st.fixed_dictionaries({"value": quantity}, optional={"requestPolicy": policies}),
                             max_size=2)
counter_sets = st.lists(st.fixed_dictionaries(
    {"counterSet": st.sampled_from(["cs0", "cs1"]),
     "counters": st.dictionaries(st.sampled_from(["mem", "slots"]), st.fixed_dictionaries({"value": quantity}),
                                 max_size=2)},
    optional={"compatibilityGroups": st.lists(st.sampled_from(["g0", "g1"]), max_size=2)}), max_size=2)
devices = st.fixed_dictionaries({"name": st.sampled_from(["d0", "d1"])}, optional={
    "capacity": capacities, "consumesCounters": counter_sets,
    "taints": st.lists(st.fixed_dictionaries({"key": st.just("k"), "effect": st.just("NoSchedule")}), max_size=1),
    "allowMultipleAllocations": st.booleans(), "bindingConditions": st.lists(st.just("ready"), max_size=1)})


def _quantity(q) -> tuple | None:
    return None if q is None else (q.value, q.format, str(q))


def _capacity_fields(rec: CapacityRec) -> tuple:
    return (_quantity(rec.value), rec.policy, _quantity(rec.default),
            None if rec.valid_values is None else [_quantity(q) for q in rec.valid_values],
            rec.has_range, _quantity(rec.range_min), _quantity(rec.range_max), _quantity(rec.range_step))


@settings(max_examples=300, deadline=None)
@given(st.lists(devices, min_size=1, max_size=8), st.booleans())
def test_records_equal_a_fresh_parse(device_list, cold):
    if cold:
        model._CAPACITIES.clear()
    for raw in device_list:
        rec = DeviceRec("drv.example.com", "pool", raw)
        fresh = {k: CapacityRec(v) for k, v in (raw.get("capacity") or {}).items()}
        assert {k: _capacity_fields(v) for k, v in rec.capacity.items()} == \
            {k: _capacity_fields(v) for k, v in fresh.items()}
        assert rec.cap_fits_empty == _fits_without_requests(fresh)
        consumed = raw.get("consumesCounters") or []
        assert rec.consumes == [(c["counterSet"], {n: counter_value(v) for n, v in c["counters"].items()})
                                for c in consumed]
        assert rec.compat == [(c["counterSet"], frozenset(c["compatibilityGroups"])
                               if c.get("compatibilityGroups") else None) for c in consumed]
        assert rec.compat_snapshot == ({c["counterSet"]: list(c["compatibilityGroups"])
                                        for c in consumed if c.get("compatibilityGroups")} or None)
        assert rec.taints == list(raw.get("taints") or []) and rec.taints is not raw.get("taints")
        assert rec.beyond_quick_fit == bool(raw.get("allowMultipleAllocations") or consumed or raw.get("taints")
                                            or raw.get("bindingConditions"))
        assert rec.capacity_blocks_empty == (bool(fresh) and not rec.cap_fits_empty)


def _record(rec: DeviceRec) -> tuple:
    return (rec.name, rec.id, rec.driver, rec.pool, rec.raw, {k: _capacity_fields(v) for k, v in rec.capacity.items()},
            rec.cap_fits_empty, rec.allow_multi, rec.consumes, rec.compat, rec.compat_snapshot, rec.taints,
            rec.binding_conditions, rec.binding_failure_conditions, rec.binds_to_node, rec.node_name,
            rec.all_nodes, rec.node_selector, rec.beyond_quick_fit, rec.capacity_blocks_empty)


@settings(max_examples=200, deadline=None)
@given(st.lists(devices, max_size=4), st.sampled_from(["pool-a", "pool-b"]))
def test_records_built_on_first_read_equal_records_built_at_once(device_list, pool):
    raw = {"metadata": {"name": "s"}, "spec": {"driver": "drv.example.com", "nodeName": "n",
                                               "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
                                               "devices": [dict(d, name=f"d{i}") for i, d in enumerate(device_list)]}}
    lazy, eager = SliceRec(raw, admitted=True), SliceRec(raw, admitted=False)
    try:
        object.__getattribute__(lazy, "devices")
        built_early = True
    except AttributeError:
        built_early = False
    assert not built_early
    assert [_record(d) for d in lazy.devices] == [_record(d) for d in eager.devices]
    assert lazy.devices is lazy.devices   # built once, then the slot answers
    assert [d.cel_error() for d in lazy.devices] == [d.cel_error() for d in eager.devices]
