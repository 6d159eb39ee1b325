"""`drasim migrate`: the node-by-node move from a device plugin to DRA, simulated."""
import json
from pathlib import Path

from drasim.api.loader import load_paths
from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.plan.migrate import migrate, plan_waves

EX = Path(__file__).resolve().parents[2] / "examples" / "migrate-three-nodes"
DOCS = lambda: load_paths([EX / "cluster.yaml"])          # noqa: E731
SLICES = lambda: load_paths([EX / "driver-slices.yaml"])  # noqa: E731
CLASS = lambda: load_paths([EX / "class.yaml"])           # noqa: E731


def test_three_nodes_walk_to_dra_with_every_pod_placed():
    """After each node the pods are placed, the node's example.com/gpu capacity is 0, and the
    same 4 devices are in use as in the device plugin era; at the end all of them are DRA devices."""
    m = migrate(DOCS(), ["gpu-1", "gpu-2", "gpu-3"], SLICES(), CLASS())
    assert m.before_devices_in_use == 4 and m.before_pending == {}
    assert [s.ok for s in m.steps] == [True, True, True]
    for s in m.steps:
        assert s.pending == {} and s.pending_during == {} and s.lost == []
        assert set(s.capacity_after.values()) == {0}
        assert s.devices_in_use == 4
    assert any("-> (deleted)" in v for v in m.steps[0].moved.values())   # drained, recreated by the ReplicaSet


def test_final_state_has_only_dra_devices_in_use():
    cp = ControlPlane()
    cp.run_phase(DOCS())
    from drasim.plan.migrate import migrate_node
    for n in ("gpu-1", "gpu-2", "gpu-3"):
        assert migrate_node(cp, n, SLICES(), CLASS()).ok
    claims = [c for c in cp.store.list("ResourceClaim") if (c.get("status") or {}).get("allocation")]
    assert sum(len(c["status"]["allocation"]["devices"]["results"]) for c in claims) == 4
    assert all(p["spec"].get("nodeName") for p in cp.store.list("Pod"))


def test_missing_class_stops_before_touching_the_node():
    m = migrate(DOCS(), ["gpu-1"], SLICES(), [])
    [step] = m.steps
    assert not step.ok and "create a DeviceClass with extendedResourceName: example.com/gpu" in step.problem
    assert step.moved == {}


def test_missing_slices_for_the_node_stop_the_step():
    m = migrate(DOCS(), ["gpu-2"], [d for d in SLICES() if d.obj["spec"]["nodeName"] != "gpu-2"], CLASS())
    assert not m.steps[0].ok and "no ResourceSlice with nodeName gpu-2" in m.steps[0].problem


def test_waves_keep_every_pod_placed_while_nodes_are_drained():
    """Two cordoned nodes leave room for only two of the four pods: one node per wave."""
    waves, stuck = plan_waves(DOCS(), SLICES(), CLASS())
    assert waves == [["gpu-1"], ["gpu-2"], ["gpu-3"]] and stuck == []


def test_cli(capsys):
    argv = ["migrate", str(EX / "cluster.yaml"), "--driver-slices", str(EX / "driver-slices.yaml")]
    assert main([*argv, "--node", "gpu-1", "--class", str(EX / "class.yaml"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["steps"][0]["capacity_after"] == {"gpu-1: example.com/gpu": 0}
    assert main([*argv, "--node", "gpu-1"]) == 1
    assert "stopped: no DeviceClass maps example.com/gpu" in capsys.readouterr().out
    assert main([*argv]) == 1
    assert "give --node NODE" in capsys.readouterr().err


def _with_budget(min_available):
    from drasim.api import kinds
    from drasim.api.loader import Document

    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "demo", "namespace": "default"},
           "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "demo"}}}}
    return DOCS() + [Document("pdb.yaml", kinds.POD_DISRUPTION_BUDGET, pdb)]


def test_drain_goes_through_the_disruption_budget():
    """kubectl drain evicts through the eviction API: with minAvailable 4 of 4 replicas no pod may
    go (429), so the drain stops with the API server's message; with minAvailable 3 the budget lets
    one pod go at a time and the drain completes once its replacement is healthy elsewhere."""
    m = migrate(_with_budget(4), ["gpu-1"], SLICES(), CLASS())
    [step] = m.steps
    assert not step.ok
    assert "Cannot evict pod as it would violate the pod's disruption budget." in step.problem
    assert "The disruption budget demo needs 4 healthy pods and has 4 currently" in step.problem
    m = migrate(_with_budget(3), ["gpu-1"], SLICES(), CLASS())
    assert m.steps[0].ok and m.steps[0].pending == {}
