"""ResourceSlices parsed once into slotted records the search can use without re-deriving facts.

A `SliceRec` is built when a slice is added or updated and thrown away when it changes, so
everything hanging off its devices (the CEL input, selector results) is dropped with it.
k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/pools_incubating.go
(the Go code converts each slice on every Allocate call; we convert once per slice version).
"""
from __future__ import annotations

from fractions import Fraction

from drasim.api.decodedjson import json_key
from drasim.api.quantity import Quantity, parse_quantity


def counter_value(counter: dict) -> int | Fraction:
    """A counter's value, as an int when it is whole (counter sums and comparisons then stay
    in fast int arithmetic; Fraction only for milli-unit values)."""
    value = parse_quantity(counter.get("value") or "0").value   # Go: null or absent is the zero Quantity
    return value.numerator if value.denominator == 1 else value


class CapacityRec:
    """One entry of `device.capacity` with its requestPolicy parsed (spec §12)."""

    __slots__ = ("value", "policy", "default", "valid_values", "has_range", "range_min", "range_max", "range_step")

    def __init__(self, raw: dict) -> None:
        self.value: Quantity = parse_quantity(raw.get("value") or "0")   # Go: null or absent is the zero Quantity
        policy = raw.get("requestPolicy")
        self.policy = policy is not None
        policy = policy or {}
        self.default: Quantity | None = _q(policy.get("default"))
        values = policy.get("validValues")
        self.valid_values: list[Quantity] | None = [parse_quantity(v) for v in values] if values is not None else None
        rng = policy.get("validRange")
        self.has_range = rng is not None
        rng = rng or {}
        self.range_min: Quantity | None = _q(rng.get("min"))
        self.range_max: Quantity | None = _q(rng.get("max"))
        self.range_step: Quantity | None = _q(rng.get("step"))


def _q(value) -> Quantity | None:
    return None if value is None else parse_quantity(value)


class DeviceRec:
    """One device of a slice, with the facts every Allocate call needs precomputed."""

    __slots__ = ("name", "id", "driver", "pool", "raw", "capacity", "allow_multi", "consumes", "taints",
                 "binding_conditions", "binding_failure_conditions", "binds_to_node",
                 "node_name", "all_nodes", "node_selector", "sel_cache", "_cel_input", "_cel_error", "cap_fits_empty",
                 "compat", "compat_snapshot", "attr_sets", "beyond_quick_fit", "capacity_blocks_empty")

    def __init__(self, driver: str, pool: str, raw: dict, admitted: bool = False) -> None:
        self.name: str = raw.get("name", "")
        # driver has no "/" and device names are DNS labels, so this string is a unique key.
        self.id = f"{driver}/{pool}/{self.name}"
        self.driver = driver
        self.pool = pool
        self.raw = raw
        self.capacity, self.cap_fits_empty = _capacity(raw.get("capacity"))
        self.allow_multi = bool(raw.get("allowMultipleAllocations"))
        consumes = raw.get("consumesCounters")
        self.consumes: list[tuple[str, dict[str, Fraction]]] = [
            (c.get("counterSet", ""), {n: counter_value(v) for n, v in (c.get("counters") or {}).items()})
            for c in consumes] if consumes else []
        # KEP-5963: per consumed counter set, the declared compatibility groups (None: none), and
        # the snapshot an allocation result records (only the sets with groups; None if no set has any).
        self.compat: list[tuple[str, frozenset | None]] = [
            (c.get("counterSet", ""), frozenset(c["compatibilityGroups"]) if c.get("compatibilityGroups") else None)
            for c in consumes] if consumes else []
        self.compat_snapshot: dict[str, list[str]] | None = ({
            c.get("counterSet", ""): list(c["compatibilityGroups"])
            for c in consumes if c.get("compatibilityGroups")} or None) if consumes else None
        taints = raw.get("taints")
        self.taints: list[dict] = list(taints) if taints else []
        self.binding_conditions = raw.get("bindingConditions") or None
        self.binding_failure_conditions = raw.get("bindingFailureConditions") or None
        self.binds_to_node = bool(raw.get("bindsToNode"))
        self.node_name: str = raw.get("nodeName") or ""
        self.all_nodes = bool(raw.get("allNodes"))
        self.node_selector: dict | None = raw.get("nodeSelector")
        # expression text -> True/False, or a CEL error message (str); lives as long as this slice version.
        self.sel_cache: dict[str, bool | str] = {}
        self.attr_sets: dict | None = None   # attribute name -> its value set (listconstraints.py), on first use
        self._cel_input = None
        # False: not known yet. A device of an admitted slice has none: the API server's validation
        # refuses every attribute and capacity the CEL input could not represent
        # (tests/unit/api/test_admitted_devices.py).
        self._cel_error: str | None | bool = None if admitted else False
        # quickfit.py reads these for every device of a node, each time a pod is tried there:
        # a kind of device the shortcut does not model, and capacity an empty request overflows.
        self.beyond_quick_fit = bool(self.allow_multi or self.consumes or self.taints or self.binding_conditions)
        self.capacity_blocks_empty = bool(self.capacity) and not self.cap_fits_empty

    def cel_input(self):
        """The CEL `device` value, built on first use only (spec §10.2)."""
        if self._cel_input is None:
            from drasim.cel import device_input
            self._cel_input = device_input(self.driver, self.raw)
        return self._cel_input

    def cel_error(self) -> str | None:
        """The CEL input's `error`, without building the input when it is not built yet."""
        if self._cel_input is not None:
            return self._cel_input.error
        if self._cel_error is False:
            from drasim.cel.device import device_error
            self._cel_error = device_error(self.raw)
        return self._cel_error   # type: ignore[return-value]


# A fleet's devices repeat a few capacity maps (`memory: 80Gi`): parsed once each. The records
# and the map are never changed after they are built, so devices share them.
_CAPACITIES: dict[str, tuple[dict[str, CapacityRec], bool]] = {}
_NO_CAPACITY: tuple[dict[str, CapacityRec], bool] = ({}, True)


def _capacity(raw: dict | None) -> tuple[dict[str, CapacityRec], bool]:
    """A device's capacity records, and whether a request without capacity requests fits it."""
    if not raw:
        return _NO_CAPACITY
    # orjson's text where it can write the value (repr otherwise): two capacity maps with the same
    # text hold the same names, values and policies in the same order, so the same records
    # (a list and a tuple of valid values, alike in JSON, parse alike too).
    key = json_key(raw)
    found = _CAPACITIES.get(key)
    if found is None:
        records = {k: CapacityRec(v) for k, v in raw.items()}
        found = (records, _fits_without_requests(records))
        if len(_CAPACITIES) >= 4096:
            _CAPACITIES.clear()
        _CAPACITIES[key] = found
    return found


def _fits_without_requests(capacity: dict[str, CapacityRec]) -> bool:
    """Whether a request without capacity requests fits an otherwise unused device (fast path of §12.2)."""
    from drasim.allocator.capacity import consumed_amount, violates_policy
    for cap in capacity.values():
        consumed = consumed_amount(None, cap)
        if violates_policy(consumed, cap) or consumed.value > cap.value.value:
            return False
    return True


class SliceRec:
    """One ResourceSlice version, parsed."""

    __slots__ = ("name", "driver", "pool", "generation", "slice_count", "node_name", "all_nodes",
                 "node_selector", "per_device", "per_device_set", "devices", "shared_counters", "raw")

    def __init__(self, raw: dict, admitted: bool = False) -> None:
        spec = raw.get("spec") or {}
        pool = spec.get("pool") or {}
        self.raw = raw
        self.name: str = (raw.get("metadata") or {}).get("name", "")
        self.driver: str = spec.get("driver", "")
        self.pool: str = pool.get("name", "")
        self.generation: int = int(pool.get("generation") or 0)
        self.slice_count: int = int(pool.get("resourceSliceCount") or 0)
        self.node_name: str = spec.get("nodeName") or ""
        self.all_nodes = bool(spec.get("allNodes"))
        self.node_selector: dict | None = spec.get("nodeSelector")
        self.per_device_set = spec.get("perDeviceNodeSelection") is not None
        self.per_device = bool(spec.get("perDeviceNodeSelection"))
        if not admitted:   # parsed now: what the input holds is checked where it always was
            self.devices = [DeviceRec(self.driver, self.pool, d) for d in spec.get("devices") or ()]
        # else `devices` stays unset until first read (__getattr__): a loaded fleet's slices are
        # parsed device by device only for the nodes the allocator looks at.
        self.shared_counters: list[tuple[str, dict[str, Fraction]]] = [
            (cs.get("name", ""), {n: counter_value(v) for n, v in (cs.get("counters") or {}).items()})
            for cs in spec.get("sharedCounters") or ()]

    def __getattr__(self, name: str):
        # Only called for a slot not set: the device records of an admitted slice, built on their
        # first read; from then on the slot answers directly (no cost on the search's loops).
        if name != "devices":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        devices = self.devices = [DeviceRec(self.driver, self.pool, d, True)
                                  for d in (self.raw.get("spec") or {}).get("devices") or ()]
        return devices

    @property
    def pool_id(self) -> tuple[str, str]:
        return (self.driver, self.pool)
