"""The depth-first backtracking search of one Allocate call (spec §6, §8, §11, §12, §15, §16).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/allocator_incubating.go
(allocateOne, allocateDevice, checkAvailableCounters); selectors in selection.py.

The search walks claims, their requests and the devices each request needs, in order; for one
request each next device is looked for after the previous one (combinations, not permutations).
The first complete solution wins. Everything a tentative pick reserves (counters, compatibility
groups, constraints, the in-use mark, a share's capacity) is released when the pick is rejected
part-way or undone on backtracking, as in v1.37.0 (kubernetes#140431). Where Kubernetes still
differs from the obvious design it is reproduced on purpose and marked "Go quirk".
"""
from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from drasim.allocator import compatibility
from drasim.allocator.capacity import consumed_from_request, request_fits
from drasim.allocator.features import Features
from drasim.allocator.model import DeviceRec, SliceRec
from drasim.allocator.pools import Pool
from drasim.allocator.requests import PreparedClaim, ReqData
from drasim.allocator.selection import Selection
from drasim.allocator.state import AllocatedState
from drasim.api.devicetaints import prevents_allocation
from drasim.errors import AllocationError

RESULTS_MAX = 32  # k8s: resourceapi.AllocationResultsMaxSize


class MaxSizeExceeded(Exception):
    """A branch would put more than 32 results into one claim (errAllocationResultMaxSizeExceeded)."""


class Pick:
    """One tentatively allocated device."""

    __slots__ = ("rd", "dev", "slice", "share_id", "consumed")

    def __init__(self, rd: ReqData, dev: DeviceRec, slice_: SliceRec, share_id: str | None, consumed) -> None:
        self.rd, self.dev, self.slice, self.share_id, self.consumed = rd, dev, slice_, share_id, consumed


class Search:
    """State of one Allocate call: what is being allocated, counters and capacity taken so far."""

    __slots__ = ("features", "state", "selection", "claims", "requests", "candidates", "share_id", "constraints",
                 "results", "selected", "allocating", "allocating_capacity", "live_shares", "available", "consumed",
                 "group_baselines", "groups_running")

    def __init__(self, features: Features, state: AllocatedState, selection: Selection,
                 claims: list[PreparedClaim], requests: list[list[list[ReqData]]],
                 candidates: list[tuple[DeviceRec, SliceRec, Pool]], share_id: Callable[[], str]) -> None:
        self.features = features
        self.state = state
        self.selection = selection
        self.claims = claims
        self.requests = requests
        self.candidates = candidates
        self.share_id = share_id
        self.constraints = [c.new_constraints() for c in claims]
        self.results: list[list[Pick]] = [[] for _ in claims]
        self.selected: list[list[int]] = [[0] * len(r) for r in requests]
        self.allocating: dict[str, set[int]] = {}           # device id -> claim indices
        self.allocating_capacity: dict[str, dict[str, Fraction]] = {}
        self.live_shares: dict[str, int] = {}               # device id -> shares picked in this search
        # Keyed by pool id (driver/pool), as v1.37.0 keys them (kubernetes#140435).
        self.available: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.consumed: dict[str, dict[str, dict[str, Fraction]]] = {}
        # KEP-5963 rolling intersections, keyed by pool NAME like counters (compatibility.py)
        self.group_baselines: dict[str, dict] = {}
        self.groups_running: dict[str, dict] = {}

    # --- the recursion ------------------------------------------------------------------------

    def run(self) -> bool:
        return self.allocate_one(0, 0, 0, 0, False, 0)

    def allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int) -> bool:
        if ci >= len(self.claims):
            return True  # first full solution wins
        claim_requests = self.requests[ci]
        if ri >= len(claim_requests):
            try:
                return self.allocate_one(ci + 1, 0, 0, 0, False, 0)
            except MaxSizeExceeded:
                return False  # another branch of an earlier claim may pick a smaller subrequest
        subs = claim_requests[ri]
        rd = subs[si]
        if not in_sub and rd.parent is not None:
            return self._first_available(ci, ri, di, subs)
        if rd.all_mode and not rd.all_devices:
            return False  # an empty "all" set means no allocation on this node (§15.2)
        if di >= rd.num_devices:
            return self.allocate_one(ci, ri + 1, 0, 0, False, 0)
        if len(self.results[ci]) + rd.num_devices - di > RESULTS_MAX:
            raise MaxSizeExceeded
        if rd.all_mode:
            return self._next_of_all(ci, ri, si, di, in_sub, rd)
        return self._next_device(ci, ri, si, di, in_sub, start, rd)

    def _first_available(self, ci: int, ri: int, di: int, subs: list[ReqData]) -> bool:
        all_exceeded = True
        for k in range(len(subs)):
            try:
                ok = self.allocate_one(ci, ri, k, di, True, 0)
            except MaxSizeExceeded:
                continue  # the next subrequest may need fewer devices
            all_exceeded = False
            if ok:
                self.selected[ci][ri] = k
                return True
        if all_exceeded:
            raise MaxSizeExceeded
        return False

    def _next_of_all(self, ci: int, ri: int, si: int, di: int, in_sub: bool, rd: ReqData) -> bool:
        dev, slice_, pool = rd.all_devices[di]
        undo = self.allocate_device(ci, rd, dev, slice_, pool, True)
        if undo is None:
            return False  # every device of the set must be usable (§15.3)
        try:
            done = self.allocate_one(ci, ri, si, di + 1, in_sub, 0)
        except BaseException:
            undo()
            raise
        if not done:
            undo()
        return done

    def _next_device(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int, rd: ReqData) -> bool:
        state, allocating = self.state, self.allocating
        admin = rd.admin
        label = self.claims[ci].label
        consumable = self.features.consumable_capacity
        is_selectable = self.selection.is_selectable
        candidates = self.candidates
        for idx in range(start, len(candidates)):
            dev, slice_, pool = candidates[idx]
            dev_id = dev.id
            # "In use" is cheap and comes before any CEL, so in-use devices never raise CEL errors (§8.2).
            if admin:
                claims_using = allocating.get(dev_id)
                if claims_using and ci in claims_using:
                    continue
            elif state.is_exclusive(dev_id) or allocating.get(dev_id):
                continue
            if not is_selectable(rd, dev, slice_, label):
                continue
            if consumable and not self._capacity_fits(rd, dev):
                continue
            undo = self.allocate_device(ci, rd, dev, slice_, pool, False)
            if undo is None:
                continue
            try:
                done = self.allocate_one(ci, ri, si, di + 1, in_sub, idx + 1)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    # --- one device ---------------------------------------------------------------------------

    def _capacity_fits(self, rd: ReqData, dev: DeviceRec) -> bool:
        if not dev.capacity and not rd.cap_requests:
            return True
        return request_fits(dev, rd.cap_requests, self.state.consumed_capacity(dev.id),
                            self.allocating_capacity.get(dev.id))

    def allocate_device(self, ci: int, rd: ReqData, dev: DeviceRec, slice_: SliceRec, pool: Pool,
                        must: bool) -> Callable[[], None] | None:
        """allocateDevice: availability, counters, taints, constraints; returns an undo function or None.

        Every rejection after the first reservation, the `must` error and the undo returned for
        backtracking release exactly what this call reserved, through one rollback (k8s: PR #140431,
        deviceRollbackState / rollbackDevice, in v1.37.0; before it, rejected candidates kept their
        counters and a shareable device's undo kept the counters of its first share).
        """
        features = self.features
        dev_id = dev.id
        multi = features.consumable_capacity and dev.allow_multi
        claims_using = self.allocating.get(dev_id)
        if not multi and rd.admin and claims_using and ci in claims_using:
            return None
        if not rd.admin and (self.state.is_exclusive(dev_id) or claims_using):
            return None
        if not features.partitionable_devices and dev.consumes:
            return None
        if dev.consumes and not features.compatibility_groups and self._skip_for_disabled_groups(dev, pool):
            return None
        # A shareable device pays its counters once, on its first share (§12.7). Admin access still
        # reserves counters like any request (kubernetes#140729, open in v1.37).
        skip_counters = multi and (self.state.consumed_capacity(dev_id) is not None or dev_id in self.allocating_capacity)
        counters_taken = not skip_counters and bool(dev.consumes)
        if counters_taken and not self._take_counters(dev, pool):
            return None  # _take_counters has already given them back
        request, subrequest = (rd.parent, rd.name) if rd.parent is not None else (rd.name, "")
        constraints = self.constraints[ci]
        results = self.results[ci]
        # What this call has reserved so far (deviceRollbackState).
        groups_undo: Callable[[], None] | None = None
        added = 0           # constraints that accepted the device
        using: set[int] | None = None
        consumed = None     # consumption recorded for this share of a shareable device
        before = -1         # number of results before ours was appended

        def rollback() -> None:
            for constraint in constraints[:added]:
                constraint.remove(request, subrequest, dev)
            if using is not None:
                using.discard(ci)
                if not using and self.allocating.get(dev_id) is using:
                    del self.allocating[dev_id]
            if consumed is not None:
                self._remove_capacity(dev_id, consumed)
            if counters_taken:
                self._return_counters(dev, pool)
            if groups_undo is not None:
                groups_undo()
            if before >= 0:
                del results[before:]

        if dev.consumes and features.compatibility_groups:
            groups_undo = self._take_groups(dev, pool)
            if groups_undo is None:
                rollback()
                return None
        if features.device_taints and dev.taints:
            for taint in dev.taints:
                if prevents_allocation(taint, rd.tolerations):
                    rollback()
                    return None
        for constraint in constraints:
            if not constraint.add(request, subrequest, dev):
                rollback()
                if must:
                    raise AllocationError(f"claim {self.claims[ci].label}, request {rd.name}: cannot add device "
                                          f"{dev_id} because a claim constraint would not be satisfied")
                return None
            added += 1
        using = self.allocating.setdefault(dev_id, set())
        if not multi:
            using.add(ci)
        share = None
        if features.consumable_capacity:
            if not self._capacity_fits(rd, dev):
                rollback()
                return None
            if multi:
                consumed = consumed_from_request(dev, rd.cap_requests)
                share = self.share_id()
                self._add_capacity(dev_id, consumed)
        before = len(results)
        results.append(Pick(rd, dev, slice_, share, consumed or None))
        return rollback

    # --- capacity and counters bookkeeping ----------------------------------------------------

    def _add_capacity(self, dev_id: str, consumed: dict) -> None:
        """Record one share of a shareable device; an entry, even an empty one, marks the device's
        capacity as in use, so later shares skip the counter check (deviceCapacityInUse)."""
        agg = self.allocating_capacity.setdefault(dev_id, {})
        for name, q in consumed.items():
            agg[name] = agg.get(name, 0) + q.value
        self.live_shares[dev_id] = self.live_shares.get(dev_id, 0) + 1

    def _remove_capacity(self, dev_id: str, consumed: dict) -> None:
        """Drop one share; the in-use mark goes with the last share of this search (PR #140431 keeps
        it while another share still relies on it)."""
        agg = self.allocating_capacity[dev_id]
        for name, q in consumed.items():
            if name in agg:
                agg[name] -= q.value
        left = self.live_shares[dev_id] - 1
        if left:
            self.live_shares[dev_id] = left
        else:
            del self.live_shares[dev_id]
            del self.allocating_capacity[dev_id]

    def _group_baseline(self, pool: Pool) -> dict:
        name = pool.pool
        found = self.group_baselines.get(name)
        if found is None:
            found = self.group_baselines[name] = compatibility.baseline(pool.all_devices(), self.state.group_snapshot)
        return found

    def _take_groups(self, dev: DeviceRec, pool: Pool) -> Callable[[], None] | None:
        """checkAndConsumeCompatibilityGroups: fold the device's groups into every counter set it
        draws from, or None (nothing changed) if any set does not admit it."""
        running = self.groups_running.setdefault(pool.pool, {})
        baseline = None
        saved: list[tuple[str, object, bool]] = []
        for set_name, groups in dev.compat:
            existed = set_name in running
            if existed:
                current = running[set_name]
            else:
                if baseline is None:
                    baseline = self._group_baseline(pool)
                current = baseline.get(set_name)
            if not compatibility.admits(current, groups):
                self._restore_groups(running, saved)
                return None
            saved.append((set_name, current, existed))
            running[set_name] = compatibility.add(current, groups)
        return lambda: self._restore_groups(running, saved)

    @staticmethod
    def _restore_groups(running: dict, saved: list) -> None:
        for set_name, previous, existed in reversed(saved):
            if existed:
                running[set_name] = previous
            else:
                running.pop(set_name, None)

    def _skip_for_disabled_groups(self, dev: DeviceRec, pool: Pool) -> bool:
        if dev.compat_snapshot:
            return True
        if not self.state.groups:
            return False
        baseline = self._group_baseline(pool)
        return any(isinstance(baseline.get(set_name), frozenset) for set_name, _ in dev.consumes)

    def _available(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        """Counter sets minus what allocated devices consume; may go negative (§11.2)."""
        token = self.state.token
        if pool.avail_cache is not None and pool.avail_cache[0] == token:
            return pool.avail_cache[1]
        avail = {name: dict(counters) for name, counters in pool.counter_sets.items()}
        is_allocated = self.state.is_allocated
        for dev in pool.all_devices():
            if dev.consumes and is_allocated(dev.id):
                for set_name, counters in dev.consumes:
                    target = avail.get(set_name)
                    if target is None:
                        continue
                    for name, value in counters.items():
                        if name in target:
                            target[name] -= value
        pool.avail_cache = (token, avail)
        return avail

    def _take_counters(self, dev: DeviceRec, pool: Pool) -> bool:
        # By driver and pool (kubernetes#140435, in v1.37.0; spec §11.2's pool name alone is
        # the older code): pools of two drivers with the same name keep their own counters.
        name = pool.id
        avail = self.available.get(name)
        if avail is None:
            avail = self.available[name] = self._available(pool)
        consumed = self.consumed.setdefault(name, {})
        for set_name, counters in dev.consumes:
            used = consumed.setdefault(set_name, {})
            for counter, value in counters.items():
                used[counter] = used.get(counter, 0) + value
        # Any counter of any set of the pool short -> reject (quirk §21.6).
        for set_name, counters in avail.items():
            used = consumed.get(set_name) or {}
            for counter, value in counters.items():
                if value < used.get(counter, 0):
                    self._return_counters(dev, pool)
                    return False
        return True

    def _return_counters(self, dev: DeviceRec, pool: Pool) -> None:
        consumed = self.consumed.get(pool.id) or {}
        for set_name, counters in dev.consumes:
            used = consumed.get(set_name)
            if used is None:
                continue
            for counter, value in counters.items():
                used[counter] = used.get(counter, 0) - value
