"""`drasim ledger`: what each namespace's device counts bought in hardware.

Quota counts devices ("a MIG slice and a full accelerator both decrement the same quota by
one", seed 000). The ledger puts next to those counts the devices actually allocated to the
namespace's claims, read from the ResourceSlices that publish them:

- the hardware: model (the first of the attributes drivers use for it), memory (capacity or
  attribute `memory`), NUMA node;
- how much of a physical device it is: `whole`, a `partition` (a device that consumes
  counters of a shared counter set: its share is the largest fraction of a counter it takes),
  or `shared` (a device that allows multiple allocations: its share is the largest fraction of
  a capacity the claim consumed);
- devices served by device plugins, which DRA knows nothing about beyond the count.

A client of the control plane: it reads a settled cluster and writes nothing.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction

from drasim.api.quantity import QuantityError, parse_quantity
from drasim.controllers import quota
from drasim.controlplane import ControlPlane
from drasim.plan.inventory import allocatable, requested_names

# Attribute names drivers use for the model, in order of preference (NVIDIA: productName;
# the DRA example driver: model; others: type).
MODEL_ATTRIBUTES = ("productName", "model", "product", "type", "profile")
MEMORY_NAMES = ("memory", "memorySize")
NUMA_ATTRIBUTES = ("numa", "numaNode", "numa-node")
GIB = 1024 ** 3

WHOLE, PARTITION, SHARED, DEVICE_PLUGIN = "whole", "partition", "shared", "device-plugin"


@dataclass(frozen=True)
class Entry:
    namespace: str
    claim: str               # "" for device-plugin devices
    pods: tuple[str, ...]
    request: str             # the claim's request, or the extended resource name
    device_class: str | None  # the request's DeviceClass (None for device plugins)
    device: str              # driver/pool/device, or "<node>: <name>" for device plugins
    kind: str                # WHOLE, PARTITION, SHARED or DEVICE_PLUGIN
    model: str | None
    memory_bytes: int | None  # of the device, or consumed of it when shared
    numa: str | None
    share: float             # whole-device equivalents (1 for whole devices and device plugins)


@dataclass
class NamespaceLedger:
    namespace: str
    entries: list[Entry] = field(default_factory=list)
    quota: dict[str, dict[str, str]] = field(default_factory=dict)   # quota name -> key -> "used / hard"
    over_time: dict | None = None   # over a replayed trace: deviceHours, memoryGiBHours, pods

    @property
    def devices(self) -> int:
        return len(self.entries)

    @property
    def whole_equivalents(self) -> float:
        return sum(e.share for e in self.entries)

    @property
    def memory_gib(self) -> float:
        return sum((e.memory_bytes or 0) for e in self.entries) / GIB

    def hardware(self) -> dict[tuple[str, str | None], int]:
        """(kind, model) -> devices counted."""
        out: dict[tuple[str, str | None], int] = {}
        for e in self.entries:
            out[(e.kind, e.model)] = out.get((e.kind, e.model), 0) + 1
        return out

    @property
    def mixed(self) -> bool:
        """One count buys very different hardware here: more than one kind or model."""
        return len(self.hardware()) > 1

    def as_json(self) -> dict:
        return {"namespace": self.namespace, "devices": self.devices,
                "wholeDeviceEquivalents": round(self.whole_equivalents, 4),
                "memoryGiB": round(self.memory_gib, 4), "mixedHardware": self.mixed,
                "hardware": [{"kind": k, "model": m, "devices": n} for (k, m), n in sorted(
                    self.hardware().items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))],
                "quota": self.quota, "overTime": self.over_time, "entries": [asdict(e) for e in self.entries]}


def _bytes(value) -> int | None:
    try:
        return parse_quantity(str(value)).int_value()
    except (QuantityError, ValueError, OverflowError):
        return None


def _attribute(device: dict, names: tuple[str, ...]) -> str | None:
    attrs = device.get("attributes") or {}
    for wanted in names:
        for key, attr in attrs.items():
            if key.rsplit("/", 1)[-1] == wanted and isinstance(attr, dict):
                for typ in ("string", "int", "version", "bool"):
                    if typ in attr:
                        return str(attr[typ])
    return None


def _memory(device: dict) -> int | None:
    for key, cap in (device.get("capacity") or {}).items():
        if key.rsplit("/", 1)[-1] in MEMORY_NAMES and isinstance(cap, dict):
            return _bytes(cap.get("value"))
    value = _attribute(device, MEMORY_NAMES)
    return _bytes(value) if value is not None else None


class _Slices:
    """Devices and counter sets of the cluster's slices, by (driver, pool)."""

    def __init__(self, cp: ControlPlane) -> None:
        self.devices: dict[tuple[str, str, str], dict] = {}
        self.counters: dict[tuple[str, str, str], dict[str, Fraction]] = {}
        for sl in cp.store.list("ResourceSlice"):
            spec = sl.get("spec") or {}
            driver, pool = spec.get("driver", ""), (spec.get("pool") or {}).get("name", "")
            for device in spec.get("devices") or ():
                self.devices[(driver, pool, device.get("name", ""))] = device
            for cs in spec.get("sharedCounters") or ():
                self.counters[(driver, pool, cs.get("name", ""))] = {
                    k: Fraction(parse_quantity(str(v.get("value") or "0")).value)
                    for k, v in (cs.get("counters") or {}).items() if isinstance(v, dict)}

    def share(self, driver: str, pool: str, device: dict, consumed: dict | None) -> tuple[str, float]:
        if device.get("consumesCounters"):
            fractions = []
            for use in device["consumesCounters"]:
                totals = self.counters.get((driver, pool, use.get("counterSet", "")), {})
                for name, value in (use.get("counters") or {}).items():
                    total = totals.get(name)
                    if total:
                        fractions.append(Fraction(parse_quantity(str(value.get("value") or "0")).value) / total)
            return PARTITION, float(max(fractions, default=Fraction(1)))
        if device.get("allowMultipleAllocations"):
            fractions = []
            for name, cap in (device.get("capacity") or {}).items():
                used = (consumed or {}).get(name)
                if used is not None and isinstance(cap, dict) and _bytes(cap.get("value")):
                    fractions.append(Fraction(parse_quantity(str(used)).value) /
                                     Fraction(parse_quantity(str(cap["value"])).value))
            return SHARED, float(max(fractions, default=Fraction(1)))
        return WHOLE, 1.0


def _request_classes(claim: dict) -> dict[str, str]:
    """Request name (`r` or `r/sub` for prioritized lists) -> its DeviceClass."""
    out = {}
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        name = req.get("name", "")
        if isinstance(req.get("exactly"), dict):
            out[name] = req["exactly"].get("deviceClassName")
        for sub in req.get("firstAvailable") or ():
            out[f"{name}/{sub.get('name', '')}"] = sub.get("deviceClassName")
    return out


def _claim_entries(cp: ControlPlane, slices: _Slices, claim: dict) -> list[Entry]:
    md = claim["metadata"]
    allocation = (claim.get("status") or {}).get("allocation") or {}
    pods = tuple(r.get("name", "") for r in (claim.get("status") or {}).get("reservedFor") or ())
    classes = _request_classes(claim)
    out = []
    for r in (allocation.get("devices") or {}).get("results") or ():
        key = (r.get("driver", ""), r.get("pool", ""), r.get("device", ""))
        device = slices.devices.get(key, {})
        kind, share = slices.share(key[0], key[1], device, r.get("consumedCapacity"))
        memory = _memory(device)
        if kind == SHARED:
            used = next((v for k, v in (r.get("consumedCapacity") or {}).items()
                         if k.rsplit("/", 1)[-1] in MEMORY_NAMES), None)
            memory = _bytes(used) if used is not None else memory
        elif kind == PARTITION and memory is None:   # a partition's memory is what it takes of the counter
            memory = next((_bytes(v.get("value")) for use in device.get("consumesCounters") or ()
                           for k, v in (use.get("counters") or {}).items() if k in MEMORY_NAMES), None)
        out.append(Entry(md.get("namespace") or "", md["name"], pods, r.get("request", ""),
                         classes.get(r.get("request", "")), "/".join(key), kind,
                         _attribute(device, MODEL_ATTRIBUTES), memory, _attribute(device, NUMA_ATTRIBUTES), share))
    return out


def _device_plugin_entries(cp: ControlPlane, pod: dict) -> list[Entry]:
    """Extended resources a device plugin serves for a bound pod: counted, hardware unknown."""
    node_name = (pod.get("spec") or {}).get("nodeName")
    node = cp.store.get("Node", None, node_name) if node_name else None
    if node is None:
        return []
    out = []
    for name, amount in requested_names(pod).items():
        if allocatable(node, name) > 0:
            for _ in range(amount):
                out.append(Entry(pod["metadata"].get("namespace") or "", "", (pod["metadata"]["name"],), name,
                                 None, f"{node_name}: {name}", DEVICE_PLUGIN, None, None, None, 1.0))
    return out


def _quota_cells(cp: ControlPlane, ns: str) -> dict[str, dict[str, str]]:
    out = {}
    for q in sorted(cp.store.list("ResourceQuota", ns), key=lambda o: o["metadata"]["name"]):
        hard = (q.get("spec") or {}).get("hard") or {}
        used = quota.quota_used(q, cp.store.list("Pod", ns), cp.store.list("ResourceClaim", ns), cp.er_cache,
                                now=cp.clock.now)
        out[q["metadata"]["name"]] = {k: f"{used.get(k, '0')} / {hard[k]}" for k in sorted(hard)}
    return out


def ledger(cp: ControlPlane) -> list[NamespaceLedger]:
    slices = _Slices(cp)
    books: dict[str, NamespaceLedger] = {}

    def book(ns: str) -> NamespaceLedger:
        return books.setdefault(ns, NamespaceLedger(ns))

    for claim in sorted(cp.store.list("ResourceClaim"), key=lambda c: (c["metadata"].get("namespace"),
                                                                        c["metadata"]["name"])):
        entries = _claim_entries(cp, slices, claim)
        if entries:
            book(claim["metadata"].get("namespace") or "").entries.extend(entries)
    for pod in sorted(cp.store.list("Pod"), key=lambda p: (p["metadata"].get("namespace"), p["metadata"]["name"])):
        if quota.is_pod_charged(pod, cp.clock.now):
            entries = _device_plugin_entries(cp, pod)
            if entries:
                book(pod["metadata"].get("namespace") or "").entries.extend(entries)
    for q in cp.store.list("ResourceQuota"):
        book(q["metadata"].get("namespace") or "")
    for ns, b in books.items():
        b.quota = _quota_cells(cp, ns)
    return [books[ns] for ns in sorted(books)]


def same_count_different_hardware(books: list[NamespaceLedger]) -> list[str]:
    """Per DeviceClass, where one device counted under `<class>.deviceclass.resource.k8s.io/devices`
    is different hardware in different claims (a MIG slice and a whole GPU both count 1)."""
    by_class: dict[str, dict[tuple[str, str | None], set[str]]] = {}
    for b in books:
        for e in b.entries:
            if e.device_class:
                by_class.setdefault(e.device_class, {}).setdefault((e.kind, e.model), set()).add(e.namespace)
    notes = []
    for cls, kinds_ in sorted(by_class.items()):
        if len(kinds_) > 1:
            parts = "; ".join(f"{kind} {model or '(model unknown)'} ({', '.join(sorted(ns))})"
                              for (kind, model), ns in sorted(kinds_.items(), key=lambda kv: str(kv[0])))
            notes.append(f"one count under {quota.devices_key(cls)} buys different hardware: {parts}")
    return notes
