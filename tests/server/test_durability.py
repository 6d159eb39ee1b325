"""`drasim serve --data-dir`: acknowledged writes survive a restart (kill -9 under eight
writers: test_concurrency.py); a corrupt database is one clear error."""
import subprocess
import sys
from pathlib import Path

from drasim.sim.clock import Clock
from drasim.store.memory import MemoryStore
from drasim.store.sqlite import SqliteJournal
from tests.server.harness import ROOT, Serve

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extended-resource-explicit"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}]}}


def test_journal_round_trip(tmp_path):
    """The store's objects, resourceVersions and revision come back from the file."""
    store = MemoryStore(Clock(), seed=1)
    journal = SqliteJournal(tmp_path / "d.db")
    journal.attach(store)
    store.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    p = store.create(pod("p"))
    store.update(dict(p, metadata=dict(p["metadata"], labels={"x": "y"})))
    store.create(pod("gone"))
    store.delete("Pod", "default", "gone")
    journal.close()
    objects, revision, clock = SqliteJournal(tmp_path / "d.db").load()
    assert revision == store.revision and clock == store.clock.now
    assert {(o["kind"], o["metadata"]["name"]): o["metadata"]["resourceVersion"] for o in objects} == {
        ("Namespace", "a"): store.get("Namespace", None, "a")["metadata"]["resourceVersion"],
        ("Pod", "p"): store.get("Pod", "default", "p")["metadata"]["resourceVersion"]}
    restored = MemoryStore(Clock(), seed=1)
    restored.restore(objects, revision, 1)
    assert restored.get("Pod", "default", "p") == store.get("Pod", "default", "p")
    assert restored.create(pod("new"))["metadata"]["resourceVersion"] == str(revision + 1)


def test_restart_resumes_with_the_same_objects(tmp_path):
    data = tmp_path / "data"
    s = Serve(tmp_path, EXAMPLE / "cluster.yaml", EXAMPLE / "workload.yaml", extra=("--data-dir", str(data)))
    try:
        s.wait_until(lambda: all(p["spec"].get("nodeName") for p in s.call("GET", "/api/v1/pods")[1]["items"]))
        assert s.call("POST", "/api/v1/namespaces/default/pods", pod("extra"))[0] == 201
        before = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"], p["spec"].get("nodeName"))
                  for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        claims = {c["metadata"]["name"] for c in s.call("GET", "/apis/resource.k8s.io/v1/resourceclaims")[1]["items"]}
    finally:
        s.stop()
    s = Serve(tmp_path, extra=("--data-dir", str(data)))   # no phases: everything from the database
    try:
        after = {p["metadata"]["name"]: (p["metadata"]["uid"], p["metadata"]["resourceVersion"], p["spec"].get("nodeName"))
                 for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        assert {k: v[:2] for k, v in after.items()} == {k: v[:2] for k, v in before.items()}
        assert after["demo"][2] == before["demo"][2]
        assert {c["metadata"]["name"] for c in s.call("GET", "/apis/resource.k8s.io/v1/resourceclaims")[1]["items"]} == claims
        code, created = s.call("POST", "/api/v1/namespaces/default/pods", pod("later"))
        assert code == 201 and int(created["metadata"]["resourceVersion"]) > max(int(v[1]) for v in before.values())
    finally:
        s.stop()


def test_a_corrupt_database_is_one_clear_error(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "drasim.db").write_bytes(b"this is not a database" * 100)
    result = subprocess.run([sys.executable, "-m", "drasim.cli.main", "serve", "--kubeconfig", str(tmp_path / "kc"),
                             "--data-dir", str(data)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1
    assert f"{data / 'drasim.db'}: cannot use the database: file is not a database" in result.stderr
    assert "Traceback" not in result.stderr
