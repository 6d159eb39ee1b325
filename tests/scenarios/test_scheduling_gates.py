"""Scheduling gates: a pod created with spec.schedulingGates is PodScheduled=False/SchedulingGated
(pkg/registry/core/pod/strategy.go applySchedulingGatedCondition), held before the scheduling
queue (plugins/schedulinggates PreEnqueue), and tried as soon as its last gate is removed
(UpdatePodSchedulingGatesEliminated), not before and not by other cluster events."""
import copy

import pytest

from drasim.controlplane import ControlPlane

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


def pod(name: str, *gates: str) -> dict:
    spec = {"containers": [{"name": "c", "image": "i"}]}
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def stored(cp, name="p") -> dict:
    return cp.store.get("Pod", "default", name)


def scheduled_condition(p: dict) -> dict:
    [cond] = [c for c in p["status"].get("conditions") or () if c["type"] == "PodScheduled"]
    return cond


def ungate(cp, name: str, keep: tuple[str, ...] = ()) -> None:
    old = stored(cp, name)
    new = copy.deepcopy(old)
    new["spec"]["schedulingGates"] = [{"name": g} for g in keep]
    if not keep:
        del new["spec"]["schedulingGates"]
    cp.update(new, old)
    cp.settle()


def test_a_gated_pod_waits_with_the_api_servers_condition_and_no_scheduling_attempt():
    cp = ControlPlane()
    cp.create(NODE)
    cp.create(pod("p", "example.com/a", "example.com/b"))
    cp.settle()
    p = stored(cp)
    assert p["spec"].get("nodeName") is None and p["status"]["phase"] == "Pending"
    cond = scheduled_condition(p)
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
    assert cp.scheduler.pre_enqueue_rejection(p) == (
        "SchedulingGates", "waiting for scheduling gates: [example.com/a example.com/b]")
    # PreEnqueue writes nothing: no FailedScheduling event (scheduling_queue.go runPreEnqueuePlugins)
    assert not [e for e in cp.store.list("Event", "default") if e.get("reason") == "FailedScheduling"]


def test_removing_one_gate_keeps_it_held_removing_the_last_schedules_it():
    cp = ControlPlane()
    cp.create(NODE)
    cp.create(pod("p", "example.com/a", "example.com/b"))
    cp.settle()
    ungate(cp, "p", keep=("example.com/b",))
    assert stored(cp)["spec"].get("nodeName") is None
    assert cp.scheduler.pre_enqueue_rejection(stored(cp)) == (
        "SchedulingGates", "waiting for scheduling gates: [example.com/b]")
    ungate(cp, "p")
    p = stored(cp)
    assert p["spec"]["nodeName"] == "n1" and p["status"]["phase"] == "Running"
    assert scheduled_condition(p)["status"] == "True"


def test_an_ungated_pod_that_does_not_fit_overwrites_the_condition_with_unschedulable():
    cp = ControlPlane()
    cp.create(pod("p", "example.com/a"))   # no nodes at all
    cp.settle()
    before = scheduled_condition(stored(cp))
    ungate(cp, "p")
    cond = scheduled_condition(stored(cp))
    assert cond["reason"] == "Unschedulable" and "no nodes available" in cond["message"]
    # the status stayed False: the transition time is the gated condition's (podutil.UpdatePodCondition)
    assert cond["lastTransitionTime"] == before["lastTransitionTime"]


def test_other_cluster_events_do_not_try_a_gated_pod():
    cp = ControlPlane()
    cp.create(NODE)
    cp.create(pod("p", "example.com/a"))
    cp.settle()
    attempts = cp.scheduler.attempts
    cp.create(CLASS)      # a DRA event: moves pods held by DRA's PreEnqueue, not this one
    cp.settle()
    assert cp.scheduler.attempts == attempts
    cp.create(dict(NODE, metadata={"name": "n2"}))    # a node event moves every unschedulable pod (k8s too)
    cp.settle()
    assert stored(cp)["spec"].get("nodeName") is None
    assert cp.scheduler.pre_enqueue_rejection(stored(cp))[0] == "SchedulingGates"


@pytest.mark.parametrize("gates", [(), ("example.com/a",)])
def test_the_condition_is_made_at_creation_only(gates):
    cp = ControlPlane()
    cp.create(pod("p", *gates))
    cp.settle()
    conds = [c for c in stored(cp)["status"].get("conditions") or () if c.get("reason") == "SchedulingGated"]
    assert len(conds) == (1 if gates else 0)
