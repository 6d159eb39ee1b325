"""`drasim snapshot` of a `drasim serve` cluster, fed to `simulate`, gives the same placements."""
import json
from pathlib import Path

import pytest

from drasim.cli.main import main
from tests.server.harness import Serve

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extended-resource-explicit"


@pytest.fixture
def served(tmp_path):
    pytest.importorskip("kubernetes")
    s = Serve(tmp_path, EXAMPLE / "cluster.yaml", EXAMPLE / "workload.yaml")
    yield s
    s.stop()


def placements(items):
    return {(o["metadata"].get("namespace"), o["metadata"]["name"]): o["spec"].get("nodeName")
            for o in items if o["kind"] == "Pod"}


def test_snapshot_of_serve_replays_to_the_same_placements(served, tmp_path, capsys):
    served.wait_until(lambda: all(p["spec"].get("nodeName") for p in served.call("GET", "/api/v1/pods")[1]["items"]))
    live = served.call("GET", "/api/v1/pods")[1]["items"]
    out = tmp_path / "snap"
    assert main(["snapshot", "--kubeconfig", str(served.kubeconfig), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "Pod" in said and str(out) in said
    files = sorted(p.name for p in out.iterdir())
    assert {"01-nodes.yaml", "02-deviceclasses.yaml", "03-resourceslices.yaml", "13-pods.yaml"} <= set(files)
    assert not any("secret" in f or "configmap" in f for f in files)
    assert main(["simulate", str(out), "-o", "json"]) == 0
    replayed = json.loads(capsys.readouterr().out)["items"]
    assert placements(replayed) == {(p["metadata"]["namespace"], p["metadata"]["name"]): p["spec"]["nodeName"]
                                    for p in live}
    claims = [o for o in replayed if o["kind"] == "ResourceClaim"]
    assert claims and all(c["status"].get("allocation") for c in claims)


def test_unreachable_cluster_is_one_clear_error(tmp_path, capsys):
    pytest.importorskip("kubernetes")
    kc = tmp_path / "kc"
    kc.write_text("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]\n"
                  "users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
                  "current-context: x\n")
    assert main(["snapshot", "--kubeconfig", str(kc), "-o", str(tmp_path / "out")]) == 1
    assert "cannot reach the cluster" in capsys.readouterr().err
