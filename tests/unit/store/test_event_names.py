"""Events are named as client-go's recorder names them, <object>.<hex Unix nanoseconds>
(tools/record/event.go makeEvent), so a list in name order (etcd's key order, what kubectl get
events and describe show) is the order they were recorded in."""
from drasim.sim.clock import Clock
from drasim.store.events import NORMAL, WARNING, record_event
from drasim.store.memory import MemoryStore


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": "u"}}


def test_names_are_the_recording_time_in_hex_nanoseconds_and_sort_in_recording_order():
    clock = Clock("2026-01-01T00:00:00Z")
    store = MemoryStore(clock)
    first = record_event(store, pod("demo"), NORMAL, "Scheduled", "assigned", "default-scheduler")
    second = record_event(store, pod("demo"), NORMAL, "Started", "started", "kubelet")   # same instant
    clock.advance(1.5)
    third = record_event(store, pod("demo"), WARNING, "BackOff", "later", "kubelet")
    names = [e["metadata"]["name"] for e in (first, second, third)]
    start = int(clock.now * 1e9) - 1_500_000_000
    assert names == [f"demo.{start:x}", f"demo.{start + 1:x}", f"demo.{start + 1_500_000_000:x}"]
    assert "generateName" not in first["metadata"]
    listed = [e["reason"] for e in sorted(store.list("Event"), key=lambda e: e["metadata"]["name"])]
    assert listed == ["Scheduled", "Started", "BackOff"]


def test_a_name_already_taken_is_passed_over():
    clock = Clock("2026-01-01T00:00:00Z")
    store = MemoryStore(clock)
    nanos = int(clock.now * 1e9)
    store.create({"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"demo.{nanos:x}", "namespace": "default"},
                  "involvedObject": {"kind": "Pod", "name": "demo"}, "reason": "Old"})
    event = record_event(store, pod("demo"), NORMAL, "Scheduled", "assigned", "default-scheduler")
    assert event["metadata"]["name"] == f"demo.{nanos + 1:x}"
