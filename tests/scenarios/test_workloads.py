"""Workload controllers end to end. Deployments and ReplicaSets: the seed's unchanged GPU Deployment
on a mixed cluster (examples/deployment-gpu), scaling, rolling updates, deletion with garbage
collection, quota on controller-created pods. StatefulSet, DaemonSet and Job on a GPU cluster
(examples/statefulset-claims): the checks of issue 16.

Kept self-contained (no /work/shared): the clusters are the examples.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from drasim.api import kinds
from drasim.api.loader import Document, load_paths
from drasim.cli.main import main
from drasim.controllers.resourceclaim import POD_CLAIM_NAME_ANNOTATION
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from drasim.sim.clock import parse_time

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "deployment-gpu"
CLUSTER, DEPLOYMENT, SCALE, DELETE = (EXAMPLE / f for f in ("00-cluster.yaml", "01-deployment.yaml",
                                                             "02-scale-up.yaml", "03-delete.yaml"))
POD_NAME = re.compile(r"^demo-([bcdfghjklmnpqrstvwxz2456789]{6,10})-[bcdfghjklmnpqrstvwxz2456789]{5}$")


def settle(tmp_path: Path, *phases) -> ControlPlane:
    cp = ControlPlane()
    for i, phase in enumerate(phases):
        if isinstance(phase, str):
            path = tmp_path / f"phase-{i}.yaml"
            path.write_text(phase)
            phase = path
        cp.run_phase(load_paths([phase]))
    return cp


def pods(cp: ControlPlane, ns: str = "default") -> list[dict]:
    return sorted(cp.store.list("Pod", ns), key=lambda p: p["metadata"]["name"])


def deployment_with(template_changes: dict | None = None, **spec) -> str:
    doc = yaml.safe_load(DEPLOYMENT.read_text())
    doc["spec"].update(spec)
    if template_changes:
        doc["spec"]["template"]["spec"]["containers"][0].update(template_changes)
    return yaml.safe_dump(doc)


def condition(obj: dict, type_: str) -> dict:
    return next(c for c in obj["status"].get("conditions") or () if c["type"] == type_)


def test_seed_deployment_schedules_on_a_mixed_cluster(tmp_path):
    """Three replicas of `example.com/gpu: 1`: one on the device-plugin node, two on DRA GPUs;
    pods are named `demo-<hash>-<5>` and carry the hash label of their ReplicaSet."""
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT)
    got = pods(cp)
    assert len(got) == 3 and all(p["status"]["phase"] == "Running" for p in got)
    hashes = {POD_NAME.match(p["metadata"]["name"]).group(1) for p in got}
    assert len(hashes) == 1
    pod_hash = hashes.pop()
    rs = cp.store.get("ReplicaSet", "default", f"demo-{pod_hash}")
    assert rs["metadata"]["labels"]["pod-template-hash"] == pod_hash
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "demo", "pod-template-hash": pod_hash}
    assert all(p["metadata"]["labels"]["pod-template-hash"] == pod_hash for p in got)
    assert all(p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"] for p in got)
    assert sorted(p["spec"]["nodeName"] for p in got) == ["gpu-node-1", "gpu-node-2", "gpu-node-2"]
    d = cp.store.get("Deployment", "default", "demo")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert rs["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1",
                                             "deployment.kubernetes.io/desired-replicas": "3",
                                             "deployment.kubernetes.io/max-replicas": "4"}
    assert {k: d["status"][k] for k in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")} == \
        {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    assert condition(d, "Available")["reason"] == "MinimumReplicasAvailable"
    assert condition(d, "Progressing")["reason"] == "NewReplicaSetAvailable"
    assert rs["status"] == {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                            "observedGeneration": 1}


def test_scale_up_adds_a_pod_that_waits_for_a_gpu(tmp_path):
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, SCALE)
    got = pods(cp)
    assert len(got) == 4
    pending = [p for p in got if not p["spec"].get("nodeName")]
    assert len(pending) == 1 and "Insufficient example.com/gpu" in condition(pending[0], "PodScheduled")["message"]
    d = cp.store.get("Deployment", "default", "demo")
    assert d["status"]["availableReplicas"] == 3 and d["status"]["unavailableReplicas"] == 1
    assert d["metadata"]["generation"] == 2 and d["status"]["observedGeneration"] == 2


def test_scale_down_prefers_the_unscheduled_pod(tmp_path):
    """ActivePods ranking: the Pending pod goes first, the running ones stay."""
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, SCALE, """
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
scale: [{kind: Deployment, name: demo, replicas: 3}]
""")
    got = pods(cp)
    assert len(got) == 3 and all(p["status"]["phase"] == "Running" for p in got)


def test_changed_template_rolls_when_unavailability_is_allowed(tmp_path):
    """All three GPUs are used, so the surge pod cannot run; maxUnavailable 1 lets an old pod go first."""
    rolled = deployment_with({"image": "registry.example.com/gpu-app:1.1"},
                             strategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}})
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, rolled)
    rss = {rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: rs for rs in cp.store.list("ReplicaSet")}
    assert set(rss) == {"1", "2"}
    assert rss["1"]["spec"]["replicas"] == 0 and rss["2"]["spec"]["replicas"] == 3
    new_hash = rss["2"]["metadata"]["labels"]["pod-template-hash"]
    got = pods(cp)
    assert len(got) == 3 and all(p["metadata"]["labels"]["pod-template-hash"] == new_hash for p in got)
    assert all(p["spec"]["containers"][0]["image"].endswith(":1.1") and p["status"]["phase"] == "Running" for p in got)
    d = cp.store.get("Deployment", "default", "demo")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert condition(d, "Progressing")["reason"] == "NewReplicaSetAvailable"


def test_a_surge_pod_pending_forever_blocks_the_rollout(tmp_path):
    """maxUnavailable 0: the new pod needs a free GPU first; there is none, so the old pods stay and
    the rollout times out after progressDeadlineSeconds (k8s: ProgressDeadlineExceeded)."""
    rolled = deployment_with({"image": "registry.example.com/gpu-app:1.1"},
                             strategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}})
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, rolled)
    got = pods(cp)
    old = [p for p in got if p["spec"]["containers"][0]["image"].endswith(":1.0")]
    new = [p for p in got if p["spec"]["containers"][0]["image"].endswith(":1.1")]
    assert len(old) == 3 and all(p["status"]["phase"] == "Running" for p in old)
    assert len(new) == 1 and not new[0]["spec"].get("nodeName")
    d = cp.store.get("Deployment", "default", "demo")
    progressing = condition(d, "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert re.fullmatch(r'ReplicaSet "demo-\w+" has timed out progressing\.', progressing["message"])


def test_recreate_scales_old_pods_down_before_new_ones(tmp_path):
    strategy = {"type": "Recreate"}
    first = deployment_with(strategy=strategy)
    cp = settle(tmp_path, CLUSTER, first, deployment_with({"image": "registry.example.com/gpu-app:1.1"},
                                                           strategy=strategy))
    got = pods(cp)
    assert len(got) == 3 and all(p["spec"]["containers"][0]["image"].endswith(":1.1") for p in got)
    assert all(p["status"]["phase"] == "Running" for p in got)


def test_deleting_the_deployment_frees_the_devices(tmp_path):
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, DELETE)
    for kind in ("Deployment", "ReplicaSet", "Pod", "ResourceClaim"):
        assert cp.store.list(kind, "default") == [], kind
    cp.run_phase(load_paths([CLUSTER.parent / "01-deployment.yaml"]))
    assert len([p for p in pods(cp) if p["status"]["phase"] == "Running"]) == 3


def test_orphan_cascade_keeps_replicasets_and_pods(tmp_path):
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, """
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
delete: [{kind: Deployment, name: demo, cascade: orphan}]
""")
    assert cp.store.get("Deployment", "default", "demo") is None
    (rs,) = cp.store.list("ReplicaSet", "default")
    assert "ownerReferences" not in rs["metadata"]
    assert len(pods(cp)) == 3


def test_foreground_cascade_removes_everything(tmp_path):
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, """
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
delete: [{kind: Deployment, name: demo, cascade: foreground}]
""")
    for kind in ("Deployment", "ReplicaSet", "Pod", "ResourceClaim"):
        assert cp.store.list(kind, "default") == [], kind


QUOTA = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: default}
spec:
  hard: {requests.example.com/gpu: "2"}
"""


def test_quota_refuses_the_third_pod_and_the_replicaset_says_so(tmp_path):
    cp = settle(tmp_path, CLUSTER, QUOTA, DEPLOYMENT)
    assert len(pods(cp)) == 2
    (rs,) = cp.store.list("ReplicaSet", "default")
    failure = condition(rs, "ReplicaFailure")
    assert failure["status"] == "True" and failure["reason"] == "FailedCreate"
    assert re.fullmatch(r'pods "demo-\w+-\w{5}" is forbidden: exceeded quota: gpus, requested: '
                        r'requests.example.com/gpu=1, used: requests.example.com/gpu=2, limited: '
                        r'requests.example.com/gpu=2', failure["message"]), failure["message"]
    events = [e for e in cp.store.list("Event", "default") if e["involvedObject"]["name"] == rs["metadata"]["name"]]
    assert any(e["reason"] == "FailedCreate" and e["message"].startswith("Error creating: pods ") for e in events)
    d = cp.store.get("Deployment", "default", "demo")
    assert condition(d, "ReplicaFailure")["reason"] == "FailedCreate"


def test_raising_the_quota_lets_the_replicaset_finish(tmp_path):
    cp = settle(tmp_path, CLUSTER, QUOTA, DEPLOYMENT, QUOTA.replace('"2"', '"3"'))
    assert len(pods(cp)) == 3
    (rs,) = cp.store.list("ReplicaSet", "default")
    assert not [c for c in rs["status"].get("conditions") or () if c["type"] == "ReplicaFailure"]


def test_replicaset_adopts_a_matching_orphan_pod(tmp_path):
    cp = settle(tmp_path, """
apiVersion: v1
kind: Pod
metadata: {name: stray, labels: {app: web}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
""")
    got = pods(cp)
    rs = cp.store.get("ReplicaSet", "default", "web")
    assert len(got) == 2 and "stray" in {p["metadata"]["name"] for p in got}
    stray = cp.store.get("Pod", "default", "stray")
    assert stray["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                                     "uid": rs["metadata"]["uid"], "controller": True,
                                                     "blockOwnerDeletion": True}]


@pytest.mark.parametrize("doc, message", [
    ("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: c, image: i}]}
""", 'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: '
     '`selector` does not match template `labels`'),
    ("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: -1
  selector: {matchLabels: {app: a}}
  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: "0%"}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: i}]}
""", 'Deployment.apps "d" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, '
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0]'),
    ("""
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: r}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {restartPolicy: Never, containers: [{name: c}]}
""", 'ReplicaSet.apps "r" is invalid: [spec.template.spec.containers[0].image: Required value, '
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"]'),
])
def test_invalid_workloads_are_refused_with_the_api_servers_message(tmp_path, doc, message):
    with pytest.raises(InputError) as e:
        settle(tmp_path, doc)
    assert str(e.value).endswith(message), str(e.value)


def test_phase_operations_check_their_targets_before_anything_is_applied(tmp_path):
    with pytest.raises(InputError, match=r'delete\[0\]: deployments.apps "nope" not found'):
        settle(tmp_path, CLUSTER, """
apiVersion: v1
kind: Namespace
metadata: {name: late}
---
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
delete: [{kind: Deployment, name: nope}]
""")
    cp = ControlPlane()
    with pytest.raises(InputError, match="pods has no scale subresource"):
        (tmp_path / "s.yaml").write_text("apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\n"
                                         "scale: [{kind: Pod, name: x, replicas: 1}]\n")
        cp.run_phase(load_paths([tmp_path / "s.yaml"]))


def test_phase_operations_never_reach_the_output(tmp_path):
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, SCALE)
    assert {o["kind"] for o in cp.objects()} == {"Namespace", "Node", "DeviceClass", "ResourceSlice", "ResourceClaim",
                                                "Deployment", "ReplicaSet", "Pod"}


def owned_pod(name: str, api_version: str, kind: str, owner: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  ownerReferences: [{{apiVersion: {api_version}, kind: {kind}, name: {owner}, uid: uid-{owner}, controller: true}}]
spec: {{containers: [{{name: c, image: i}}]}}
---"""


def test_garbage_collector_deletes_dangling_dependents_but_keeps_unresolvable_ones(tmp_path):
    """A pod whose ReplicaSet or StatefulSet is gone is collected; a pod of a skipped
    ReplicationController (a snapshot) or of an unknown kind is kept, as kube-controller-manager
    keeps dependents it cannot resolve."""
    cp = settle(tmp_path, owned_pod("orphaned", "apps/v1", "ReplicaSet", "gone")
                + owned_pod("of-statefulset", "apps/v1", "StatefulSet", "db")
                + owned_pod("of-rc", "v1", "ReplicationController", "db")
                + owned_pod("of-crd", "example.com/v1", "Trainer", "t"))
    assert [p["metadata"]["name"] for p in pods(cp)] == ["of-crd", "of-rc"]


def test_a_dependent_with_a_remaining_owner_only_loses_the_dangling_reference(tmp_path):
    cp = settle(tmp_path, """
apiVersion: v1
kind: Pod
metadata:
  name: shared
  ownerReferences:
  - {apiVersion: v1, kind: Node, name: n1, uid: will-not-match}
  - {apiVersion: v1, kind: Namespace, name: default, uid: %s}
spec: {containers: [{name: c, image: i}]}
""" % ControlPlane().store.get("Namespace", None, "default")["metadata"]["uid"])
    refs = cp.store.get("Pod", "default", "shared")["metadata"]["ownerReferences"]
    assert [r["kind"] for r in refs] == ["Namespace"]


def test_a_snapshot_of_a_settled_deployment_replays_unchanged(tmp_path):
    """`kubectl get -o json` of the result, replayed with another seed: the same ReplicaSet, pods
    and claims, no new rollout (the ReplicaSet is found by owner uid and template)."""
    import json

    from drasim.cli.render import render_json
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT)
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(render_json(cp.objects()))
    from drasim.controlplane import Options
    replay = ControlPlane(Options(seed=7))
    replay.run_phase(load_paths([snapshot]))
    for kind in ("Pod", "ReplicaSet", "ResourceClaim"):
        assert sorted(o["metadata"]["name"] for o in replay.store.list(kind)) == \
            sorted(o["metadata"]["name"] for o in cp.store.list(kind)), kind
    assert json.loads(snapshot.read_text())["kind"] == "List"


TEMPLATE_CLAIMS = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: 2
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
      containers:
      - name: c
        image: i
        resources: {claims: [{name: gpu}]}
"""


def test_deleting_a_deployment_removes_its_template_claims(tmp_path):
    cp = settle(tmp_path, CLUSTER, TEMPLATE_CLAIMS)
    assert len(pods(cp)) == 2 and all(p["status"]["phase"] == "Running" for p in pods(cp))
    assert len(cp.store.list("ResourceClaim", "default")) == 2
    cp = settle(tmp_path, CLUSTER, TEMPLATE_CLAIMS, """
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
delete: [{kind: Deployment, name: trainer}]
""")
    assert pods(cp) == [] and cp.store.list("ResourceClaim", "default") == []
    assert cp.store.list("ReplicaSet", "default") == []


def test_min_ready_seconds_delays_availability_on_the_virtual_clock(tmp_path):
    cp2 = settle(tmp_path, CLUSTER, deployment_with(minReadySeconds=30))
    (rs,) = cp2.store.list("ReplicaSet", "default")
    assert rs["spec"]["minReadySeconds"] == 30 and rs["status"]["availableReplicas"] == 3
    ready = max(c["lastTransitionTime"] for p in pods(cp2) for c in p["status"]["conditions"] if c["type"] == "Ready")
    d = cp2.store.get("Deployment", "default", "demo")
    assert condition(d, "Available")["lastTransitionTime"] >= ready
    from drasim.sim.clock import parse_time
    assert parse_time(condition(d, "Progressing")["lastUpdateTime"]) >= parse_time(ready) + 30


def test_the_deployment_records_how_it_scaled(tmp_path):
    rolled = deployment_with({"image": "registry.example.com/gpu-app:1.1"},
                             strategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}})
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, rolled)
    messages = [e["message"] for e in sorted(cp.store.list("Event", "default"), key=lambda e: e["metadata"]["name"])
                if e["involvedObject"]["kind"] == "Deployment" and e["reason"] == "ScalingReplicaSet"]
    rss = {rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: rs["metadata"]["name"]
           for rs in cp.store.list("ReplicaSet")}
    assert f"Scaled up replica set {rss['1']} to 3" in messages
    assert any(m.startswith(f"Scaled down replica set {rss['1']} to ") and m.endswith(" from 3") for m in messages)
    assert any(m.startswith(f"Scaled up replica set {rss['2']} to ") for m in messages)


def test_scale_applies_to_the_object_as_the_phase_left_it(tmp_path):
    """A phase that re-applies the Deployment with a new image and scales it: both hold."""
    changed = deployment_with({"image": "registry.example.com/gpu-app:1.1"},
                              strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}})
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, changed + """---
apiVersion: drasim.io/v1alpha1
kind: PhaseOperations
scale: [{kind: Deployment, name: demo, replicas: 2}]
""")
    d = cp.store.get("Deployment", "default", "demo")
    assert d["spec"]["replicas"] == 2
    assert d["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":1.1")
    got = pods(cp)
    assert len(got) == 2 and all(p["spec"]["containers"][0]["image"].endswith(":1.1") for p in got)


def test_a_paused_deployment_does_not_roll_until_resumed(tmp_path):
    changed = {"image": "registry.example.com/gpu-app:1.1"}
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, deployment_with(changed, paused=True))
    d = cp.store.get("Deployment", "default", "demo")
    assert (condition(d, "Progressing")["status"], condition(d, "Progressing")["reason"]) == ("Unknown", "DeploymentPaused")
    assert len(cp.store.list("ReplicaSet", "default")) == 1
    assert all(p["spec"]["containers"][0]["image"].endswith(":1.0") for p in pods(cp))
    cp = settle(tmp_path, CLUSTER, DEPLOYMENT, deployment_with(changed, paused=True),
                deployment_with(changed, paused=False, strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}))
    assert all(p["spec"]["containers"][0]["image"].endswith(":1.1") for p in pods(cp)) and len(pods(cp)) == 3


# -- StatefulSet, DaemonSet, Job (examples/statefulset-claims) ----------------------------------

STS_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "statefulset-claims"
GPU_NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3"]


def settle_sts(*extra: dict) -> ControlPlane:
    cp = ControlPlane()
    cp.run_phase(load_paths([STS_EXAMPLE / "cluster.yaml"]))
    cp.run_phase(load_paths([STS_EXAMPLE / "workload.yaml"]))
    if extra:
        cp.run_phase([Document(f"extra#{i}", kinds.lookup(o["apiVersion"], o["kind"]), o)
                      for i, o in enumerate(extra, 1)])
    return cp


def owned_by(cp: ControlPlane, kind: str, name: str) -> list[dict]:
    return sorted((p for p in cp.store.list("Pod") if any(
        r.get("kind") == kind and r.get("name") == name for r in p["metadata"].get("ownerReferences") or ())),
        key=lambda p: p["metadata"]["name"])


def test_statefulset_with_a_claim_template_gets_one_claim_per_ordinal():
    cp = settle_sts()
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
    cp = settle_sts()
    sts = next(d.obj for d in load_paths([STS_EXAMPLE / "workload.yaml"]) if d.kind is kinds.STATEFUL_SET)
    sts["spec"]["replicas"] = 2
    cp.run_phase([Document("scale#1", kinds.STATEFUL_SET, sts)])
    assert [p["metadata"]["name"] for p in owned_by(cp, "StatefulSet", "trainer")] == ["trainer-0", "trainer-1"]
    assert sorted(c["metadata"]["name"].rsplit("-", 2)[0] for c in cp.store.list("ResourceClaim")) == [
        "trainer-0", "trainer-1"]
    assert cp.store.get("StatefulSet", "default", "trainer")["status"]["replicas"] == 2


def test_daemonset_lands_on_every_gpu_node_and_not_on_the_tainted_infra_node():
    cp = settle_sts()
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
    cp = settle_sts(node)
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
    cp = settle_sts(gpu_job())
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
    cp = settle_sts(gpu_job(annotations={annotation: "30m"}))
    job = cp.store.get("Job", "default", "eval")
    assert job["status"]["succeeded"] == 4
    assert job["status"]["conditions"][-1]["type"] == "Complete"
    # one GPU is free: the four pods run one after another, 30 minutes each
    assert parse_time(job["status"]["completionTime"]) - parse_time(job["status"]["startTime"]) == pytest.approx(
        4 * 1800, abs=10)


def test_cli_json_lists_the_workloads_with_their_status(capsys):
    assert main(["simulate", str(STS_EXAMPLE / "cluster.yaml"), str(STS_EXAMPLE / "workload.yaml"), "-o", "json"]) == 0
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
    before = {p["metadata"]["name"]: p for p in owned_by(settle_sts(), "StatefulSet", "trainer")}
    on_node_2 = sorted(n for n, p in before.items() if p["spec"]["nodeName"] == "gpu-node-2")
    cp = settle_sts(rule)
    after = {p["metadata"]["name"]: p for p in owned_by(cp, "StatefulSet", "trainer")}
    assert sorted(after) == [f"trainer-{i}" for i in range(5)]
    assert not any(p["spec"].get("nodeName") == "gpu-node-2" for p in after.values())
    assert sum(p["status"]["phase"] == "Running" for p in after.values()) == 4
    assert on_node_2, "the seeded placement puts trainers on gpu-node-2"
    for claim in cp.store.list("ResourceClaim"):
        result = (claim.get("status") or {}).get("allocation")
        assert result is None or result["devices"]["results"][0]["pool"] != "gpu-node-2"


@pytest.mark.parametrize("kind,name", [("StatefulSet", "trainer"), ("DaemonSet", "gpu-exporter")])
def test_deleting_a_statefulset_or_daemonset_deletes_its_pods_and_their_claims(kind, name):
    cp = settle_sts()
    owned = owned_by(cp, kind, name)
    assert owned
    cp.run_phase([Document("ops#1", kinds.PHASE_OPERATIONS, {
        "apiVersion": "drasim.io/v1alpha1", "kind": "PhaseOperations",
        "delete": [{"kind": kind, "name": name, "namespace": "default"}]})])
    assert cp.store.get(kind, "default", name) is None and owned_by(cp, kind, name) == []
    gone = {p["metadata"]["name"] for p in owned}
    assert not [c for c in cp.store.list("ResourceClaim", "default")
                if any(r.get("name") in gone for r in c["metadata"].get("ownerReferences") or ())]


def test_deleting_a_job_deletes_its_pods_although_they_hold_the_tracking_finalizer():
    cp = settle_sts(gpu_job())
    assert owned_by(cp, "Job", "eval")
    assert all("batch.kubernetes.io/job-tracking" in p["metadata"]["finalizers"] for p in owned_by(cp, "Job", "eval"))
    cp.run_phase([Document("ops#1", kinds.PHASE_OPERATIONS, {
        "apiVersion": "drasim.io/v1alpha1", "kind": "PhaseOperations",
        "delete": [{"kind": "Job", "name": "eval", "namespace": "default"}]})])
    assert cp.store.get("Job", "default", "eval") is None
    assert [p["metadata"]["name"] for p in cp.store.list("Pod", "default")
            if p["metadata"]["name"].startswith("eval-")] == []
