"""Open-ended inputs for the workload controllers: whatever the sequence of scales and pod outcomes,
the invariants Kubernetes keeps hold and every run settles."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.controllers.workloads.job import completion_index
from workloadkit import control_plane, docs, job, node, pods, set_phase, stateful_set


@settings(max_examples=25, deadline=None)
@given(start=st.integers(0, 3), policy=st.sampled_from(["OrderedReady", "Parallel"]),
       scales=st.lists(st.integers(0, 5), min_size=1, max_size=4))
def test_statefulset_pods_are_always_exactly_the_ordinal_range(start, policy, scales):
    cp = control_plane(node("n1"), stateful_set("web", scales[0], podManagementPolicy=policy,
                                                  ordinals={"start": start}))
    for replicas in scales[1:] + [scales[-1]]:
        cp.run_phase(docs(stateful_set("web", replicas, podManagementPolicy=policy, ordinals={"start": start})))
        assert sorted(pods(cp)) == sorted(f"web-{i}" for i in range(start, start + replicas))
        status = cp.store.get("StatefulSet", "default", "web")["status"]
        assert status["replicas"] == status["availableReplicas"] == replicas


@settings(max_examples=25, deadline=None)
@given(parallelism=st.integers(1, 4), completions=st.integers(1, 6), indexed=st.booleans(),
       outcomes=st.lists(st.booleans(), min_size=1, max_size=30))
def test_job_never_exceeds_parallelism_and_finishes(parallelism, completions, indexed, outcomes):
    spec = {"parallelism": parallelism, "completions": completions, "backoffLimit": 3}
    if indexed:
        spec["completionMode"] = "Indexed"
    cp = control_plane(node("n1"), job("j", **spec), kubelets=False)
    outcomes = iter(outcomes)
    for _ in range(60):
        active = [p for p in pods(cp).values() if p["status"]["phase"] in ("Pending", "Running")]
        status = cp.store.get("Job", "default", "j")["status"]
        assert len(active) <= parallelism and status.get("active", 0) == len(active)
        assert status.get("succeeded", 0) <= completions
        if indexed:
            indexes = [completion_index(p) for p in active]
            assert len(set(indexes)) == len(indexes) and all(0 <= i < completions for i in indexes)
        if any(c["type"] in ("Complete", "Failed") for c in status.get("conditions", ())):
            assert not active
            return
        pod = min(active, key=lambda p: p["metadata"]["name"])
        cp.clock.advance(1)
        set_phase(cp, pod, "Succeeded" if next(outcomes, True) else "Failed")
        cp.settle()
    raise AssertionError("the job did not finish")


_TAINTS = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"},
           {"key": "maintenance", "effect": "NoExecute"},
           {"key": "spot", "effect": "PreferNoSchedule"},
           {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
           {"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]
_TOLERATIONS = [{"key": "dedicated", "operator": "Exists"}, {"key": "maintenance", "operator": "Exists"},
                {"operator": "Exists", "effect": "NoSchedule"}]


@settings(max_examples=30, deadline=None)
@given(nodes=st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(range(len(_TAINTS))), unique=True, max_size=3),
                                st.booleans()), min_size=1, max_size=5),
       select_gpu=st.booleans(), tolerations=st.lists(st.sampled_from(range(len(_TOLERATIONS))), unique=True),
       host_network=st.booleans())
def test_daemon_pods_run_exactly_where_the_controller_and_the_scheduler_both_admit_them(
        nodes, select_gpu, tolerations, host_network):
    """NodeShouldRunDaemonPod and the scheduler's filters (affinity, taints, unschedulable) agree."""
    from drasim.controllers.workloads.daemonset import should_run
    from workloadkit import daemon_set
    objs = [node(f"n{i}", labels={"gpu": "true"} if gpu else {}, taints=[_TAINTS[t] for t in taints],
                 unschedulable=cordoned) for i, (gpu, taints, cordoned) in enumerate(nodes)]
    spec = {"tolerations": [_TOLERATIONS[t] for t in tolerations]}
    if select_gpu:
        spec["nodeSelector"] = {"gpu": "true"}
    if host_network:
        spec["hostNetwork"] = True
    ds = daemon_set("agent", **spec)
    cp = control_plane(*objs, ds)
    expected = sorted(o["metadata"]["name"] for o in objs if should_run(o, ds)[0])
    placed = sorted(p["spec"].get("nodeName") for p in pods(cp).values() if p["status"]["phase"] == "Running")
    assert placed == expected
    assert len(pods(cp)) == len(expected), "no pod is made for a node that does not admit it"
