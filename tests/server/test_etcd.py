"""`drasim serve --etcd-servers URL`: the cluster kept in a real etcd under kube-apiserver's keys;
a restart resumes; compare-and-swap guards every write; an unreachable etcd is one clear line."""
import base64
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from drasim.sim.clock import Clock
from drasim.store.etcd import EtcdJournal, key_for
from drasim.store.memory import MemoryStore
from drasim.store.sqlite import StorageError
from tests.server.harness import DRASIM, ROOT, Serve, create_pods_until_killed

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extended-resource-explicit"
ETCD = shutil.which("etcd")
pytestmark = pytest.mark.skipif(ETCD is None, reason="no `etcd` binary on PATH (Debian: apt-get install etcd-server)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gateway(url: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def etcd_get(url: str, key: str):
    """The value at key, decoded from JSON, with its mod_revision (None if absent)."""
    kvs = gateway(url, "/v3/kv/range", {"key": b64(key)}).get("kvs", [])
    return (json.loads(base64.b64decode(kvs[0]["value"])), int(kvs[0]["mod_revision"])) if kvs else None


def etcd_keys(url: str) -> set[str]:
    kvs = gateway(url, "/v3/kv/range", {"key": b64("/registry/"), "range_end": b64("/registry0"),
                                        "keys_only": True}).get("kvs", [])
    return {base64.b64decode(kv["key"]).decode() for kv in kvs}


def start_etcd(data: Path, client: int | None = None, peer: int | None = None):
    """An etcd on loopback ports keeping its data in `data`; (process, URL, log file, ports)."""
    client, peer = client or free_port(), peer or free_port()
    url = f"http://127.0.0.1:{client}"
    log = open(data / "etcd.log", "a")
    proc = subprocess.Popen([ETCD, "--name", "drasim-test", "--data-dir", str(data / "member"),
                             "--listen-client-urls", url, "--advertise-client-urls", url,
                             "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                             "--initial-cluster", f"drasim-test=http://127.0.0.1:{peer}"],
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        try:
            gateway(url, "/v3/kv/range", {"key": b64("x")})
            return proc, url, log, (client, peer)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log.close()
                raise RuntimeError(f"etcd did not start: {(data / 'etcd.log').read_text()[-2000:]}")
            time.sleep(0.1)


def stop_etcd(proc, log) -> None:
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


@pytest.fixture(scope="module")
def etcd_server(tmp_path_factory):
    proc, url, log, _ = start_etcd(tmp_path_factory.mktemp("etcd"))
    try:
        yield url
    finally:
        stop_etcd(proc, log)


@pytest.fixture
def etcd(etcd_server):
    """The module's etcd, emptied of /registry/ keys for each test."""
    gateway(etcd_server, "/v3/kv/deleterange", {"key": b64("/registry/"), "range_end": b64("/registry0")})
    return etcd_server


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "late", "labels": {"kubernetes.io/hostname": "late"}},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}


def test_keys_follow_kube_apiservers_registry_layout(tmp_path, etcd):
    s = Serve(tmp_path, EXAMPLE / "cluster.yaml", EXAMPLE / "workload.yaml", extra=("--etcd-servers", etcd))
    try:
        s.wait_until(lambda: s.call("GET", "/api/v1/namespaces/default/pods/demo")[1]["spec"].get("nodeName"))
        # Acknowledged means in etcd: the key holds this very resourceVersion when the 201 arrives
        # (a DeviceClass: no controller writes it after the client).
        code, created = s.call("POST", "/apis/resource.k8s.io/v1/deviceclasses",
                               {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "extra"}})
        assert code == 201
        stored, _ = etcd_get(etcd, "/registry/deviceclasses/extra")
        assert stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
        assert stored["metadata"]["uid"] == created["metadata"]["uid"]
        claim = s.call("GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims")[1]["items"][0]
    finally:
        s.stop()
    keys = etcd_keys(etcd)
    for key in ("/registry/minions/gpu-node-1",                       # nodes: kube-apiserver's historical prefix
                "/registry/namespaces/default", "/registry/deviceclasses/gpu.example.com",
                "/registry/resourceslices/gpu-node-1-gpu.example.com",
                "/registry/pods/default/demo", f"/registry/resourceclaims/default/{claim['metadata']['name']}"):
        assert key in keys, (key, sorted(keys))
    assert not any(k.startswith("/registry/nodes/") for k in keys)
    node, _ = etcd_get(etcd, "/registry/minions/gpu-node-1")
    assert node["kind"] == "Node" and node["metadata"]["name"] == "gpu-node-1"
    assert etcd_get(etcd, "/registry/resourceclaims/default/" + claim["metadata"]["name"])[0]["status"] == claim["status"]


def test_key_for_namespaced_and_cluster_scoped():
    assert key_for("Pod", "ns", "p") == "/registry/pods/ns/p"
    assert key_for("ResourceClaim", "ns", "c") == "/registry/resourceclaims/ns/c"
    assert key_for("DeviceClass", None, "gpu") == "/registry/deviceclasses/gpu"
    assert key_for("Node", None, "n1") == "/registry/minions/n1"


def test_restart_resumes_and_schedules_the_pending_pod(tmp_path, etcd):
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        assert s.call("POST", "/api/v1/namespaces/default/pods", pod("waiting"))[0] == 201
        assert s.call("POST", "/api/v1/namespaces/default/pods", pod("kept"))[0] == 201
        assert s.call("DELETE", "/api/v1/namespaces/default/pods/kept")[0] == 200
        before = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"])
                  for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        namespaces = {n["metadata"]["name"]: n["metadata"]["uid"] for n in s.call("GET", "/api/v1/namespaces")[1]["items"]}
    finally:
        s.stop()
    assert set(before) == {"waiting"} and "/registry/pods/default/kept" not in etcd_keys(etcd)
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))   # no phases: everything from etcd
    try:
        after = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"])
                 for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        assert after == before
        assert {n["metadata"]["name"]: n["metadata"]["uid"]
                for n in s.call("GET", "/api/v1/namespaces")[1]["items"]} == namespaces
        # An update with the kept resourceVersion succeeds; the same one again is stale: 409.
        current = s.call("GET", "/api/v1/namespaces/default/pods/waiting")[1]
        assert current["metadata"]["resourceVersion"] == before["waiting"][1]
        labelled = dict(current, metadata=dict(current["metadata"], labels={"v": "2"}))
        code, updated = s.call("PUT", "/api/v1/namespaces/default/pods/waiting", labelled)
        assert code == 200 and int(updated["metadata"]["resourceVersion"]) > int(before["waiting"][1])
        assert etcd_get(etcd, "/registry/pods/default/waiting")[0]["metadata"]["labels"] == {"v": "2"}
        code, status = s.call("PUT", "/api/v1/namespaces/default/pods/waiting",
                              dict(labelled, metadata=dict(labelled["metadata"], labels={"v": "3"})))
        assert code == 409 and status["reason"] == "Conflict"
        assert etcd_get(etcd, "/registry/pods/default/waiting")[0]["metadata"]["labels"] == {"v": "2"}
        # The pending pod is retried: a node appears, the scheduler binds it.
        assert s.call("POST", "/api/v1/nodes", NODE)[0] == 201
        s.wait_until(lambda: s.call("GET", "/api/v1/namespaces/default/pods/waiting")[1]["spec"].get("nodeName"))
        code, later = s.call("POST", "/api/v1/namespaces/default/pods", pod("later"))
        assert code == 201 and int(later["metadata"]["resourceVersion"]) > int(before["waiting"][1])
    finally:
        s.stop()
    stored, _ = etcd_get(etcd, "/registry/pods/default/waiting")
    assert stored["spec"]["nodeName"] == "late" and stored["metadata"]["uid"] == before["waiting"][0]


def test_kill_9_loses_no_acknowledged_write(tmp_path, etcd):
    acknowledged = create_pods_until_killed(Serve(tmp_path, extra=("--etcd-servers", etcd)), writers=8, at_least=100)
    assert {f"/registry/pods/default/{name}" for name in acknowledged} <= etcd_keys(etcd)
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        names = {p["metadata"]["name"] for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        assert set(acknowledged) <= names
    finally:
        s.stop()


def test_journal_round_trip_and_compare_and_swap(etcd):
    store = MemoryStore(Clock(), seed=1)
    journal = EtcdJournal(etcd)
    journal.attach(store)
    store.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    p = store.create(pod("p"))
    store.update(dict(p, metadata=dict(p["metadata"], labels={"x": "y"})))
    store.create(pod("gone"))
    store.delete("Pod", "default", "gone")
    objects, revision, clock = EtcdJournal(etcd).load()
    assert revision == store.revision and clock == store.clock.now
    assert {(o["kind"], o["metadata"]["name"]): o for o in objects} == {
        ("Namespace", "a"): store.get("Namespace", None, "a"), ("Pod", "p"): store.get("Pod", "default", "p")}
    # Someone else writes the key behind drasim's back: the Txn's mod_revision compare refuses the next write.
    gateway(etcd, "/v3/kv/put", {"key": b64("/registry/pods/default/p"), "value": b64("{}")})
    current = store.get("Pod", "default", "p")
    with pytest.raises(StorageError, match="changed by another writer"):
        store.update(dict(current, metadata=dict(current["metadata"], labels={"x": "z"})))
    assert etcd_get(etcd, "/registry/pods/default/p")[0] == {}


def test_unreachable_etcd_is_one_clear_error(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"   # nothing listens there
    result = subprocess.run([*DRASIM, "serve", "--kubeconfig", str(tmp_path / "kc"),
                             "--etcd-servers", url], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"drasim serve: cannot reach etcd at {url}: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_data_dir_and_etcd_servers_together_is_refused(tmp_path):
    result = subprocess.run([*DRASIM, "serve", "--kubeconfig", str(tmp_path / "kc"),
                             "--etcd-servers", "http://127.0.0.1:1", "--data-dir", str(tmp_path / "d")],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1 and "give one place to keep the cluster" in result.stderr


def test_rbac_objects_are_kept_under_their_registry_keys(tmp_path, etcd):
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        assert s.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                     "metadata": {"name": "team-a"}})[0] == 201
        code, created = s.call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles", role)
        assert code == 201, created
    finally:
        s.stop()
    stored, _ = etcd_get(etcd, "/registry/roles/team-a/reader")
    assert stored["metadata"]["uid"] == created["metadata"]["uid"]
    assert "/registry/clusterrolebindings/cluster-admin" in etcd_keys(etcd)
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        code, kept = s.call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/reader")
        assert code == 200 and kept["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    finally:
        s.stop()


def test_a_watch_resumes_across_a_restart_from_etcd(tmp_path, etcd):
    classes = "/apis/resource.k8s.io/v1/deviceclasses"
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}}
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        since = s.call("POST", classes, cls)[1]["metadata"]["resourceVersion"]
        assert s.call("DELETE", classes + "/a")[0] == 200
    finally:
        s.stop()
    assert any(k.startswith("/registry/drasim.io/events/") for k in etcd_keys(etcd))
    s = Serve(tmp_path, extra=("--etcd-servers", etcd))
    try:
        s.call("POST", classes, dict(cls, metadata={"name": "b"}))
        code, _, raw = s.raw("GET", f"{classes}?watch=1&resourceVersion={since}&timeoutSeconds=1")
        events = [json.loads(line) for line in raw.splitlines() if line.strip()]
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("DELETED", "a"), ("ADDED", "b")]
        code, _, raw = s.raw("GET", f"{classes}?watch=1&resourceVersion=1&timeoutSeconds=1")
        assert json.loads(raw.splitlines()[0])["object"]["code"] == 410
    finally:
        s.stop()


def test_the_kept_etcd_history_is_a_bounded_window(etcd, monkeypatch):
    from drasim.store import sqlite as sqlite_journal
    monkeypatch.setattr(sqlite_journal, "HISTORY_KEEP", 5)
    monkeypatch.setattr(sqlite_journal, "PRUNE_EVERY", 2)
    store = MemoryStore(Clock())
    journal = EtcdJournal(etcd)
    journal.dump(store)
    journal.attach(store)
    for i in range(12):
        store.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": f"c{i}"}})
    events, floor = EtcdJournal(etcd).history()
    assert 5 <= len(events) <= 7 and floor == events[0][0] - 1
    assert [e[3]["metadata"]["name"] for e in events] == [f"c{i}" for i in range(12 - len(events), 12)]
    journal.close()


def test_etcd_going_away_while_serving_is_500_with_nothing_applied(tmp_path):
    data = tmp_path / "etcd"
    data.mkdir()
    proc, url, log, ports = start_etcd(data)
    classes = "/apis/resource.k8s.io/v1/deviceclasses"
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "before"}}
    s = Serve(tmp_path, extra=("--etcd-servers", url))
    try:
        assert s.call("POST", classes, cls)[0] == 201
        stop_etcd(proc, log)
        code, status = s.call("POST", classes, dict(cls, metadata={"name": "during"}))
        assert (code, status["reason"]) == (500, "InternalError")
        assert status["message"].startswith(f"Internal error occurred: cannot reach etcd at {url}")
        assert s.call("GET", classes + "/during")[0] == 404        # not applied in memory either
        assert s.call("GET", classes + "/before")[0] == 200        # reads still served
        proc, url, log, _ = start_etcd(data, *ports)               # back, with its data
        assert s.call("POST", classes, dict(cls, metadata={"name": "after"}))[0] == 201
    finally:
        s.stop()
    s = Serve(tmp_path, extra=("--etcd-servers", url))
    try:
        names = {c["metadata"]["name"] for c in s.call("GET", classes)[1]["items"]}
        assert {"before", "after"} <= names and "during" not in names
    finally:
        s.stop()
        stop_etcd(proc, log)
