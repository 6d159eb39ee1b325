"""After a restart on the same --data-dir: watches resume from a resourceVersion still in the kept
history (older ones get 410 Expired), and timers (tolerationSeconds) continue on the virtual clock."""
from __future__ import annotations

import json
import time

from drasim.sim.clock import Clock
from drasim.store import sqlite as sqlite_store
from drasim.store.memory import MemoryStore
from drasim.store.sqlite import SqliteJournal
from tests.server.harness import EXAMPLES, Serve
from tests.server.test_taints_live import DELAYED, TAINTS

CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"


def device_class(name, **labels):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name, "labels": labels}}


def watch(s, since):
    code, _, raw = s.raw("GET", f"{CLASSES}?watch=1&resourceVersion={since}&timeoutSeconds=1")
    assert code == 200
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def test_a_watch_resumes_across_a_restart_from_the_kept_history(tmp_path):
    extra = ("--data-dir", str(tmp_path / "data"))
    s = Serve(tmp_path, EXAMPLES / "extended-resource-explicit" / "cluster.yaml", extra=extra)
    try:
        since = s.call("POST", CLASSES, device_class("a"))[1]["metadata"]["resourceVersion"]
        a = s.call("GET", f"{CLASSES}/a")[1]
        a["metadata"]["labels"] = {"tier": "gold"}
        modified = s.call("PUT", f"{CLASSES}/a", a)[1]["metadata"]["resourceVersion"]
        assert s.call("DELETE", f"{CLASSES}/a")[0] == 200
    finally:
        s.stop()
    s = Serve(tmp_path, extra=extra)
    try:
        added = s.call("POST", CLASSES, device_class("b"))[1]["metadata"]["resourceVersion"]
        events = watch(s, since)
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
            ("MODIFIED", "a"), ("DELETED", "a"), ("ADDED", "b")]
        assert events[0]["object"]["metadata"]["resourceVersion"] == modified
        assert int(events[1]["object"]["metadata"]["resourceVersion"]) > int(modified)
        assert events[2]["object"]["metadata"]["resourceVersion"] == added
        # from before the kept history (the objects the first start wrote at once): 410 Expired
        events = watch(s, 1)
        assert len(events) == 1 and events[0]["type"] == "ERROR"
        assert (events[0]["object"]["code"], events[0]["object"]["reason"]) == (410, "Expired")
        assert events[0]["object"]["message"].startswith("too old resource version: 1 (")
    finally:
        s.stop()


def test_the_kept_history_is_a_bounded_window(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_store, "HISTORY_KEEP", 5)
    monkeypatch.setattr(sqlite_store, "PRUNE_EVERY", 2)
    store = MemoryStore(Clock())
    journal = SqliteJournal(tmp_path / "d.db")
    journal.attach(store)
    for i in range(12):
        store.create(device_class(f"c{i}"))
    events, floor = journal.history()
    assert 5 <= len(events) <= 7
    assert [e[3]["metadata"]["name"] for e in events] == [f"c{i}" for i in range(12 - len(events), 12)]
    assert floor == events[0][0] - 1
    assert [e[0] for e in events] == sorted(e[0] for e in events)


def test_a_toleration_timer_running_at_the_restart_fires_after_it(tmp_path, kubectl_available):
    extra = ("--data-dir", str(tmp_path / "data"))
    s = Serve(tmp_path, TAINTS / "00-cluster.yaml", speed=100, extra=extra)
    try:
        s.kubectl("apply", "-f", "-", input=DELAYED)
        s.kubectl("wait", "--for=condition=Ready", "pod/delayed", "--timeout=10s")
        s.kubectl("apply", "-f", str(TAINTS / "02-no-execute.yaml"))
        s.wait_until(lambda: s.kubectl("get", "pod", "worker", check=False).returncode != 0, timeout=5)
        assert s.kubectl("get", "pod", "delayed", check=False).returncode == 0   # 300 virtual s = 3 wall s
    finally:
        s.stop()
    s = Serve(tmp_path, speed=100, extra=extra)
    try:
        start = time.monotonic()
        assert s.call("GET", "/api/v1/namespaces/default/pods/delayed")[0] == 200   # kept, still due
        s.wait_until(lambda: s.call("GET", "/api/v1/namespaces/default/pods/delayed")[0] == 404, timeout=15)
        assert time.monotonic() - start < 10
        assert s.call("GET", "/api/v1/namespaces/default/pods/forever")[0] == 200
    finally:
        s.stop()
