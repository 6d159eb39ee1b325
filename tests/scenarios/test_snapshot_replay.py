"""A cluster snapshot (`kubectl get … -o yaml` shape: a List with status) replays as it was."""
import yaml

from drasim.api.loader import load_paths
from drasim.cli import render
from drasim.controlplane import ControlPlane
from tests.scenarios.test_examples import EXAMPLES, settle


def state(cp: ControlPlane) -> tuple[dict, dict]:
    pods = {p["metadata"]["name"]: (p["spec"].get("nodeName"), p["status"].get("phase")) for p in cp.store.list("Pod")}
    claims = {c["metadata"]["name"]: (c.get("status") or {}).get("allocation", {}).get("devices")
              for c in cp.store.list("ResourceClaim")}
    return pods, claims


def test_replaying_the_output_reproduces_the_cluster(tmp_path):
    """Bound pods stay bound, allocations stay, uids are kept, and nothing new happens."""
    first = settle(EXAMPLES / "gpu-64gi" / "cluster.yaml", EXAMPLES / "gpu-64gi" / "workload.yaml")
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(render.render_yaml(first.objects()))
    assert yaml.safe_load(snapshot.read_text())["kind"] == "List"
    second = ControlPlane()
    second.run_phase(load_paths([snapshot]))
    assert state(second) == state(first)
    uids = {p["metadata"]["uid"] for p in first.store.list("Pod")}
    assert {p["metadata"]["uid"] for p in second.store.list("Pod")} == uids
    assert second.scheduler.attempts == 1   # only the pod that was pending is tried again
