"""Kubernetes Events, as components record them (core/v1 Event objects in the store)."""
from __future__ import annotations

from drasim.store.memory import MemoryStore

NORMAL = "Normal"
WARNING = "Warning"


def record_event(store: MemoryStore, obj: dict, type_: str, reason: str, message: str, component: str) -> dict:
    """Create an Event about `obj` (involvedObject), named like client-go's recorder:
    <name>.<hex of the Unix time in nanoseconds> (k8s: tools/record/event.go makeEvent), so a list,
    in name order as etcd keeps it, is in time order. Events at one virtual instant take the
    following nanoseconds (the simulation's clock does not tick between them; a real one does)."""
    md = obj["metadata"]
    namespace = md.get("namespace") or "default"
    now = store.clock.timestamp()
    name = _event_name(store, md["name"], namespace)
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
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


def _event_name(store: MemoryStore, involved: str, namespace: str) -> str:
    nanos = max(int(store.clock.now * 1_000_000_000), store.last_event_nanos + 1)
    while store.get("Event", namespace, f"{involved}.{nanos:x}") is not None:   # a restarted server's events
        nanos += 1
    store.last_event_nanos = nanos
    return f"{involved}.{nanos:x}"
