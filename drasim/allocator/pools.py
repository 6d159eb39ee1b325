"""Resource pools visible from one node: generations, completeness, validity and order (spec §5, §11.1).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/pools_incubating.go
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

from drasim.allocator.features import Features
from drasim.allocator.model import DeviceRec, SliceRec
from drasim.allocator.nodeselector import NodeSelectorError, node_matches
from drasim.errors import AllocationError


class Pool:
    """One (driver, pool) as seen from a node. Incomplete/invalid pools carry no devices."""

    __slots__ = ("driver", "pool", "id", "incomplete", "invalid", "invalid_reason", "slices",
                 "not_targeting", "counter_sets", "has_binding", "avail_cache")

    def __init__(self, driver: str, pool: str) -> None:
        self.driver, self.pool = driver, pool
        self.id = f"{driver}/{pool}"
        self.incomplete = False
        self.invalid = False
        self.invalid_reason = ""
        self.slices: list[SliceRec] = []          # device slices targeting the node, sorted by name
        self.not_targeting: list[SliceRec] = []   # device slices of the pool kept aside (counters only)
        self.counter_sets: dict[str, dict[str, Fraction]] = {}
        self.has_binding = False
        self.avail_cache: tuple[int, dict] | None = None  # (allocated-state token, available counters)

    def all_devices(self) -> Iterable[DeviceRec]:
        for group in (self.slices, self.not_targeting):
            for s in group:
                yield from s.devices


def gather_pools(node: dict, slices_for_node: Iterable[SliceRec], features: Features,
                 pool_slices: Callable[[tuple[str, str]], Iterable[SliceRec]]) -> list[Pool]:
    """GatherPools: the pools with devices for *node*, sorted; binding-condition pools last (§5.10).

    *pool_slices(pool_id)* lists every slice of a pool in the cluster (for the completeness check).
    """
    by_pool: dict[tuple[str, str], list[SliceRec]] = {}
    for s in slices_for_node:
        if not features.partitionable_devices and (s.per_device_set or s.shared_counters):
            continue
        if _is_relevant(s, node):
            _add_slice(by_pool, s)
    plain: list[Pool] = []
    binding: list[Pool] = []
    for pool_id, kept in by_pool.items():
        generation = kept[0].generation
        if len(kept) == kept[0].slice_count:
            pool = _build_pool(pool_id, kept, features, None)
        else:
            obsolete, every = _check_slices_in_pool(pool_slices(pool_id), generation)
            if obsolete:
                continue  # a newer generation is being published elsewhere: ignore silently (§5.5)
            if len(every) != kept[0].slice_count:
                pool = Pool(*pool_id)
                pool.incomplete = True
                plain.append(pool)
                continue
            pool = _build_pool(pool_id, kept, features, every)
        (binding if pool.has_binding else plain).append(pool)
    plain.sort(key=_pool_order)
    binding.sort(key=_pool_order)
    return plain + binding


def _pool_order(pool: Pool) -> tuple[bytes, bytes]:
    return (pool.driver.encode(), pool.pool.encode())  # byte order, like Go's string compare


def _is_relevant(s: SliceRec, node: dict) -> bool:
    try:
        if s.node_name or s.all_nodes or s.node_selector is not None:
            return node_matches(node, s.node_name, s.all_nodes, s.node_selector)
        if s.per_device:
            return any(node_matches(node, d.node_name, d.all_nodes, d.node_selector) for d in s.devices)
    except NodeSelectorError as exc:
        raise AllocationError(f"gather pool information: failed to perform node selection for slice {s.name}: "
                              f"failed to parse node selector: {exc}") from None
    return False  # some future node-selection field: not usable


def _add_slice(by_pool: dict[tuple[str, str], list[SliceRec]], s: SliceRec) -> None:
    kept = by_pool.get(s.pool_id)
    if kept is None or s.generation > kept[0].generation:
        by_pool[s.pool_id] = [s]       # new pool, or a newer generation replaces what was kept
    elif s.generation == kept[0].generation:
        kept.append(s)                 # older generations are dropped silently


def _check_slices_in_pool(every: Iterable[SliceRec], generation: int) -> tuple[bool, list[SliceRec]]:
    same = []
    for s in every:
        if s.generation == generation:
            same.append(s)
        elif s.generation > generation:
            return True, []
    return False, same


def _build_pool(pool_id: tuple[str, str], kept: list[SliceRec], features: Features,
                every: list[SliceRec] | None) -> Pool:
    pool = Pool(*pool_id)
    kept = sorted(kept, key=lambda s: s.name.encode())
    counter_slices = []
    for s in kept:
        (counter_slices if features.partitionable_devices and s.shared_counters else pool.slices).append(s)
    if every is not None and len(kept) < len(every):
        names = {s.name for s in kept}
        for s in every:
            if s.name not in names:
                (counter_slices if features.partitionable_devices and s.shared_counters else pool.not_targeting).append(s)
    pool.has_binding = any(d.binding_conditions for s in pool.slices for d in s.devices)
    reason = _duplicate_device(pool.slices)
    if not reason and features.partitionable_devices:
        reason = _collect_counter_sets(pool, counter_slices) or _unknown_counters(pool, pool.slices) \
            or _unknown_counters(pool, pool.not_targeting)
    if reason:
        invalid = Pool(*pool_id)
        invalid.invalid, invalid.invalid_reason = True, reason
        # has_binding stays False: Go looks for binding conditions in the returned (device-less) pool.
        return invalid
    return pool


def _duplicate_device(slices: list[SliceRec]) -> str:
    seen: set[str] = set()
    for s in slices:
        for d in s.devices:
            if d.name in seen:
                return f"duplicate device name {d.name}"
            seen.add(d.name)
    return ""


def _collect_counter_sets(pool: Pool, counter_slices: list[SliceRec]) -> str:
    for s in counter_slices:
        for name, counters in s.shared_counters:
            if name in pool.counter_sets:
                return f"duplicate counter set name {name}"
            pool.counter_sets[name] = counters
    return ""


def _unknown_counters(pool: Pool, slices: list[SliceRec]) -> str:
    for s in slices:
        for d in s.devices:
            for set_name, counters in d.consumes:
                counter_set = pool.counter_sets.get(set_name)
                if counter_set is None:
                    return f"counter set {set_name} not found"
                for counter in counters:
                    if counter not in counter_set:
                        return f"counter {counter} not found in counter set {set_name}"
    return ""
