"""Feasibility without a search, for the shape almost every pod has.

kube-scheduler runs the full backtracking Allocate for every node. When every
request of the pod's claims is a plain `exactly` request (ExactCount, no
subrequests, admin access, tolerations, capacity requests or constraints) and
all of them use the same class and selectors, a solution exists on a node iff
the node has that many usable devices: any such devices will do, and the search
would find them. The count of usable devices is kept per (node, selection) until the node's
pools or their allocations change, so many pod shapes sharing a device class
selection (e.g. 25 classes with the same selector) share one scan per change.

A CEL error on any device, and devices of kinds the shortcut does not model —
partitionable or shareable devices, taints, binding conditions, per-device node
selection — or invalid pools answer None: the full search decides, and raises
an error exactly when it reaches the failing device (allocator.md §10.4).
"""
from __future__ import annotations

from collections.abc import Sequence

from drasim.allocator.requests import PreparedClaim
from drasim.allocator.search import RESULTS_MAX
from drasim.allocator.selection import Selection
from drasim.allocator.state import AllocatedState
from drasim.errors import AllocationError


def simple_needs(prepared: Sequence[PreparedClaim]):
    """(request data shared by all requests, devices needed per claim) or None if not the simple shape."""
    shared = None
    needs: list[int] = []
    for pc in prepared:
        if pc.error is not None or pc.has_all or pc.constraints or pc.min_devices > RESULTS_MAX:
            return None
        need = 0
        for subs in pc.requests:
            if len(subs) != 1:
                return None
            rd = subs[0]
            if rd.parent is not None or rd.admin or rd.tolerations or rd.cap_requests or rd.all_mode:
                return None
            if shared is None:
                shared = rd
            elif rd.sel_key != shared.sel_key:
                return None
            need += rd.num_devices
        needs.append(need)
    if shared is None or not any(needs):
        return None
    return shared, needs


class _SearchMustDecide(Exception):
    """A device of a kind this shortcut does not model, or a CEL error: only the search can tell."""


def _usable_devices(candidates, rd, label: str, selection: Selection, state: AllocatedState,
                    consumable_capacity: bool):
    """(device, slice) of the node's candidates that could serve `rd` now, in candidate order;
    raises _SearchMustDecide at the first device the shortcut cannot judge."""
    exclusive = state.exclusive_ids
    for dev, slice_, _pool in candidates:
        if dev.id in exclusive:
            continue
        if dev.beyond_quick_fit or slice_.per_device:   # shared, counters, taints, binding conditions
            raise _SearchMustDecide
        cached = dev.sel_cache.get(rd.sel_key)
        if cached is None:
            try:
                cached = selection.is_selectable(rd, dev, slice_, label)
            except AllocationError:
                raise _SearchMustDecide from None
        if not cached:
            continue
        if consumable_capacity and dev.capacity_blocks_empty:
            continue
        yield dev, slice_


def usable_count(candidates, rd, label: str, selection: Selection, state: AllocatedState,
                 consumable_capacity: bool) -> int | None:
    """How many devices of the node could serve `rd` now; None when the full search must decide
    (a device of a kind this shortcut does not model, or a CEL error anywhere: the search may or
    may not reach it, so only the search can tell)."""
    try:
        return sum(1 for _ in _usable_devices(candidates, rd, label, selection, state, consumable_capacity))
    except _SearchMustDecide:
        return None


def decide(needs: list[int], count: int) -> bool:
    """One selection for every request: they fit iff the usable devices cover them all."""
    return sum(needs) <= count


def plain_picks(candidates, prepared: Sequence[PreparedClaim], rd, label: str, selection: Selection,
                state: AllocatedState, consumable_capacity: bool):
    """The devices the search would pick for claims of the simple shape, or None when it would
    find none, or NotImplemented when only the search can tell (same cases as usable_count).

    With one selection for every request and no constraints, the search's first solution takes
    the usable devices in candidate order: each request the next `count` of them (a request
    starts from the first device, skipping those this search took), claim after claim; it only
    backtracks when too few are usable, and then finds nothing."""
    from drasim.allocator.search import Pick
    wanted = [[(subs[0], subs[0].num_devices) for subs in pc.requests] for pc in prepared]
    total = sum(n for rows in wanted for _, n in rows)
    usable = []
    try:
        for found in _usable_devices(candidates, rd, label, selection, state, consumable_capacity):
            usable.append(found)
            if len(usable) == total:
                break   # the search looks no further either
    except _SearchMustDecide:
        return NotImplemented
    if len(usable) < total:
        # Every candidate was judged without an error: the search, trying every combination,
        # would find none either.
        return None
    picks, at = [], 0
    for rows in wanted:
        claim_picks = []
        for request, n in rows:
            for dev, slice_ in usable[at:at + n]:
                claim_picks.append(Pick(request, dev, slice_, None, None))
            at += n
        picks.append(claim_picks)
    return picks

