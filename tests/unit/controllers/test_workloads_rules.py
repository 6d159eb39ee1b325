"""Rules of the workload controllers, one by one (k8s: deployment_util.go, controller_utils.go,
replica_set.go)."""
import pytest
from hypothesis import given, strategies as st

from drasim.controllers.workloads import deploymentutil as du
from drasim.controllers.workloads.ranking import rank_for_deletion
from drasim.controllers.workloads.replicaset import slow_start_batch
from drasim.sim.clock import parse_time


def deployment(replicas, surge="25%", unavailable="25%", type_="RollingUpdate"):
    strategy = {"type": type_}
    if type_ == "RollingUpdate":
        strategy["rollingUpdate"] = {"maxSurge": surge, "maxUnavailable": unavailable}
    return {"metadata": {"name": "d"}, "spec": {"replicas": replicas, "strategy": strategy}}


@pytest.mark.parametrize("surge, unavailable, desired, expected", [
    ("25%", "25%", 3, (1, 0)),      # surge rounds up, unavailable rounds down
    ("25%", "25%", 4, (1, 1)),
    ("25%", "25%", 10, (3, 2)),
    ("1%", "0%", 2, (1, 0)),
    ("0%", "1%", 2, (0, 1)),        # both resolve to 0: unavailable becomes 1
    (0, "10%", 5, (0, 1)),
    (2, 3, 10, (2, 3)),
    ("100%", "100%", 3, (3, 3)),
])
def test_fenceposts(surge, unavailable, desired, expected):
    assert du.resolve_fenceposts(surge, unavailable, desired) == expected


def test_max_unavailable_is_capped_by_replicas_and_zero_for_recreate():
    assert du.max_unavailable(deployment(2, 0, 5)) == 2
    assert du.max_unavailable(deployment(0)) == 0
    assert du.max_surge(deployment(3, type_="Recreate")) == 0


@given(st.integers(0, 1000), st.integers(0, 100), st.integers(0, 100))
def test_percentages_round_as_kubernetes_does(desired, surge_pct, unavailable_pct):
    surge, unavailable = du.resolve_fenceposts(f"{surge_pct}%", f"{unavailable_pct}%", desired)
    assert surge == -(-surge_pct * desired // 100)
    assert unavailable == (unavailable_pct * desired // 100 or (1 if surge == 0 else 0))


def test_new_replica_set_grows_up_to_replicas_plus_surge():
    d = deployment(3, surge=1, unavailable=0)
    old = {"metadata": {"name": "old"}, "spec": {"replicas": 3}}
    new = {"metadata": {"name": "new"}, "spec": {"replicas": 0}}
    assert du.new_rs_new_replicas(d, [old, new], new) == 1
    assert du.new_rs_new_replicas(deployment(3, type_="Recreate"), [old, new], new) == 3


def test_template_hash_is_stable_and_changes_with_template_and_collisions():
    t = {"metadata": {"labels": {"app": "demo"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    h = du.compute_hash(t, None)
    assert h == du.compute_hash({"spec": t["spec"], "metadata": t["metadata"]}, None)   # key order is irrelevant
    assert set(h) <= set("bcdfghjklmnpqrstvwxz2456789") and 1 <= len(h) <= 10
    assert du.compute_hash(t, 1) != h
    changed = {**t, "spec": {"containers": [{"name": "c", "image": "j"}]}}
    assert du.compute_hash(changed, None) != h


def test_equal_ignore_hash_ignores_only_the_hash_label():
    a = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": []}}
    b = {"metadata": {"labels": {"app": "x", "pod-template-hash": "abc"}}, "spec": {}}
    assert du.equal_ignore_hash(a, b)
    assert not du.equal_ignore_hash(a, {"metadata": {"labels": {"app": "y"}}})


def test_proportion_scales_by_max_replicas_annotation():
    d = deployment(20, surge=3, unavailable=0)
    rs = {"metadata": {"annotations": {du.MAX_REPLICAS: "13"}}, "spec": {"replicas": 5}}
    # 5 * 23 / 13 = 8.85 → 9: four more, but never more than allowed.
    assert du.get_proportion(rs, d, 10, 0) == 4
    assert du.get_proportion(rs, d, 2, 0) == 2


def test_set_condition_keeps_transition_time_for_the_same_status():
    status = {}
    du.set_condition(status, du.new_condition("Progressing", "True", "NewReplicaSetCreated", "m", "t1"))
    du.set_condition(status, du.new_condition("Available", "False", "MinimumReplicasUnavailable", "m", "t1"))
    du.set_condition(status, du.new_condition("Progressing", "True", "ReplicaSetUpdated", "m", "t2"))
    assert [c["type"] for c in status["conditions"]] == ["Available", "Progressing"]
    assert status["conditions"][1]["lastTransitionTime"] == "t1" and status["conditions"][1]["lastUpdateTime"] == "t2"


def test_slow_start_batches_double_and_stop_at_the_first_failing_batch():
    calls = []

    def fn():
        calls.append(1)
        return ValueError("no") if len(calls) == 5 else None

    successes, error = slow_start_batch(10, 1, fn)
    assert len(calls) == 7 and successes == 6 and str(error) == "no"   # batches 1, 2, 4 (the failing one)


def pod(name, node="", phase="Running", ready=True, created="2026-01-01T00:00:00Z", ready_at=None, cost=None):
    md = {"name": name, "uid": name, "creationTimestamp": created}
    if cost is not None:
        md["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
    conditions = [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": ready_at or created}]
    return {"metadata": md, "spec": {"nodeName": node}, "status": {"phase": phase, "conditions": conditions}}


NOW = parse_time("2026-01-02T00:00:00Z")


def order(pods, related=None):
    return [p["metadata"]["name"] for p in rank_for_deletion(pods, related or pods, NOW)]


def test_active_pods_ranking():
    assert order([pod("running", "n1"), pod("unscheduled", phase="Pending", ready=False)]) == ["unscheduled", "running"]
    assert order([pod("running", "n1"), pod("pending", "n1", phase="Pending", ready=False)]) == ["pending", "running"]
    assert order([pod("ready", "n1"), pod("notready", "n1", ready=False)]) == ["notready", "ready"]
    assert order([pod("dear", "n1", cost=10), pod("cheap", "n2", cost=-5)]) == ["cheap", "dear"]
    # doubled up: the pod sharing its node with more related pods goes first
    a, b, c = pod("alone", "n1"), pod("crowded", "n2"), pod("neighbour", "n2")
    assert order([a, b], [a, b, c]) == ["crowded", "alone"]
    # ready for less time goes first (power-of-two age buckets)
    old = pod("old", "n1", ready_at="2025-12-01T00:00:00Z")
    young = pod("young", "n2", ready_at="2026-01-01T23:59:00Z")
    assert order([old, young]) == ["young", "old"]
