"""StatefulSet controller: ordinal identity, ordered and parallel management, scale down, status, quota."""
from __future__ import annotations

import pytest

from drasim.controllers.workloads.statefulset import parent_and_ordinal, revision_name
from workloadkit import control_plane, docs, events, node, pods, quota, set_phase, stateful_set


def test_pods_get_ordinal_names_identity_labels_and_owner():
    cp = control_plane(node("n1"), stateful_set("web", 3))
    got = pods(cp)
    assert sorted(got) == ["web-0", "web-1", "web-2"]
    sts = cp.store.get("StatefulSet", "default", "web")
    for ordinal in range(3):
        pod = got[f"web-{ordinal}"]
        labels = pod["metadata"]["labels"]
        assert labels["statefulset.kubernetes.io/pod-name"] == f"web-{ordinal}"
        assert labels["apps.kubernetes.io/pod-index"] == str(ordinal)
        assert labels["controller-revision-hash"] == revision_name(sts)
        assert pod["spec"]["hostname"] == f"web-{ordinal}" and pod["spec"]["subdomain"] == "web"
        ref, = pod["metadata"]["ownerReferences"]
        assert ref == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
                       "uid": sts["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
        assert pod["status"]["phase"] == "Running"


def test_ordinals_start_shifts_the_names():
    cp = control_plane(node("n1"), stateful_set("web", 2, ordinals={"start": 5}))
    assert sorted(pods(cp)) == ["web-5", "web-6"]


def test_ordered_ready_waits_for_each_pod_to_be_running_and_ready():
    """k8s: processReplica returns in monotonic mode while ordinal i is not Running and Ready."""
    cp = control_plane(node("n1"), stateful_set("web", 3), kubelets=False)
    assert sorted(pods(cp)) == ["web-0"]
    set_phase(cp, pods(cp)["web-0"], "Running", ready=False)
    cp.settle()
    assert sorted(pods(cp)) == ["web-0"], "Running but not Ready is not enough"
    set_phase(cp, pods(cp)["web-0"], "Running")
    cp.settle()
    assert sorted(pods(cp)) == ["web-0", "web-1"]
    set_phase(cp, pods(cp)["web-1"], "Running")
    cp.settle()
    assert sorted(pods(cp)) == ["web-0", "web-1", "web-2"]


def test_parallel_creates_every_ordinal_at_once():
    cp = control_plane(node("n1"), stateful_set("web", 4, podManagementPolicy="Parallel"), kubelets=False)
    assert sorted(pods(cp)) == ["web-0", "web-1", "web-2", "web-3"]


def test_min_ready_seconds_delays_the_next_ordinal_on_the_virtual_clock():
    cp = control_plane(node("n1"), stateful_set("web", 2, minReadySeconds=30))
    got = pods(cp)
    ready_at = next(c["lastTransitionTime"] for c in got["web-0"]["status"]["conditions"] if c["type"] == "Ready")
    from drasim.sim.clock import parse_time
    assert parse_time(got["web-1"]["metadata"]["creationTimestamp"]) - parse_time(ready_at) == 30


def test_scale_down_removes_the_highest_ordinal_first():
    cp = control_plane(node("n1"), stateful_set("web", 4))
    cp.run_phase(docs(stateful_set("web", 1)))
    assert sorted(pods(cp)) == ["web-0"]
    deleted = [e["message"] for e in events(cp, "SuccessfulDelete")]
    assert deleted == [f"delete Pod web-{i} in StatefulSet web successful" for i in (3, 2, 1)]


def test_finished_pod_is_replaced():
    cp = control_plane(node("n1"), stateful_set("web", 2))
    old_uid = pods(cp)["web-1"]["metadata"]["uid"]
    set_phase(cp, pods(cp)["web-1"], "Failed")
    cp.settle()
    new = pods(cp)["web-1"]
    assert new["metadata"]["uid"] != old_uid and new["status"]["phase"] == "Running"


def test_status_counts_replicas_and_revisions():
    cp = control_plane(node("n1"), stateful_set("web", 2))
    sts = cp.store.get("StatefulSet", "default", "web")
    rev = revision_name(sts)
    assert sts["status"] == {"observedGeneration": 1, "replicas": 2, "readyReplicas": 2, "currentReplicas": 2,
                             "updatedReplicas": 2, "currentRevision": rev, "updateRevision": rev,
                             "collisionCount": 0, "availableReplicas": 2}


def test_template_change_rolls_pods_to_the_new_revision_from_the_top():
    cp = control_plane(node("n1"), stateful_set("web", 3))
    changed = stateful_set("web", 3)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/app:2"
    cp.run_phase(docs(changed))
    sts = cp.store.get("StatefulSet", "default", "web")
    assert all(p["spec"]["containers"][0]["image"].endswith(":2") for p in pods(cp).values())
    assert [e["message"] for e in events(cp, "SuccessfulDelete")] == [
        f"delete Pod web-{i} in StatefulSet web successful" for i in (2, 1, 0)]
    assert sts["status"]["currentRevision"] == sts["status"]["updateRevision"] == revision_name(sts)


def test_revision_hash_is_deterministic_and_follows_the_template():
    a, b = stateful_set("web"), stateful_set("web")
    a["metadata"]["uid"] = b["metadata"]["uid"] = "u"
    assert revision_name(a) == revision_name(b)
    b["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    assert revision_name(a) != revision_name(b)
    assert revision_name(a).startswith("web-")


def test_quota_applies_to_the_pods_it_creates():
    cp = control_plane(node("n1"), quota("pods", {"pods": "2"}), stateful_set("web", 3))
    assert sorted(pods(cp)) == ["web-0", "web-1"]
    failed, = {e["message"] for e in events(cp, "FailedCreate")}
    assert failed.startswith('create Pod web-2 in StatefulSet web failed error: pods "web-2" is forbidden: '
                             "exceeded quota: pods")
    cp.run_phase(docs(quota("pods", {"pods": "3"})))
    assert sorted(pods(cp)) == ["web-0", "web-1", "web-2"], "a quota with room lets the create through"


def test_orphan_pod_matching_the_selector_is_adopted_then_rolled_to_the_set_revision():
    """k8s: ClaimPods adopts it; lacking the set's controller-revision-hash it is replaced by the update."""
    orphan = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "default",
                                                              "labels": {"app": "web"}},
              "spec": {"containers": [{"name": "main", "image": "x"}]}}
    cp = control_plane(node("n1"), orphan, stateful_set("web", 1))
    pod = pods(cp)["web-0"]
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    assert [e["message"] for e in events(cp) if e["reason"] in ("SuccessfulDelete", "SuccessfulCreate")] == [
        "delete Pod web-0 in StatefulSet web successful", "create Pod web-0 in StatefulSet web successful"]
    assert pod["metadata"]["labels"]["controller-revision-hash"].startswith("web-")


@pytest.mark.parametrize("name,expected", [("web-0", ("web", 0)), ("a-b-12", ("a-b", 12)), ("web", ("", -1)),
                                           ("web-x", ("", -1)), ("web-99999999999", ("web", -1))])
def test_parent_and_ordinal(name, expected):
    assert parent_and_ordinal(name) == expected


def test_a_replayed_snapshot_keeps_its_pods_at_the_clusters_revision():
    """status.updateRevision of a snapshot names the template as it is: its pods are not rolled."""
    sts = stateful_set("web", 2)
    sts["metadata"]["uid"] = "sts-uid"
    sts["status"] = {"replicas": 2, "currentRevision": "web-7d4b9c6f5", "updateRevision": "web-7d4b9c6f5"}
    members = []
    for i in range(2):
        members.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"web-{i}", "namespace": "default", "uid": f"pod-{i}",
            "labels": {"app": "web", "controller-revision-hash": "web-7d4b9c6f5",
                       "statefulset.kubernetes.io/pod-name": f"web-{i}", "apps.kubernetes.io/pod-index": str(i)},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "sts-uid",
                                 "controller": True, "blockOwnerDeletion": True}]},
            "spec": {"nodeName": "n1", "hostname": f"web-{i}", "subdomain": "web",
                     "containers": [{"name": "main", "image": "registry.example.com/app:1"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    cp = control_plane(node("n1"), sts, *members)
    assert {p["metadata"]["uid"] for p in pods(cp).values()} == {"pod-0", "pod-1"}
    status = cp.store.get("StatefulSet", "default", "web")["status"]
    assert status["updateRevision"] == "web-7d4b9c6f5" and status["updatedReplicas"] == 2
    changed = stateful_set("web", 2)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/app:2"
    cp.run_phase(docs(changed))
    assert {p["metadata"]["uid"] for p in pods(cp).values()}.isdisjoint({"pod-0", "pod-1"}), "a real change rolls"
