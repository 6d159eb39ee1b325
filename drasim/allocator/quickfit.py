"""Feasibility without a search, for the shape almost every pod has.

kube-scheduler runs the full backtracking Allocate for every node. When every
request of the pod's claims is a plain `exactly` request (ExactCount, no
subrequests, admin access, tolerations, capacity requests or constraints) and
all of them use the same class and selectors, a solution exists on a node iff
the node has that many usable devices: any such devices will do, and the search
would find them. The scan below visits devices in the search's order and stops
where the search would, so CEL is evaluated on exactly the devices the search
would evaluate (allocator.md §10.4: errors only surface where the search looks).

Anything else — partitionable or shareable devices, taints, binding conditions,
invalid pools, per-device node selection — answers None: use the full search.
"""
from __future__ import annotations

from collections.abc import Sequence

from drasim.allocator.requests import PreparedClaim
from drasim.allocator.search import RESULTS_MAX, Selection
from drasim.allocator.state import AllocatedState


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


def quick_fit(candidates, prepared: Sequence[PreparedClaim], selection: Selection, state: AllocatedState,
              consumable_capacity: bool) -> bool | None:
    """True/False when decided by counting usable devices, None when the full search must decide."""
    simple = simple_needs(prepared)
    if simple is None:
        return None
    rd, needs = simple
    ci = 0
    while ci < len(needs) and needs[ci] == 0:
        ci += 1
    remaining = needs[ci]
    is_exclusive = state.is_exclusive
    for dev, slice_, _pool in candidates:
        if is_exclusive(dev.id):
            continue
        if dev.allow_multi or dev.consumes or dev.taints or dev.binding_conditions or slice_.per_device:
            return None
        if not selection.is_selectable(rd, dev, slice_, prepared[ci].label):
            continue
        if consumable_capacity and dev.capacity and not dev.cap_fits_empty:
            continue
        remaining -= 1
        if remaining == 0:
            ci += 1
            while ci < len(needs) and needs[ci] == 0:
                ci += 1
            if ci == len(needs):
                return True
            remaining = needs[ci]
    return False
