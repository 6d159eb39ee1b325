"""Topology spread and pod anti-affinity with the verdict cache on give kube-scheduler's answers."""
from drasim.controlplane import ControlPlane, Options


def run(filter_cache: bool) -> tuple[dict, dict]:
    cp = ControlPlane(Options(filter_cache=filter_cache))
    for i in range(6):
        cp.create({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": f"n{i}", "labels": {"topology.kubernetes.io/zone": f"z{i % 3}",
                                                            "kubernetes.io/hostname": f"n{i}"}},
                   "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    for i in range(9):
        cp.create({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": f"web-{i}", "namespace": "default", "labels": {"app": "web"}},
                   "spec": {"containers": [{"name": "c", "image": "i"}],
                            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                           "whenUnsatisfiable": "DoNotSchedule",
                                                           "labelSelector": {"matchLabels": {"app": "web"}}}],
                            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                                {"topologyKey": "kubernetes.io/hostname",
                                 "labelSelector": {"matchLabels": {"app": "web"}}}]}}}})
        cp.settle()
    placed = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in cp.store.list("Pod")}
    reasons = {p["metadata"]["name"]: next(c["message"] for c in p["status"]["conditions"] if c["type"] == "PodScheduled")
               for p in cp.store.list("Pod") if not p["spec"].get("nodeName")}
    return placed, reasons


def test_spread_and_anti_affinity():
    """One web pod per node, zones balanced; the rest are refused by anti-affinity, cache on or off."""
    placed, reasons = run(True)
    assert (placed, reasons) == run(False)
    nodes = [n for n in placed.values() if n]
    assert sorted(nodes) == [f"n{i}" for i in range(6)]
    assert all(m.startswith("0/6 nodes are available: 6 node(s) didn't match pod anti-affinity rules.")
               for m in reasons.values()) and len(reasons) == 3
