"""DaemonSet controller: eligibility (selector, affinity, taints with the default tolerations), placement
through the scheduler, new nodes, status."""
from __future__ import annotations

import pytest

from drasim.controllers.workloads.daemonset import (DAEMON_TOLERATIONS, add_daemon_tolerations,
                                                    node_name_affinity, should_run, target_node)
from workloadkit import control_plane, daemon_set, docs, events, node, pods, quota

GPU = {"nvidia.com/gpu.present": "true"}


def taint(key, effect, value=None):
    t = {"key": key, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


def test_default_tolerations_are_kubernetes_list_in_order():
    spec = {}
    add_daemon_tolerations(spec)
    assert [(t["key"], t["effect"]) for t in spec["tolerations"]] == [
        ("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"), ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"), ("node.kubernetes.io/unschedulable", "NoSchedule")]
    assert all(t["operator"] == "Exists" and "tolerationSeconds" not in t for t in spec["tolerations"])
    host = {"hostNetwork": True, "tolerations": [dict(DAEMON_TOLERATIONS[0])]}
    add_daemon_tolerations(host)
    assert len(host["tolerations"]) == 7, "an equal toleration is replaced, not repeated"
    assert host["tolerations"][-1]["key"] == "node.kubernetes.io/network-unavailable"


@pytest.mark.parametrize("taints,template,expected", [
    pytest.param([], {}, (True, True), id="untainted"),
    pytest.param([taint("dedicated", "NoSchedule", "infra")], {}, (False, True), id="no-schedule-keeps-running"),
    pytest.param([taint("dedicated", "NoExecute", "infra")], {}, (False, False), id="no-execute-evicts"),
    pytest.param([taint("dedicated", "PreferNoSchedule")], {}, (True, True), id="prefer-is-ignored"),
    pytest.param([taint("node.kubernetes.io/unschedulable", "NoSchedule")], {}, (True, True),
                 id="cordoned-tolerated-by-default"),
    pytest.param([taint("node.kubernetes.io/not-ready", "NoExecute")], {}, (True, True), id="not-ready-tolerated"),
    pytest.param([taint("node.kubernetes.io/memory-pressure", "NoSchedule")], {}, (True, True), id="pressure"),
    pytest.param([taint("node.kubernetes.io/network-unavailable", "NoSchedule")], {}, (False, True),
                 id="network-unavailable-only-for-host-network"),
    pytest.param([taint("node.kubernetes.io/network-unavailable", "NoSchedule")], {"hostNetwork": True},
                 (True, True), id="host-network"),
    pytest.param([taint("dedicated", "NoSchedule", "infra")],
                 {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "infra"}]}, (True, True),
                 id="own-toleration"),
])
def test_should_run_follows_taints_and_tolerations(taints, template, expected):
    assert should_run(node("n", taints=taints), daemon_set("ds", **template)) == expected


def test_should_run_follows_node_selector_affinity_and_node_name():
    gpu, cpu = node("gpu", labels=GPU), node("cpu")
    selected = daemon_set("ds", nodeSelector=GPU)
    assert should_run(gpu, selected) == (True, True) and should_run(cpu, selected) == (False, False)
    affinity = daemon_set("ds", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "Exists"}]}]}}})
    assert should_run(gpu, affinity)[0] and not should_run(cpu, affinity)[0]
    pinned = daemon_set("ds", nodeName="gpu")
    assert should_run(gpu, pinned)[0] and not should_run(cpu, pinned)[0]


def test_node_name_affinity_replaces_only_the_required_terms():
    preferred = [{"weight": 1, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "x", "operator": "Exists"}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    got = node_name_affinity(affinity, "n7")
    assert got["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}]}]}
    assert got["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] == preferred
    assert target_node({"spec": {"affinity": got}}) == "n7"


def test_one_pod_per_eligible_node_placed_by_the_scheduler():
    cp = control_plane(node("gpu-1", labels=GPU), node("gpu-2", labels=GPU),
                       node("infra", taints=[taint("dedicated", "NoSchedule", "infra")]),
                       daemon_set("agent"))
    got = pods(cp)
    assert sorted(p["spec"]["nodeName"] for p in got.values()) == ["gpu-1", "gpu-2"]
    for pod in got.values():
        assert pod["metadata"]["generateName"] == "agent-" and len(pod["metadata"]["name"]) == len("agent-") + 5
        assert pod["metadata"]["labels"]["pod-template-generation"] == "1"
        assert pod["metadata"]["labels"]["controller-revision-hash"]
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [pod["spec"]["nodeName"]]
        assert pod["status"]["phase"] == "Running"
    status = cp.store.get("DaemonSet", "default", "agent")["status"]
    assert status == {"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2,
                      "numberReady": 2, "observedGeneration": 1, "updatedNumberScheduled": 2, "numberAvailable": 2}


def test_cordoned_node_still_gets_its_daemon_pod():
    """The unschedulable toleration is what `kubectl drain --ignore-daemonsets` relies on."""
    cp = control_plane(node("n1", unschedulable=True), daemon_set("agent"))
    pod, = pods(cp).values()
    assert pod["spec"]["nodeName"] == "n1"


def test_a_node_added_in_a_later_phase_gets_a_pod_and_a_removed_one_loses_it():
    cp = control_plane(node("n1"), daemon_set("agent"))
    cp.run_phase(docs(node("n2")))
    assert sorted(p["spec"]["nodeName"] for p in pods(cp).values()) == ["n1", "n2"]
    cp.run_phase(docs(node("n2", taints=[taint("maintenance", "NoExecute")])))
    assert sorted(p["spec"]["nodeName"] for p in pods(cp).values()) == ["n1"]
    assert len(events(cp, "SuccessfulDelete")) == 1


def test_pod_that_does_not_fit_stays_pending_with_the_schedulers_reason():
    cp = control_plane(node("small", cpu="1"), daemon_set("agent", containers=[
        {"name": "main", "image": "x", "resources": {"requests": {"cpu": "2"}}}]))
    pod, = pods(cp).values()
    assert pod["status"]["phase"] == "Pending"
    status = cp.store.get("DaemonSet", "default", "agent")["status"]
    assert status["desiredNumberScheduled"] == 1 and status["currentNumberScheduled"] == 1
    assert status["numberReady"] == 0 and status["numberUnavailable"] == 1


def test_quota_applies_to_daemon_pods():
    cp = control_plane(quota("pods", {"pods": "1"}), node("n1"), node("n2"), daemon_set("agent"))
    assert len(pods(cp)) == 1
    assert {e["message"] for e in events(cp, "FailedCreate")} and all(
        "is forbidden: exceeded quota: pods" in e["message"] for e in events(cp, "FailedCreate"))


def test_template_change_rolls_one_node_at_a_time():
    cp = control_plane(node("n1"), node("n2"), node("n3"), daemon_set("agent"))
    before = {p["metadata"]["name"] for p in pods(cp).values()}
    changed = daemon_set("agent")
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/app:2"
    cp.run_phase(docs(changed))
    ds = cp.store.get("DaemonSet", "default", "agent")
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    now = list(pods(cp).values())
    assert len(now) == 3 and not before & {p["metadata"]["name"] for p in now}
    assert all(p["spec"]["containers"][0]["image"].endswith(":2") for p in now)
    assert all(p["metadata"]["labels"]["pod-template-generation"] == "2" for p in now)
    # maxUnavailable 1: each delete waits for the replacement before it to be available
    kinds_in_order = [e["reason"] for e in events(cp) if e["reason"] in ("SuccessfulDelete", "SuccessfulCreate")]
    assert kinds_in_order[3:] == ["SuccessfulDelete", "SuccessfulCreate"] * 3
    assert ds["status"]["updatedNumberScheduled"] == 3


def test_a_replayed_snapshot_keeps_its_pods():
    """Pods of a live cluster carry Kubernetes' hash, which drasim cannot compute: not a reason to roll them."""
    ds = daemon_set("agent")
    ds["metadata"].update(uid="ds-uid", annotations={"deprecated.daemonset.template.generation": "4"})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "agent-x7k2p", "namespace": "default", "uid": "pod-uid",
        "labels": {"app": "agent", "controller-revision-hash": "6b7d9c8f4", "pod-template-generation": "4"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-uid",
                             "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"nodeName": "n1", "containers": [{"name": "main", "image": "registry.example.com/app:1"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    cp = control_plane(node("n1"), node("n2"), ds, pod)
    got = pods(cp)
    assert "agent-x7k2p" in got and not events(cp, "SuccessfulDelete")
    new, = (p for name, p in got.items() if name != "agent-x7k2p")
    assert new["spec"]["nodeName"] == "n2"
    assert new["metadata"]["labels"]["controller-revision-hash"] == "6b7d9c8f4", "the cluster's hash names the template"
    assert cp.store.get("DaemonSet", "default", "agent")["status"]["updatedNumberScheduled"] == 2


def test_a_failed_daemon_pod_is_replaced_with_backoff_and_the_run_settles():
    from workloadkit import set_phase
    cp = control_plane(node("n1"), daemon_set("agent"))
    replaced = 0
    for _ in range(15):
        live = [p for p in pods(cp).values() if p["status"]["phase"] != "Failed"]
        if not live:
            break
        set_phase(cp, live[0], "Failed")
        cp.settle()
        replaced += 1
    warnings = events(cp, "FailedDaemonPod")
    assert warnings[0]["message"].startswith("Found failed daemon pod default/agent-") and warnings[0]["type"] == "Warning"
    assert 5 <= replaced < 15, "replaced with backoff, until the cap stops it"


def test_a_big_daemonset_is_synced_a_few_times_not_once_per_pod_event(monkeypatch):
    """Workload controllers run when the scheduler and kubelets are quiet, so their syncs coalesce."""
    from drasim.controllers.workloads.daemonset import DaemonSetController
    calls = []
    original = DaemonSetController.sync
    monkeypatch.setattr(DaemonSetController, "sync", lambda self, ds: (calls.append(1), original(self, ds)))
    cp = control_plane(*[node(f"n{i}") for i in range(100)], daemon_set("agent"))
    assert len(pods(cp)) == 100 and all(p["status"]["phase"] == "Running" for p in pods(cp).values())
    assert len(calls) <= 5


def test_a_no_schedule_taint_added_later_leaves_the_pod_as_misscheduled():
    """k8s: shouldContinueRunning stays true without an untolerated NoExecute taint."""
    cp = control_plane(node("n1"), node("n2"), daemon_set("agent"))
    cp.run_phase(docs(node("n2", taints=[taint("dedicated", "NoSchedule", "infra")])))
    assert sorted(p["spec"]["nodeName"] for p in pods(cp).values()) == ["n1", "n2"]
    status = cp.store.get("DaemonSet", "default", "agent")["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberMisscheduled"]) == (1, 1, 1)
