"""Workload controllers end to end on a GPU cluster (examples/statefulset-claims): the checks of issue 16."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from drasim.api import kinds
from drasim.api.loader import Document, load_paths
from drasim.cli.main import main
from drasim.controllers.resourceclaim import POD_CLAIM_NAME_ANNOTATION
from drasim.controlplane import ControlPlane
from drasim.sim.clock import parse_time

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "statefulset-claims"
GPU_NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3"]


def settle(*extra: dict) -> ControlPlane:
    cp = ControlPlane()
    cp.run_phase(load_paths([EXAMPLE / "cluster.yaml"]))
    cp.run_phase(load_paths([EXAMPLE / "workload.yaml"]))
    if extra:
        cp.run_phase([Document(f"extra#{i}", kinds.lookup(o["apiVersion"], o["kind"]), o)
                      for i, o in enumerate(extra, 1)])
    return cp


def owned_by(cp: ControlPlane, kind: str, name: str) -> list[dict]:
    return sorted((p for p in cp.store.list("Pod") if any(
        r.get("kind") == kind and r.get("name") == name for r in p["metadata"].get("ownerReferences") or ())),
        key=lambda p: p["metadata"]["name"])


def test_statefulset_with_a_claim_template_gets_one_claim_per_ordinal():
    cp = settle()
    trainers = owned_by(cp, "StatefulSet", "trainer")
    assert [p["metadata"]["name"] for p in trainers] == [f"trainer-{i}" for i in range(5)]
    claims = cp.store.list("ResourceClaim", "default")
    assert len(claims) == 5
    devices = set()
    for pod in trainers:
        name = pod["metadata"]["name"]
        status, = pod["status"]["resourceClaimStatuses"]
        claim = cp.store.get("ResourceClaim", "default", status["resourceClaimName"])
        assert re.fullmatch(rf"{name}-gpu-[bcdfghjklmnpqrstvwxz2456789]{{5}}", claim["metadata"]["name"])
        assert claim["metadata"]["ownerReferences"][0]["uid"] == pod["metadata"]["uid"]
        assert claim["metadata"]["annotations"][POD_CLAIM_NAME_ANNOTATION] == "gpu"
        result, = claim["status"]["allocation"]["devices"]["results"]
        assert result["pool"] == pod["spec"]["nodeName"]
        devices.add((result["pool"], result["device"]))
        assert pod["status"]["phase"] == "Running"
    assert len(devices) == 5
    order = [parse_time(p["metadata"]["creationTimestamp"]) for p in trainers]
    assert order == sorted(order), "OrderedReady creates the ordinals in order"


def test_scaling_the_statefulset_down_frees_the_claims_of_the_removed_ordinals():
    cp = settle()
    sts = next(d.obj for d in load_paths([EXAMPLE / "workload.yaml"]) if d.kind is kinds.STATEFUL_SET)
    sts["spec"]["replicas"] = 2
    cp.run_phase([Document("scale#1", kinds.STATEFUL_SET, sts)])
    assert [p["metadata"]["name"] for p in owned_by(cp, "StatefulSet", "trainer")] == ["trainer-0", "trainer-1"]
    assert sorted(c["metadata"]["name"].rsplit("-", 2)[0] for c in cp.store.list("ResourceClaim")) == [
        "trainer-0", "trainer-1"]
    assert cp.store.get("StatefulSet", "default", "trainer")["status"]["replicas"] == 2


def test_daemonset_lands_on_every_gpu_node_and_not_on_the_tainted_infra_node():
    cp = settle()
    exporters = owned_by(cp, "DaemonSet", "gpu-exporter")
    assert sorted(p["spec"]["nodeName"] for p in exporters) == GPU_NODES
    assert all(p["status"]["phase"] == "Running" for p in exporters)
    status = cp.store.get("DaemonSet", "default", "gpu-exporter")["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberReady"],
            status["numberMisscheduled"]) == (3, 3, 3, 0)


def test_a_gpu_node_added_later_gets_an_exporter():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-node-4", "labels": {
        "kubernetes.io/hostname": "gpu-node-4", "nvidia.com/gpu.present": "true"}},
        "status": {"capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}
    cp = settle(node)
    assert sorted(p["spec"]["nodeName"] for p in owned_by(cp, "DaemonSet", "gpu-exporter")) == GPU_NODES + [
        "gpu-node-4"]


def gpu_job(**template_md) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "eval", "namespace": "default"},
            "spec": {"parallelism": 2, "completions": 4, "template": {"metadata": template_md, "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "eval", "image": "registry.example.com/eval:1",
                                "resources": {"claims": [{"name": "gpu"}]}}],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]}}}}


def test_job_pods_get_claims_and_wait_for_free_gpus():
    """Five trainers hold five of six GPUs: the Job runs two pods; one gets the last GPU."""
    cp = settle(gpu_job())
    eval_pods = owned_by(cp, "Job", "eval")
    assert len(eval_pods) == 2
    assert sorted(p["status"]["phase"] for p in eval_pods) == ["Pending", "Running"]
    assert cp.store.get("Job", "default", "eval")["status"]["active"] == 2


def test_job_pods_complete_on_the_timeline():
    """Needs the kubelet's drasim.io/run-for (the `robust` branch): skipped until it is merged."""
    import drasim.node.kubelet as kubelet
    annotation = getattr(kubelet, "RUN_FOR_ANNOTATION", None)
    if annotation is None:
        pytest.skip("the kubelet does not support drasim.io/run-for yet")
    cp = settle(gpu_job(annotations={annotation: "30m"}))
    job = cp.store.get("Job", "default", "eval")
    assert job["status"]["succeeded"] == 4
    assert job["status"]["conditions"][-1]["type"] == "Complete"
    # one GPU is free: the four pods run one after another, 30 minutes each
    assert parse_time(job["status"]["completionTime"]) - parse_time(job["status"]["startTime"]) == pytest.approx(
        4 * 1800, abs=10)


def test_cli_json_lists_the_workloads_with_their_status(capsys):
    assert main(["simulate", str(EXAMPLE / "cluster.yaml"), str(EXAMPLE / "workload.yaml"), "-o", "json"]) == 0
    import json
    items = json.loads(capsys.readouterr().out)["items"]
    kinds_seen = [o["kind"] for o in items]
    assert kinds_seen.index("StatefulSet") < kinds_seen.index("Pod")
    sts = next(o for o in items if o["kind"] == "StatefulSet")
    assert sts["status"]["readyReplicas"] == 5


def test_pods_evicted_by_a_device_taint_are_recreated_with_new_claims_elsewhere():
    """NoExecute on gpu-node-2's GPUs: the device taint eviction controller deletes the trainers there; the
    StatefulSet makes them again, their new claims avoid the tainted devices; four GPUs are left for five."""
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "maintenance"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "gpu-node-2"},
                     "taint": {"key": "example.com/maintenance", "effect": "NoExecute"}}}
    before = {p["metadata"]["name"]: p for p in owned_by(settle(), "StatefulSet", "trainer")}
    on_node_2 = sorted(n for n, p in before.items() if p["spec"]["nodeName"] == "gpu-node-2")
    cp = settle(rule)
    after = {p["metadata"]["name"]: p for p in owned_by(cp, "StatefulSet", "trainer")}
    assert sorted(after) == [f"trainer-{i}" for i in range(5)]
    assert not any(p["spec"].get("nodeName") == "gpu-node-2" for p in after.values())
    assert sum(p["status"]["phase"] == "Running" for p in after.values()) == 4
    assert on_node_2, "the seeded placement puts trainers on gpu-node-2"
    for claim in cp.store.list("ResourceClaim"):
        result = (claim.get("status") or {}).get("allocation")
        assert result is None or result["devices"]["results"][0]["pool"] != "gpu-node-2"
