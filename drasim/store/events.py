"""Kubernetes Events, as components record them (core/v1 Event objects in the store)."""
from __future__ import annotations

from drasim.store.memory import MemoryStore

NORMAL = "Normal"
WARNING = "Warning"


def record_event(store: MemoryStore, obj: dict, type_: str, reason: str, message: str, component: str) -> dict:
    """Create an Event about `obj` (involvedObject), named like client-go's recorder: <name>.<hex>."""
    md = obj["metadata"]
    namespace = md.get("namespace") or "default"
    now = store.clock.timestamp()
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": f"{md['name']}.", "namespace": namespace},
        "involvedObject": {
            "apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "name": md["name"],
            "namespace": md.get("namespace"), "uid": md.get("uid"),
            "resourceVersion": md.get("resourceVersion"),
        },
        "type": type_,
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "reportingComponent": component,
    }
    return store.create(event, copy=False)
