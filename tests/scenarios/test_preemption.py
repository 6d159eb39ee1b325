"""DefaultPreemption: lower-priority pods make room for a higher-priority one (k8s: preemption.go)."""
from drasim.controlplane import ControlPlane


def node(cp, name, cpu="4"):
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}}})


def pod(cp, name, cpu, priority=0, **spec):
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": {"priority": priority, "containers": [{"name": "c", "image": "i",
                                                              "resources": {"requests": {"cpu": cpu}}}], **spec}})
    cp.settle()


def condition(cp, name):
    p = cp.store.get("Pod", "default", name)
    return next(c for c in p["status"]["conditions"] if c["type"] == "PodScheduled")


def test_higher_priority_pod_preempts_lower():
    """The low-priority pod is evicted (event Preempted) and the high-priority pod takes its place."""
    cp = ControlPlane()
    node(cp, "n1")
    pod(cp, "low", "3", priority=10)
    pod(cp, "high", "2", priority=1000)
    assert cp.store.get("Pod", "default", "low") is None
    high = cp.store.get("Pod", "default", "high")
    assert high["spec"]["nodeName"] == "n1" and "nominatedNodeName" not in high["status"]
    reasons = [e["reason"] for e in cp.store.list("Event", "default") if e["involvedObject"]["name"] == "low"]
    assert "Preempted" in reasons


def test_minimal_victims_and_reprieve():
    """Only as many victims as needed are evicted, the most important ones reprieved first."""
    cp = ControlPlane()
    node(cp, "n1")
    pod(cp, "a", "1", priority=1)
    pod(cp, "b", "1", priority=5)
    pod(cp, "c", "2", priority=5)
    pod(cp, "high", "1", priority=100)
    names = {p["metadata"]["name"] for p in cp.store.list("Pod")}
    assert names == {"b", "c", "high"}   # only "a" had to go


def test_no_victims_message():
    """Equal priority: nothing to preempt, and the condition says so as kube-scheduler does."""
    cp = ControlPlane()
    node(cp, "n1")
    pod(cp, "first", "3")
    pod(cp, "second", "2")
    assert condition(cp, "second")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_preemption_policy_never():
    """preemptionPolicy Never: not eligible."""
    cp = ControlPlane()
    node(cp, "n1")
    pod(cp, "low", "3", priority=1)
    pod(cp, "polite", "2", priority=100, preemptionPolicy="Never")
    assert cp.store.get("Pod", "default", "low") is not None
    assert condition(cp, "polite")["message"].endswith("preemption: not eligible due to preemptionPolicy=Never.")
