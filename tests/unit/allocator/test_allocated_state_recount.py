"""AllocatedState, kept incrementally, equals a recount from the allocations it holds.

Kubernetes rebuilds the allocated devices from every claim each cycle (allocateddevices.go
foreachAllocatedDevice); AllocatedState adds and removes allocations one by one with reference
counts, with the exclusive add inlined for loading (a snapshot counts every claim once). After
random adds and removes of allocations mixing exclusive, admin-access and shared results (with
and without consumed capacity, DRAConsumableCapacity on and off) and compatibility-group
snapshots, its counts must be what a recount of the live allocations gives, written
independently here, and its pool versions the number of results seen per pool.
"""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings, strategies as st

from drasim.allocator.state import AllocatedState
from tests.unit.allocator.recount import counted, recount

results = st.fixed_dictionaries(
    {"request": st.just("r"), "driver": st.sampled_from(["a.example.com", "b.example.com"]),
     "pool": st.sampled_from(["p0", "p1"]), "device": st.sampled_from(["d0", "d1", "d2"])},
    optional={"adminAccess": st.booleans(), "shareID": st.sampled_from(["s1", "s2"]),
              "consumedCapacity": st.dictionaries(st.sampled_from(["memory", "cores"]),
                                                  st.sampled_from(["1", "500m", "2Gi"]), max_size=2),
              "compatibilityGroups": st.dictionaries(st.sampled_from(["cs0", "cs1"]),
                                                     st.lists(st.sampled_from(["g0", "g1"]), max_size=2),
                                                     max_size=2)})
allocations = st.builds(lambda rs: {"devices": {"results": rs}}, st.lists(results, max_size=3))
# (allocation, remove which live one instead of adding, or None)
ops = st.lists(st.tuples(allocations, st.one_of(st.none(), st.integers(0, 9))), min_size=1, max_size=30)


def _groups(live: list[dict], consumable: bool, groups_seen: dict) -> dict:
    exclusive, shares, capacity = recount(live, consumable)
    allocated = set(exclusive) | set(shares) | set(capacity)
    return {d: g for d, g in groups_seen.items() if d in allocated}


@settings(max_examples=400, deadline=None)
@given(ops, st.booleans())
def test_counts_equal_a_recount(operations, consumable):
    state = AllocatedState(consumable)
    live: list[dict] = []
    groups_seen: dict[str, dict] = {}   # device -> the snapshot of the last result added for it
    versions: Counter = Counter()
    for allocation, remove in operations:
        token = state.token
        if remove is not None and live:
            allocation = live.pop(remove % len(live))
            state.remove(allocation)
        else:
            live.append(allocation)
            state.add(allocation)
            for r in allocation["devices"]["results"]:
                if r.get("compatibilityGroups") and not r.get("adminAccess"):
                    groups_seen[f"{r['driver']}/{r['pool']}/{r['device']}"] = r["compatibilityGroups"]
        versions.update(r["pool"] for r in allocation["devices"]["results"])
        groups = groups_seen = _groups(live, consumable, groups_seen)   # released by all: forgotten
        assert state.token != token
        assert counted(state) == recount(live, consumable)
        assert set(state._capacity_refs) == set(state._capacity)
        # a device no longer allocated has no snapshot; one still allocated keeps the last seen
        assert state.groups == groups, (state.groups, groups)
        assert state.pool_versions == dict(versions)
        rebuilt = AllocatedState(consumable)
        for a in live:
            rebuilt.add(a)
        assert (rebuilt._exclusive, rebuilt._shares) == (state._exclusive, state._shares)
