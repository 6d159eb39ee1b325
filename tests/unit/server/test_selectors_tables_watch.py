import pytest

from drasim.server import tables
from drasim.server.selectors import matches, parse_field_selector, parse_label_selector
from drasim.server.status import ApiError
from drasim.server.watch import WatchHub
from drasim.sim.clock import Clock
from drasim.store import MemoryStore


def test_label_selector_syntax():
    sel = parse_label_selector("app in (a, b),tier!=web,!legacy,env")
    assert sel.matches({"app": "a", "env": "x"})
    assert not sel.matches({"app": "a", "env": "x", "legacy": "1"})
    assert not sel.matches({"app": "c", "env": "x"})
    assert not sel.matches({"app": "a", "tier": "web", "env": "x"})
    assert parse_label_selector("a==1").matches({"a": "1"})
    assert parse_label_selector("") is None
    with pytest.raises(ApiError):
        parse_label_selector("a in (b")


def test_field_selector_per_kind():
    pod = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
    assert matches(pod, None, parse_field_selector("Pod", "spec.nodeName=n1,status.phase!=Pending"))
    assert not matches(pod, None, parse_field_selector("Pod", "metadata.name==q"))
    with pytest.raises(ApiError) as e:
        parse_field_selector("DeviceClass", "spec.nodeName=n1")
    assert e.value.message == "field label not supported: spec.nodeName"


@pytest.mark.parametrize("seconds,text", [(5, "5s"), (119, "119s"), (125, "2m5s"), (600, "10m"), (3 * 3600, "3h"),
                                          (7 * 3600 + 60, "7h1m"), (47 * 3600, "47h"), (50 * 3600, "2d2h"),
                                          (30 * 86400, "30d"), (3 * 365 * 86400, "3y"), (-5, "<invalid>")])
def test_age_is_human_duration(seconds, text):
    assert tables.human_duration(seconds) == text


def test_pod_and_claim_rows():
    pod = {"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"containers": [{}, {}]},
           "status": {"phase": "Running", "containerStatuses": [
               {"ready": True, "restartCount": 1, "state": {"running": {}}},
               {"ready": False, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}
    now = 1767225600 + 30
    row = tables.table("Pod", [pod], now)["rows"][0]["cells"]
    assert row[:5] == ["p", "1/2", "CrashLoopBackOff", "1", "30s"]
    claim = {"metadata": {"name": "c", "deletionTimestamp": "x"}, "status": {"allocation": {}, "reservedFor": [{}]}}
    assert tables.claim_state(claim) == "deleted"
    claim["status"]["allocation"] = {"devices": {}}
    assert tables.claim_state(claim) == "deleted,allocated,reserved"


def _pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": {}}


def test_watch_hub_replays_history_and_refuses_too_old():
    store = MemoryStore(Clock())
    hub = WatchHub(store, history=3)
    for i in range(5):
        store.create(_pod(f"p{i}"))
    w = hub.open("Pod", "default", lambda o: True, since=4, initial=None)
    assert [w.queue.get_nowait()[1]["metadata"]["name"] for _ in range(w.queue.qsize())] == ["p4"]
    with pytest.raises(ValueError) as e:
        hub.open("Pod", "default", lambda o: True, since=1, initial=None)
    assert e.value.args[0] == 3
    store.delete("Pod", "default", "p4")
    ev = w.queue.get_nowait()
    assert ev[0] == "DELETED" and ev[1]["metadata"]["resourceVersion"] == str(store.revision)
    hub.close(w)
    assert hub.watchers["Pod"] == []


def test_workload_rows():
    deploy = {"metadata": {"name": "d", "creationTimestamp": "2026-01-01T00:00:00Z"},
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "x"}},
                       "template": {"spec": {"containers": [{"name": "a", "image": "i:1"}]}}},
              "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}}
    t = tables.table("Deployment", [deploy], 1767225600 + 60)
    assert [c["name"] for c in t["columnDefinitions"] if c["priority"] == 0] == [
        "Name", "Ready", "Up-to-date", "Available", "Age"]
    assert t["rows"][0]["cells"] == ["d", "2/3", 3, 2, "60s", "a", "i:1", "app=x"]
    job = {"metadata": {"name": "j"}, "spec": {"completions": 2},
           "status": {"succeeded": 2, "startTime": "2026-01-01T00:00:00Z", "completionTime": "2026-01-01T00:00:30Z",
                      "conditions": [{"type": "Complete", "status": "True"}]}}
    assert tables.table("Job", [job], 0)["rows"][0]["cells"][:4] == ["j", "Complete", "2/2", "30s"]
