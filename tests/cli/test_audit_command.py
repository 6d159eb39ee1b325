"""`drasim audit`: findings on the bundled snapshots and one per hazard rule."""
import json
from pathlib import Path

import pytest

from drasim.api.loader import load_paths
from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.plan import audit
from drasim.plan.inventory import owner_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "8", memory: 32Gi, pods: "110"{extra}}}}}
"""
SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: {node}
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  devices: [{devices}]
"""
CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {name}{created}}}
spec:
  selectors: [{{cel: {{expression: device.driver == "gpu.example.com"}}}}]
{extended}"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  containers:
  - name: c
    image: i
    resources: {{limits: {{{resource}: {amount}}}}}
"""


def node(name, extra=""):
    return NODE.format(name=name, extra=extra)


def gpu_slice(node_name, n=2):
    return SLICE.format(node=node_name, devices=", ".join(f"{{name: gpu-{i}}}" for i in range(n)))


def device_class(name, extended=None, created=None):
    return CLASS.format(name=name, created=f', creationTimestamp: "{created}"' if created else "",
                        extended=f"  extendedResourceName: {extended}\n" if extended else "")


def pod(name, resource="example.com/gpu", amount=1):
    return POD.format(name=name, resource=resource, amount=amount)


def run_audit(tmp_path, *docs: str) -> audit.Report:
    path = tmp_path / "snapshot.yaml"
    path.write_text("---\n".join(docs))
    return audit.audit(load_paths([path]))


def codes(report):
    return sorted(f.code for f in report.findings)


def test_mixed_example_names_every_hazard(capsys):
    """The half-migrated example: each hazard it was built with, and exit status 1."""
    assert main(["audit", str(EXAMPLES / "audit-mixed"), "-o", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    found = {f["code"] for f in out["findings"]}
    assert found == {"extended-request-not-limit", "no-backend", "quota-denies-after-move", "class-name-conflict",
                     "device-plugin-and-dra", "implicit-name-too-long", "no-dra-class", "pod-pending",
                     "taint-rule-matches-nothing"}
    gpu = next(i for i in out["inventory"] if i["name"] == "example.com/gpu")
    assert gpu["device_class"] == "gpu-b"
    assert {(b["node"], b["backend"]) for b in gpu["nodes"]} == {
        ("plugin-1", "device-plugin"), ("plugin-2", "device-plugin"), ("mixed-1", "device-plugin"), ("dra-1", "dra")}
    assert sum(u["pods"] for u in gpu["uses"]) == 3


def test_clean_example_has_no_findings(capsys):
    assert main(["audit", str(EXAMPLES / "audit-clean")]) == 0
    assert "No findings" in capsys.readouterr().out


def test_class_conflict_names_the_newest_class_as_winner(tmp_path):
    """extended-resources.md §2.7: the newest class wins; the other is silently ignored."""
    report = run_audit(tmp_path, device_class("old", "example.com/gpu", "2026-01-01T00:00:00Z"),
                       device_class("new", "example.com/gpu", "2026-03-01T00:00:00Z"))
    [f] = [f for f in report.findings if f.code == "class-name-conflict"]
    assert "new serves it" in f.message and "old is silently ignored" in f.message
    report = run_audit(tmp_path, device_class("old", "example.com/gpu", "2026-05-01T00:00:00Z"),
                       device_class("new", "example.com/gpu", "2026-03-01T00:00:00Z"))
    [f] = [f for f in report.findings if f.code == "class-name-conflict"]
    assert "old serves it" in f.message


@pytest.mark.parametrize("length, flagged", [(63, False), (64, True)])
def test_implicit_name_length_limit(tmp_path, length, flagged):
    """§2.6: the class name is the name part of the implicit resource name: 63 characters at most."""
    report = run_audit(tmp_path, device_class("c" * length))
    assert ("implicit-name-too-long" in codes(report)) is flagged


def test_taint_rule_matching_everything(tmp_path):
    rule = """apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: all}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: k, effect: NoSchedule}
"""
    report = run_audit(tmp_path, node("n1"), gpu_slice("n1"), rule)
    assert codes(report) == ["taint-rule-matches-everything"]


def test_untolerated_noexecute_on_an_allocated_claim(tmp_path):
    """A snapshot claim on a device with a NoExecute taint it does not tolerate: its pod will be
    evicted (device-taints.md §7)."""
    tainted = SLICE.format(node="n1", devices="{name: gpu-0, taints: [{key: broken, effect: NoExecute}]}")
    claim = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: gpu}}]
status:
  allocation:
    devices:
      results: [{request: r, driver: gpu.example.com, pool: n1, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [gone]}]}]
"""
    report = run_audit(tmp_path, node("n1"), tainted, device_class("gpu"), claim)
    assert {"noexecute-untolerated", "claim-pinned-to-node"} <= set(codes(report))
    assert report.has_errors


def test_quota_large_enough_for_the_move_is_not_a_finding(tmp_path):
    quota = """apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: default}
spec:
  hard: {gpu.deviceclass.resource.k8s.io/devices: "%s"}
"""
    docs = [node("plugin", ', example.com/gpu: "2"'), node("dra"), gpu_slice("dra"),
            device_class("gpu", "example.com/gpu"), pod("a"), pod("b")]
    assert "quota-denies-after-move" not in codes(run_audit(tmp_path, *docs, quota % 2))
    assert "quota-denies-after-move" in codes(run_audit(tmp_path, *docs, quota % 1))


def test_ephemeral_container_gets_no_device(tmp_path):
    text = pod("debugged") + """  ephemeralContainers:
  - name: debug
    image: busybox
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False"}]
"""
    report = run_audit(tmp_path, node("n1"), gpu_slice("n1"), device_class("gpu", "example.com/gpu"), text)
    assert "ephemeral-container-no-device" in codes(report)


def test_owner_is_the_deployment_behind_the_replicaset():
    """Pods of a ReplicaSet are attributed to its Deployment by the template-hash naming."""
    cp = ControlPlane()
    pod_obj = {"metadata": {"name": "demo-7d9f-x1", "namespace": "default",
                            "labels": {"pod-template-hash": "7d9f"},
                            "ownerReferences": [{"kind": "ReplicaSet", "name": "demo-7d9f", "controller": True}]}}
    assert owner_of(pod_obj, cp.store) == "Deployment/demo"
    pod_obj["metadata"]["ownerReferences"] = [{"kind": "StatefulSet", "name": "db", "controller": True}]
    assert owner_of(pod_obj, cp.store) == "StatefulSet/db"
    pod_obj["metadata"].pop("ownerReferences")
    assert owner_of(pod_obj, cp.store) == "Pod/demo-7d9f-x1"


def test_the_pods_findings_name_are_the_ones_explain_finds(tmp_path, capsys):
    """audit's pod-pending fix is `drasim explain NS/POD --cluster …`: the same input gives the same
    generated pod names (audit's trial admission once drew from the seeded generator first)."""
    workload = tmp_path / "job.yaml"
    workload.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: 1}}}]\n")
    cluster = EXAMPLES / "gpu-64gi" / "cluster.yaml"
    main(["audit", str(cluster), str(workload), "-o", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    [pod] = [f["objects"][0].split()[-1] for f in findings if f["code"] == "pod-pending"]
    assert main(["explain", pod, "--cluster", str(cluster), str(workload)]) == 0, capsys.readouterr().err
