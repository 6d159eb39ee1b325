"""Why no device fits: the device-level reasons kube-scheduler never prints.

kube-scheduler says "cannot allocate all claims". For a pod and a node, this goes through each
request of each of the pod's claims (and the claim the scheduler would make for its extended
resources) and each device the node can use, and gives the first reason the device cannot serve
the request, in the order the allocator checks them (spec allocator.md §9–§12):

- the pool is incomplete (not every slice of its newest generation is published);
- the class selector or the request selector is false — with the CEL expression and the values
  of the attributes it reads on that device — or fails at run time;
- a NoSchedule/NoExecute taint (from the slice or a DeviceTaintRule) is not tolerated;
- the device is allocated already — to which claim;
- a counter set it consumes is exhausted (partitionable devices);
- not enough capacity is left for the request (consumable capacity).

Then, per request: how many devices pass, how many are needed, and what would make the pod fit
("3 devices match the class and the request but all are allocated to …"). Constraints
(`matchAttribute`) are reported when enough devices pass one by one but the request still failed.
A client of the control plane: it reads the settled state and writes nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from drasim.api.devicetaints import prevents_allocation, rule_taints_device
from drasim.api.extendedresource import is_dra_extended_resource_name
from drasim.api.nodeselector import node_selector_matches
from drasim.api.podclaims import pod_claims
from drasim.api.podresources import pod_requests
from drasim.api.quantity import QuantityError, parse_quantity
from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input

_ATTR = re.compile(r'device\.(attributes|capacity)\[\s*"([^"]+)"\s*\]\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)')


@dataclass
class DeviceVerdict:
    device: str          # driver/pool/device
    reason: str | None   # None: usable for the request
    detail: str = ""     # the attribute values, the holding claim, the counters...


@dataclass
class RequestWhy:
    claim: str
    request: str
    device_class: str | None
    count: int | str
    devices: list[DeviceVerdict] = field(default_factory=list)
    hint: str = ""

    @property
    def usable(self) -> int:
        return sum(1 for d in self.devices if d.reason is None)


def _values(expr: str, driver: str, device: dict) -> str:
    """The attribute/capacity values an expression reads, on this device."""
    out = []
    for section, domain, ident in dict.fromkeys(_ATTR.findall(expr)):
        table = device.get(section) or {}
        key = ident if domain == driver else f"{domain}/{ident}"
        entry = table.get(key) if key in table else table.get(f"{domain}/{ident}")
        if entry is None:
            out.append(f"{domain}.{ident}: (not set)")
        elif section == "capacity":
            out.append(f"{domain}.{ident}={entry.get('value')}")
        else:
            out.append(f"{domain}.{ident}={next(iter(entry.values()), None)}")
    return ", ".join(out)


def _selector_reason(kind: str, selectors: list[dict], driver: str, device: dict) -> tuple[str, str] | None:
    data = device_input(driver, device)
    for i, sel in enumerate(selectors or ()):
        expr = ((sel or {}).get("cel") or {}).get("expression", "")
        try:
            if not compile_selector(expr).matches(data):
                return f"{kind} selector #{i} is false: {expr}", _values(expr, driver, device)
        except (CelCompileError, CelRuntimeError) as e:
            return f"{kind} selector #{i} fails: {expr}", str(e)
    return None


class _Cluster:
    def __init__(self, cp) -> None:
        store = cp.store
        self.classes = {c["metadata"]["name"]: c for c in store.list("DeviceClass")}
        self.rules = store.list("DeviceTaintRule")
        self.holders: dict[tuple, str] = {}
        self.consumed: dict[tuple, dict[str, Fraction]] = {}   # (driver, pool, device) -> consumed capacity
        for c in store.list("ResourceClaim"):
            results = ((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])
            name = f"{c['metadata'].get('namespace')}/{c['metadata']['name']}"
            for r in results:
                key = (r.get("driver"), r.get("pool"), r.get("device"))
                if r.get("adminAccess"):
                    continue
                self.holders[key] = name
                for cap, q in (r.get("consumedCapacity") or {}).items():
                    used = self.consumed.setdefault(key, {})
                    used[cap] = used.get(cap, 0) + _q(q)
        self.slices = store.list("ResourceSlice")

    def pools_for(self, node: dict):
        """(driver, pool, devices for this node, counter sets, all devices, complete) of every
        pool the node can use, from the newest generation of its slices."""
        name = node["metadata"]["name"]
        pools: dict[tuple, dict] = {}
        for s in self.slices:
            spec = s.get("spec") or {}
            pool = spec.get("pool") or {}
            key, gen = (spec.get("driver"), pool.get("name")), pool.get("generation", 0)
            p = pools.get(key)
            if p is None or gen > p["gen"]:
                p = pools[key] = {"gen": gen, "seen": 0, "count": 1, "counters": {}, "devices": [], "all": [],
                                  "usable": False}
            if gen < p["gen"]:
                continue
            p["seen"] += 1
            p["count"] = pool.get("resourceSliceCount", 1)
            for cs in spec.get("sharedCounters") or ():
                p["counters"][cs.get("name")] = {k: _q(v.get("value")) for k, v in (cs.get("counters") or {}).items()}
            devices = spec.get("devices") or []
            p["all"] += devices
            if spec.get("nodeName") == name or spec.get("allNodes") or (
                    spec.get("nodeSelector") and node_selector_matches(spec["nodeSelector"], node)):
                p["usable"] = True
                p["devices"] += devices
        for (driver, pool), p in sorted(pools.items()):
            if p["usable"]:
                yield driver, pool, p["devices"], p["counters"], p["all"], p["seen"] >= p["count"]


def _q(value) -> Fraction:
    try:
        return Fraction(parse_quantity(str(value)).value)
    except (QuantityError, ValueError, TypeError):
        return Fraction(0)


def _counters_left(counters: dict, all_devices: list[dict], driver: str, pool: str, holders: dict) -> dict:
    left = {name: dict(values) for name, values in counters.items()}
    for d in all_devices:
        if (driver, pool, d.get("name")) in holders:
            for use in d.get("consumesCounters") or ():
                for k, v in (use.get("counters") or {}).items():
                    if use.get("counterSet") in left and k in left[use["counterSet"]]:
                        left[use["counterSet"]][k] -= _q(v.get("value"))
    return left


def _requests(claim: dict):
    """(request name, class, selectors, tolerations, count, capacity requests) of a claim's spec."""
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        subs = [r["exactly"]] if isinstance(r.get("exactly"), dict) else list(r.get("firstAvailable") or ())
        for sub in subs:
            label = r.get("name", "") if "exactly" in r else f"{r.get('name', '')}/{sub.get('name', '')}"
            count = "all" if sub.get("allocationMode") == "All" else int(sub.get("count") or 1)
            yield (label, sub.get("deviceClassName"), sub.get("selectors") or [], sub.get("tolerations") or [],
                   count, (sub.get("capacity") or {}).get("requests") or {})


def why_request(cl: _Cluster, node: dict, claim_name: str, request: tuple) -> RequestWhy:
    label, cls_name, selectors, tolerations, count, capacity = request
    out = RequestWhy(claim_name, label, cls_name, count)
    cls = cl.classes.get(cls_name)
    if cls is None:
        out.hint = f"DeviceClass {cls_name} does not exist"
        return out
    for driver, pool, devices, counters, all_devices, complete in cl.pools_for(node):
        left = _counters_left(counters, all_devices, driver, pool, cl.holders)
        for d in devices:
            key = (driver, pool, d.get("name"))
            ident = "/".join(map(str, key))
            if not complete:
                out.devices.append(DeviceVerdict(ident, "pool incomplete: not every slice of its newest generation "
                                                        "is published"))
                continue
            why = _selector_reason("class", (cls.get("spec") or {}).get("selectors"), driver, d) or \
                _selector_reason("request", selectors, driver, d)
            if why:
                out.devices.append(DeviceVerdict(ident, *why))
                continue
            taints = list(d.get("taints") or ()) + [r["spec"]["taint"] for r in cl.rules
                                                    if rule_taints_device(r, driver, pool, d.get("name"))]
            bad = [t for t in taints if prevents_allocation(t, tolerations)]
            if bad:
                t = bad[0]
                out.devices.append(DeviceVerdict(ident, f"taint {t.get('key')}{'=' + t['value'] if t.get('value') else ''}"
                                                        f":{t.get('effect')} is not tolerated"))
                continue
            if key in cl.holders and not d.get("allowMultipleAllocations"):
                out.devices.append(DeviceVerdict(ident, "allocated", f"to claim {cl.holders[key]}"))
                continue
            short = [f"{use.get('counterSet')}.{k}: needs {_fmt(_q(v.get('value')))}, "
                     f"{_fmt(left.get(use.get('counterSet'), {}).get(k, 0))} left"
                     for use in d.get("consumesCounters") or () for k, v in (use.get("counters") or {}).items()
                     if _q(v.get("value")) > left.get(use.get("counterSet"), {}).get(k, 0)]
            if short and key not in cl.holders:
                out.devices.append(DeviceVerdict(ident, "counter set exhausted", "; ".join(short)))
                continue
            if d.get("allowMultipleAllocations"):
                lacking = []
                for cap, entry in (d.get("capacity") or {}).items():
                    want = _q(capacity.get(cap) or ((entry.get("requestPolicy") or {}).get("default")) or entry.get("value"))
                    have = _q(entry.get("value")) - cl.consumed.get(key, {}).get(cap, 0)
                    if want > have:
                        lacking.append(f"{cap}: requested {_fmt(want)}, {_fmt(have)} left")
                if lacking:
                    out.devices.append(DeviceVerdict(ident, "not enough capacity left", "; ".join(lacking)))
                    continue
            out.devices.append(DeviceVerdict(ident, None))
    out.hint = _hint(out)
    return out


def _fmt(v) -> str:
    return str(int(v)) if Fraction(v).denominator == 1 else str(float(v))


def _hint(r: RequestWhy) -> str:
    need = len(r.devices) if r.count == "all" else r.count
    if not r.devices:
        return "no device on this node is published by a pool the node can use"
    if r.usable >= need:
        return (f"{r.usable} device(s) pass one by one and {need} are needed: the claim's constraints "
                f"(matchAttribute/distinctAttribute) or its other requests rule the combination out")
    matching = [d for d in r.devices if d.reason is None or d.reason in ("allocated", "counter set exhausted",
                                                                          "not enough capacity left")
                or d.reason.startswith("taint ")]
    if matching and all(d.reason == "allocated" for d in matching if d.reason):
        holders = sorted({d.detail.removeprefix("to claim ") for d in matching if d.reason == "allocated"})
        return (f"{len(matching)} device(s) match the class and the request, {r.usable} free, {need} needed; "
                f"the others are allocated to {', '.join(holders)}")
    if not matching:
        return "no device matches the class and the request selectors"
    return f"{len(matching)} device(s) match the class and the request, {r.usable} usable, {need} needed"


def explain_node(cp, pod: dict, node: dict) -> list[RequestWhy]:
    """Every request of the pod's claims (unallocated ones) and of its extended resources, on node."""
    cl = _Cluster(cp)
    ns = pod["metadata"].get("namespace")
    out = []
    for entry, name, _ in pod_claims(pod):
        claim = cp.store.get("ResourceClaim", ns, name) if name else None
        if claim is None or (claim.get("status") or {}).get("allocation"):
            continue
        for request in _requests(claim):
            out.append(why_request(cl, node, f"{ns}/{name}", request))
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    for res, amount in pod_requests(pod).items():
        if not amount or not is_dra_extended_resource_name(res) or allocatable.get(res) not in (None, "0", 0):
            continue
        cls = cp.er_cache.class_for(res)
        if cls is None:
            r = RequestWhy(f"extended resource {res}", res, None, amount)
            r.hint = f"no DeviceClass maps {res} and the node does not advertise it"
            out.append(r)
            continue
        out.append(why_request(cl, node, f"extended resource {res} (class {cls})", (res, cls, [], [], amount, {})))
    return out
