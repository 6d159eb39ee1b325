"""DefaultPreemption: lower-priority pods make room for a higher-priority one (k8s: preemption.go)."""
from drasim.controlplane import ControlPlane
from tests.priority import prioritise


def node(cp, name, cpu="4"):
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}}})


def pod(cp, name, cpu, priority=0, **spec):
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": prioritise(cp, {"priority": priority, "containers": [{"name": "c", "image": "i",
                                       "resources": {"requests": {"cpu": cpu}}}], **spec})})
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


def _bind(cp, name, node_name, cpu, priority, started):
    """A running pod as a snapshot holds it: bound, with its start time."""
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": {"priority": priority, "nodeName": node_name,
                        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]},
               "status": {"phase": "Running", "startTime": started}})


def test_negative_priorities_evict_the_fewer_pods():
    """pickOneNodeForPreemption offsets each victim's priority by MaxInt32+1 before summing: two
    victims of priority -10 weigh more than one, so the node with one victim is chosen."""
    cp = ControlPlane()
    node(cp, "two-small", cpu="2")
    node(cp, "one-big", cpu="2")
    _bind(cp, "small-1", "two-small", "1", -10, "2026-01-01T00:00:00Z")
    _bind(cp, "small-2", "two-small", "1", -10, "2026-01-01T00:00:00Z")
    _bind(cp, "big", "one-big", "2", -10, "2026-01-01T00:00:00Z")
    cp.settle()
    pod(cp, "high", "2", priority=0)
    assert {p["metadata"]["name"] for p in cp.store.list("Pod")} == {"small-1", "small-2", "high"}
    assert cp.store.get("Pod", "default", "high")["spec"]["nodeName"] == "one-big"


def test_ties_go_to_the_node_whose_most_important_victims_started_last():
    """util.GetEarliestPodStartTime: the *earliest* start among the highest-priority victims
    counts; the node where that is latest wins (here b: its earliest is 02:00, a's is 01:00,
    although a's latest victim started last)."""
    cp = ControlPlane()
    node(cp, "a", cpu="2")
    node(cp, "b", cpu="2")
    _bind(cp, "a-1", "a", "1", 5, "2026-01-01T01:00:00Z")
    _bind(cp, "a-2", "a", "1", 5, "2026-01-01T05:00:00Z")
    _bind(cp, "b-1", "b", "1", 5, "2026-01-01T02:00:00Z")
    _bind(cp, "b-2", "b", "1", 5, "2026-01-01T03:00:00Z")
    cp.settle()
    pod(cp, "high", "2", priority=100)
    assert cp.store.get("Pod", "default", "high")["spec"]["nodeName"] == "b"
    assert {p["metadata"]["name"] for p in cp.store.list("Pod")} == {"a-1", "a-2", "high"}


def _gpu_cluster(cp):
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu", "labels": {"kubernetes.io/hostname": "gpu"}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "gpu"},
               "spec": {"driver": "gpu.example.com", "nodeName": "gpu",
                        "pool": {"name": "gpu", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "gpu-0"}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "one-gpu", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}}}})


def _gpu_pod(cp, name, priority, cpu="1"):
    pod(cp, name, cpu, priority=priority, resourceClaims=[{"name": "g", "resourceClaimTemplateName": "one-gpu"}])


def test_no_preemption_to_free_a_device():
    """v1.37's DynamicResources has no PreFilterExtensions: removing a victim in the preemption
    what-if does not free its devices, so a high-priority pod that needs the device held by a
    low-priority pod stays Pending, and the low-priority pod keeps running (seed 003)."""
    cp = ControlPlane()
    _gpu_cluster(cp)
    _gpu_pod(cp, "low", priority=1)
    _gpu_pod(cp, "high", priority=1000)
    assert cp.store.get("Pod", "default", "low")["spec"]["nodeName"] == "gpu"
    assert "nodeName" not in cp.store.get("Pod", "default", "high")["spec"]
    assert condition(cp, "high")["message"] == (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: "
        "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    # Nothing was evicted on the pending pod's behalf.
    assert not [e for e in cp.store.list("Event", "default") if e.get("reason") == "Preempted"]


def test_preemption_for_cpu_still_works_next_to_devices():
    """The same cluster: a high-priority pod short of CPU (not of devices) does preempt."""
    cp = ControlPlane()
    _gpu_cluster(cp)
    _gpu_pod(cp, "low", priority=1, cpu="3")
    pod(cp, "high", "2", priority=1000)
    assert cp.store.get("Pod", "default", "low") is None
    assert cp.store.get("Pod", "default", "high")["spec"]["nodeName"] == "gpu"
    # The victim's claim was generated for it: it goes with the pod and frees the device.
    assert not [c for c in cp.store.list("ResourceClaim") if (c.get("status") or {}).get("allocation")]
