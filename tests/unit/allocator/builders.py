"""Tiny builders for allocator tests, so each case reads like the spec (style of allocator_testing.go)."""
from __future__ import annotations

from drasim.allocator import AllocatedState, Allocator, Features

NODE_1, NODE_2 = "node-1", "node-2"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL_1, POOL_2 = "pool-1", "pool-2"
CLASS_A, CLASS_B = "class-a", "class-b"
NS = "default"


def node(name: str = NODE_1, **labels: str) -> dict:
    return {"metadata": {"name": name, "labels": dict(labels)}}


def _attr(value) -> dict:
    if isinstance(value, dict):
        return value
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    return {"string": value}


def device(name: str, attributes: dict | None = None, capacity: dict | None = None, **extra) -> dict:
    """capacity values are quantity strings or full {value, requestPolicy} dicts."""
    d: dict = {"name": name}
    if attributes:
        d["attributes"] = {k: _attr(v) for k, v in attributes.items()}
    if capacity:
        d["capacity"] = {k: (v if isinstance(v, dict) else {"value": v}) for k, v in capacity.items()}
    d.update(extra)
    return d


def slice_(name: str, *devices: dict, node: str | None = NODE_1, pool: str = POOL_1, driver: str = DRIVER_A,
           generation: int = 0, count: int = 1, **spec) -> dict:
    """A node-local slice unless node=None and one of nodeSelector/allNodes/perDeviceNodeSelection is given."""
    s: dict = {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count}}
    if node is not None:
        s["nodeName"] = node
    if devices:
        s["devices"] = list(devices)
    s.update(spec)
    return {"metadata": {"name": name}, "spec": s}


def counters(name: str, **values: str) -> dict:
    """A counter set (for sharedCounters) or a consumesCounters entry."""
    return {"name": name, "counters": {k: {"value": v} for k, v in values.items()}}


def consumes(counter_set: str, **values: str) -> dict:
    return {"counterSet": counter_set, "counters": {k: {"value": v} for k, v in values.items()}}


def klass(name: str = CLASS_A, driver: str | None = DRIVER_A, *selectors: str, config: list | None = None) -> dict:
    sels = ([f'device.driver == "{driver}"'] if driver else []) + list(selectors)
    spec: dict = {"selectors": [{"cel": {"expression": e}} for e in sels]}
    if config:
        spec["config"] = config
    return {"metadata": {"name": name}, "spec": spec}


def opaque(driver: str = DRIVER_A, **params) -> dict:
    return {"opaque": {"driver": driver, "parameters": dict(params)}}


def _body(class_name: str, count: int | None, selectors, mode: str, tolerations, capacity) -> dict:
    body: dict = {"deviceClassName": class_name, "allocationMode": mode}
    if mode == "ExactCount":
        body["count"] = count if count is not None else 1
    if selectors:
        body["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if tolerations:
        body["tolerations"] = tolerations
    if capacity:
        body["capacity"] = {"requests": dict(capacity)}
    return body


def request(name: str, class_name: str = CLASS_A, count: int | None = 1, *selectors: str, mode: str = "ExactCount",
            admin: bool | None = None, tolerations: list | None = None, capacity: dict | None = None) -> dict:
    body = _body(class_name, count, selectors, mode, tolerations, capacity)
    if admin is not None:
        body["adminAccess"] = admin
    return {"name": name, "exactly": body}


def subrequest(name: str, class_name: str = CLASS_A, count: int | None = 1, *selectors: str, mode: str = "ExactCount",
               tolerations: list | None = None, capacity: dict | None = None) -> dict:
    return {"name": name, **_body(class_name, count, selectors, mode, tolerations, capacity)}


def first_available(name: str, *subs: dict) -> dict:
    return {"name": name, "firstAvailable": list(subs)}


def claim(name: str, *requests: dict, constraints: list | None = None, config: list | None = None) -> dict:
    devices: dict = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    return {"metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"}, "spec": {"devices": devices}}


def allocated_claim(name: str, *results: tuple) -> dict:
    """A claim already allocated: results as (driver, pool, device) or dicts."""
    rs = [r if isinstance(r, dict) else {"request": "r", "driver": r[0], "pool": r[1], "device": r[2]} for r in results]
    return {"metadata": {"name": name, "namespace": NS}, "status": {"allocation": {"devices": {"results": rs}}}}


def new_allocator(slices=(), classes=None, features: Features = Features()) -> Allocator:
    counter = iter(range(1, 1_000_000))
    a = Allocator(features, share_id=lambda: f"share-{next(counter)}")
    for s in slices:
        a.set_slice(s)
    for c in classes if classes is not None else [klass()]:
        a.set_class(c)
    return a


def allocate(claims, slices=(), classes=None, node_: dict | None = None, allocated=(), features: Features = Features()):
    """Allocate on one node; *allocated* are claims that already have status.allocation."""
    a = new_allocator(slices, classes, features)
    state = AllocatedState.from_claims(allocated)
    return a.allocate(node_ or node(), list(claims), state)


def picks(results) -> list[list[str]] | None:
    """Per claim: "request=driver/pool/device" strings, in result order."""
    if results is None:
        return None
    return [[f"{r['request']}={r['driver']}/{r['pool']}/{r['device']}" for r in a["devices"]["results"]] for a in results]
