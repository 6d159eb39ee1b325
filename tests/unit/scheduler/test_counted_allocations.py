"""What the DynamicResources plugin counts as allocated equals a rebuild from the stored claims.

The plugin keeps AllocatedState incrementally: an allocation is counted at Reserve, and the
claim's written copy (which adds only allocationTimestamp) is taken over without recounting.
After every operation of random workloads (no cycle is ever in flight between two) (every kind of operation: pods placed and deleted,
claims allocated and released without a pod, claims deleted, slices republished, extended
resources, quota denials) the counted state must be what Kubernetes would rebuild from all
claims (allocateddevices.go foreachAllocatedDevice), and nothing may be left in flight; and,
since the rebuild runs AllocatedState's own code, a recount written without it must agree too.
"""
from __future__ import annotations

import random

import pytest

from drasim.allocator.state import AllocatedState
from drasim.controlplane import ControlPlane, Options
from tests.property.workload_ops import apply_op, build_cluster, random_ops
from tests.unit.allocator.recount import counted, recount


def _content(state: AllocatedState) -> tuple:
    return state._exclusive, state._shares, state._capacity, state.groups


@pytest.mark.parametrize("seed", range(8))
def test_counted_allocations_equal_a_rebuild(seed):
    cp = ControlPlane(Options(seed=seed))
    build_cluster(cp)
    dra = cp.dra
    denials: list[str] = []
    settles = allocated_seen = 0
    for index, (op, n) in enumerate(random_ops(random.Random(seed), 200)):
        apply_op(cp, index, op, n, denials)
        settles += op == "settle"
        rebuilt = AllocatedState.from_claims(cp.store.list("ResourceClaim"), dra.allocated.consumable_capacity)
        assert _content(dra.allocated) == _content(rebuilt), f"op #{index}"
        claims = cp.store.list("ResourceClaim")
        assert counted(dra.allocated) == recount([c["status"]["allocation"] for c in claims
                                                  if (c.get("status") or {}).get("allocation")]), f"op #{index}"
        assert not dra._in_flight
        allocated_seen += bool(rebuilt._exclusive)
    assert settles >= 5 and allocated_seen >= 50
