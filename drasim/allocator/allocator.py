"""The long-lived allocator: an index of slices and classes, per-node pool caches, and Allocate.

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/allocator.go (contract),
…/structured/internal/incubating/allocator_incubating.go (Allocate).

Kubernetes builds an allocator per pod and re-derives every fact per node. Here the facts that
do not change between calls are kept until their input changes: parsed slices (with CEL inputs
and selector results), the pools each node sees, and prepared claims. Decisions are the same.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence

from drasim.api.decodedjson import json_key
from drasim.allocator.capacity import request_fits
from drasim.allocator.features import Features
from drasim.allocator.model import DeviceRec, SliceRec
from drasim.allocator.pools import Pool, gather_pools
from drasim.allocator.quickfit import decide, plain_picks, simple_needs, usable_count
from drasim.allocator.requests import ClassRec, PreparedClaim, ReqData, missing_classes, prepare_claim
from drasim.allocator.result import build_allocation
from drasim.allocator.search import RESULTS_MAX, Search
from drasim.allocator.selection import Selection
from drasim.allocator.state import AllocatedState
from drasim.errors import AllocationError

INVALID_POOLS = "invalid resource pools were encountered"


class NodeAllocationFailure(AllocationError):
    """Allocation failed on this node only (ErrFailedAllocationOnNode): the node is Unschedulable with this text."""


class _NodeView:
    """The pools one node sees, flattened into the candidate order of spec §5.10."""

    __slots__ = ("labels", "pools", "candidates", "has_invalid", "error", "serial", "pool_names")
    _serials = iter(range(1, 1 << 62))

    def __init__(self, labels: dict, pools: list[Pool] | None, error: AllocationError | None = None) -> None:
        self.labels = labels
        self.pools = pools or []
        self.serial = next(_NodeView._serials)
        # Counter bookkeeping is keyed by pool name alone (spec §11.2), so is change tracking.
        self.pool_names = tuple(sorted({p.pool for p in self.pools}))
        self.error = error
        self.has_invalid = any(p.invalid for p in self.pools)
        self.candidates: list[tuple[DeviceRec, SliceRec, Pool]] = [
            (dev, s, pool) for pool in self.pools if not (pool.incomplete or pool.invalid)
            for s in pool.slices for dev in s.devices]


class Allocator:
    """Allocates ResourceClaims against the cluster's ResourceSlices, one node at a time."""

    def __init__(self, features: Features = Features(), share_id: Callable[[], str] | None = None) -> None:
        self.features = features
        self._share_id = share_id or (lambda: str(uuid.uuid4()))
        self._slices: dict[str, SliceRec] = {}
        self._by_node: dict[str, dict[str, SliceRec]] = {}
        self._shared: dict[str, SliceRec] = {}
        self._by_pool: dict[tuple[str, str], dict[str, SliceRec]] = {}
        self._classes: dict[str, ClassRec] = {}
        self._views: dict[str, _NodeView] = {}
        self._pool_nodes: dict[tuple[str, str], set[str]] = {}
        self._prepared: dict[bytes | str, PreparedClaim] = {}
        self._prepared_by_id: dict[int, tuple[dict, PreparedClaim]] = {}
        self._usable: dict[tuple, tuple] = {}   # (view serial, selection) -> (allocation token, usable count)

    # --- inputs -----------------------------------------------------------------------------

    def set_slice(self, slice_: dict, admitted: bool = False) -> None:
        """Add or replace a ResourceSlice (by metadata.name); DeviceTaintRules are already merged in.
        `admitted`: it passed the API server's validation (a stored slice)."""
        rec = SliceRec(slice_, admitted)
        old = self._slices.get(rec.name)
        if old is not None:
            self._unindex(old)
        self._slices[rec.name] = rec
        (self._by_node.setdefault(rec.node_name, {}) if rec.node_name else self._shared)[rec.name] = rec
        self._by_pool.setdefault(rec.pool_id, {})[rec.name] = rec
        self._invalidate(rec)

    def remove_slice(self, name: str) -> None:
        old = self._slices.get(name)
        if old is not None:
            self._unindex(old)

    def _unindex(self, rec: SliceRec) -> None:
        del self._slices[rec.name]
        group = self._by_node.get(rec.node_name) if rec.node_name else self._shared
        group.pop(rec.name, None)
        if rec.node_name and not group:
            del self._by_node[rec.node_name]
        pool = self._by_pool[rec.pool_id]
        pool.pop(rec.name, None)
        if not pool:
            del self._by_pool[rec.pool_id]
        self._invalidate(rec)

    def _invalidate(self, rec: SliceRec) -> None:
        """Drop the node views a slice change can affect: its node, nodes sharing its pool, or all."""
        if not rec.node_name:
            self._views.clear()
            self._pool_nodes.clear()
            return
        self._views.pop(rec.node_name, None)
        for node_name in self._pool_nodes.pop(rec.pool_id, ()):
            self._views.pop(node_name, None)

    def set_class(self, device_class: dict) -> None:
        rec = ClassRec(device_class)
        self._classes[rec.name] = rec
        self._prepared.clear()
        self._prepared_by_id.clear()
        self._usable.clear()

    def remove_class(self, name: str) -> None:
        self._classes.pop(name, None)
        self._prepared.clear()
        self._prepared_by_id.clear()
        self._usable.clear()

    def missing_classes(self, claims: Iterable[dict]) -> list[tuple[str, str]]:
        """(request or request/subrequest, class name) for each request whose class does not exist.

        PreFilter turns each into "request <r>: device class <c> does not exist" (spec §14.3).
        """
        return missing_classes(claims, self._classes)

    # --- allocation -------------------------------------------------------------------------

    def allocate(self, node: dict, claims: Sequence[dict], allocated: AllocatedState) -> list[dict] | None:
        """One `status.allocation` per claim, or None if the claims do not fit on *node* together.

        Raises AllocationError for bad claim/class data (fatal for the pod's cycle) and
        NodeAllocationFailure when only this node is affected (invalid pools).
        """
        view = self._view(node)
        if view.error is not None:
            raise view.error
        selection = Selection(node, self.features)
        prepared = [self._prepare(c) for c in claims]
        requests = [self._node_requests(pc, view, selection, allocated) for pc in prepared]
        search = Search(self.features, allocated, selection, prepared, requests, view.candidates, self._share_id)
        if not search.run():
            if view.has_invalid:
                raise NodeAllocationFailure(INVALID_POOLS)
            return None
        node_name = (node.get("metadata") or {}).get("name", "")
        out = []
        for ci, pc in enumerate(prepared):
            chosen = [subs[k] for subs, k in zip(requests[ci], search.selected[ci])]
            out.append(build_allocation(pc, search.results[ci], chosen, node_name, self.features.device_binding,
                                       self.features.compatibility_groups))
        return out

    def allocate_plan(self, node: dict, claims: Sequence[dict], plan, allocated: AllocatedState):
        """allocate() for claims of the simple shape (`plan`, see quickfit.py) without the search;
        NotImplemented when the search must run. tests/unit/allocator/test_property.py holds the
        two equal."""
        if plan is None:
            return NotImplemented
        view = self._view(node)
        if view.error is not None or view.has_invalid:
            return NotImplemented
        rd, _needs, label = plan
        prepared = [self._prepare(c) for c in claims]
        picks = plain_picks(view.candidates, prepared, rd, label, Selection(node, self.features), allocated,
                            self.features.consumable_capacity)
        if picks is None or picks is NotImplemented:
            return picks
        node_name = (node.get("metadata") or {}).get("name", "")
        return [build_allocation(pc, claim_picks, [subs[0] for subs in pc.requests], node_name,
                                 self.features.device_binding, self.features.compatibility_groups)
                for pc, claim_picks in zip(prepared, picks)]

    def fits(self, node: dict, claims: Sequence[dict], allocated: AllocatedState) -> bool | None:
        """Whether the claims fit on the node, decided without a search when their shape allows.

        None means "run allocate()". See quickfit.py.
        """
        return self.fits_plan(node, self.plan(claims), allocated)

    def plan(self, claims: Sequence[dict]):
        """The node-independent part of fits(): reuse it for every node of a scheduling cycle."""
        prepared = [self._prepare(c) for c in claims]
        simple = simple_needs(prepared)
        return None if simple is None else (simple[0], simple[1], prepared[0].label)

    def fits_plan(self, node: dict, plan, allocated: AllocatedState) -> bool | None:
        if plan is None:
            return None
        view = self._view(node)
        if view.error is not None or view.has_invalid:
            return None
        rd, needs, label = plan
        key = (view.serial, rd.sel_key)
        versions = allocated.pool_versions
        token = (allocated.serial, tuple([versions.get(p, 0) for p in view.pool_names]))
        hit = self._usable.get(key)
        if hit is not None and hit[0] == token:
            count = hit[1]
        else:
            count = usable_count(view.candidates, rd, label, Selection(node, self.features),
                                 allocated, self.features.consumable_capacity)
            if len(self._usable) >= 65536:
                self._usable.clear()
            self._usable[key] = (token, count)
        return None if count is None else decide(needs, count)

    def _view(self, node: dict) -> _NodeView:
        meta = node.get("metadata") or {}
        name = meta.get("name", "")
        labels = meta.get("labels") or {}
        view = self._views.get(name)
        if view is not None and (view.labels is labels or view.labels == labels):
            return view
        local = self._by_node.get(name, {})
        slices = list(local.values()) + list(self._shared.values())
        try:
            pools = gather_pools(node, slices, self.features, lambda pid: self._by_pool.get(pid, {}).values())
            view = _NodeView(dict(labels), pools)
        except AllocationError as exc:
            view = _NodeView(dict(labels), None, exc)
        self._views[name] = view
        for rec in local.values():
            self._pool_nodes.setdefault(rec.pool_id, set()).add(name)
        return view

    def _prepare(self, claim: dict) -> PreparedClaim:
        """Prepared once per claim spec: claims from one template (or one pod's extended
        resources, rebuilt per node) share the work; each gets its own name for messages."""
        by_id = self._prepared_by_id.get(id(claim))
        if by_id is not None and by_id[0] is claim:
            return by_id[1]
        key = json_key(claim.get("spec"))   # claims come decoded (drasim/api/decodedjson.py)
        shared = self._prepared.get(key)
        if shared is not None:
            prepared = shared.for_claim(claim)
        else:
            prepared = prepare_claim(claim, self._classes, self.features)
            if prepared.error is None:   # errors name the claim: not shareable
                if len(self._prepared) >= 4096:
                    self._prepared.clear()
                self._prepared[key] = prepared
        if len(self._prepared_by_id) >= 1024:
            self._prepared_by_id.clear()
        self._prepared_by_id[id(claim)] = (claim, prepared)   # keeps the claim alive: its id is not reused
        return prepared

    def _node_requests(self, pc: PreparedClaim, view: _NodeView, selection: Selection,
                       state: AllocatedState) -> list[list[ReqData]]:
        """Per-node request data: fixes `All` device sets, raises errors in Kubernetes' order."""
        rows = pc.requests
        if pc.error is None and not pc.has_all:
            if pc.min_devices > RESULTS_MAX:
                raise AllocationError(f"claim {pc.label}: number of requested devices {pc.min_devices} exceeds the claim limit of {RESULTS_MAX}")
            return rows  # common case: nothing depends on the node
        if pc.has_all:
            rows = [[self._with_all_devices(pc, rd, view, selection, state) if rd.all_mode else rd for rd in subs]
                    for subs in rows]
        if pc.error is not None and pc.error_at[0] < len(pc.spec_requests):
            raise pc.error
        minimum = sum(min(rd.num_devices for rd in subs) for subs in rows)
        if minimum > RESULTS_MAX:
            raise AllocationError(f"claim {pc.label}: number of requested devices {minimum} exceeds the claim limit of {RESULTS_MAX}")
        if pc.error is not None:
            raise pc.error  # constraint errors come after the claim-limit check
        return rows

    def _with_all_devices(self, pc: PreparedClaim, rd: ReqData, view: _NodeView, selection: Selection,
                          state: AllocatedState) -> ReqData:
        """The fixed device set of an `allocationMode: All` request (spec §15.1, §5.7, §10.6)."""
        devices = []
        consumable = self.features.consumable_capacity
        for pool in view.pools:
            if pool.incomplete:
                raise AllocationError(f"claim {pc.label}, request {rd.name}: asks for all devices, but resource pool {pool.id} is currently being updated")
            if pool.invalid:
                raise AllocationError(f"claim {pc.label}, request {rd.name}: asks for all devices, but resource pool {pool.id} is currently invalid")
            for s in pool.slices:
                for dev in s.devices:
                    if not selection.is_selectable(rd, dev, s, pc.label):
                        continue
                    if consumable and (dev.capacity or rd.cap_requests) and not request_fits(
                            dev, rd.cap_requests, state.consumed_capacity(dev.id), None):
                        continue
                    devices.append((dev, s, pool))
        return rd.with_devices(devices)
