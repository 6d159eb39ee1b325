"""Gang scheduling (GenericWorkload, beta in v1.37, off by default): a PodGroup with minCount places all of
its pods at once or none (k8s: schedule_one_podgroup.go, plugins/gangscheduling). Expected outcomes are
from the source: PreEnqueue holds a gang until minCount pods exist; the group cycle reverts every
reservation when fewer than minCount fit; the guarantee is for the initial placement only."""
import pytest

from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for

DRIVER = "gpu.example.com"
ON = "GenericWorkload=true"


def cluster(flag: str = "", gpus_per_node: int = 4, nodes: int = 2) -> ControlPlane:
    cp = ControlPlane(options_for(featuregates.from_flag(flag)))
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    for n in range(nodes):
        name = f"node-{n}"
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}})
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
                   "spec": {"driver": DRIVER, "nodeName": name,
                            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                            "devices": [{"name": f"gpu-{i}"} for i in range(gpus_per_node)]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "one-gpu", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}})
    cp.settle()
    return cp


def pod_group(cp, name="train", min_count=8):
    """Applied as a manifest would be (with the gate off the API is not served: skipped, with a warning)."""
    from drasim.api import kinds
    from drasim.api.loader import Document

    cp.apply([Document("podgroup.yaml", kinds.POD_GROUP, {
        "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}})])


def gpu_pod(cp, name, group="train"):
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec})


def workers(cp, n=8):
    for i in range(n):
        gpu_pod(cp, f"worker-{i}")
    cp.settle()


def placed(cp):
    return sorted(p["metadata"]["name"] for p in cp.store.list("Pod", "default") if p["spec"].get("nodeName"))


def allocated_claims(cp):
    return [c["metadata"]["name"] for c in cp.store.list("ResourceClaim", "default")
            if (c.get("status") or {}).get("allocation")]


def message(cp, name):
    pod = cp.store.get("Pod", "default", name)
    cond = next((c for c in (pod.get("status") or {}).get("conditions") or () if c["type"] == "PodScheduled"), {})
    return cond.get("message")


def occupy_one_gpu(cp):
    gpu_pod(cp, "occupier", group=None)
    cp.settle()
    assert placed(cp) == ["occupier"]


def test_seven_free_gpus_gate_on_nothing_runs_and_no_device_is_held():
    cp = cluster(ON)
    occupy_one_gpu(cp)
    pod_group(cp)
    workers(cp)
    assert placed(cp) == ["occupier"]
    assert allocated_claims(cp) == [c["metadata"]["name"] for c in cp.store.list("ResourceClaim", "default")
                                    if c["metadata"]["name"].startswith("occupier")]
    waiting = [n for n in (f"worker-{i}" for i in range(8))
               if message(cp, n) == "waiting for minCount pods from a gang to be scheduled"]
    assert len(waiting) == 7
    [cond] = cp.store.get("PodGroup", "default", "train")["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("PodGroupInitiallyScheduled", "False", "Unschedulable")


def test_seven_free_gpus_gate_off_seven_run():
    cp = cluster()
    occupy_one_gpu(cp)
    pod_group(cp)
    assert any("PodGroup" in w and "GenericWorkload" in w for w in cp.warnings)
    workers(cp)
    assert len(placed(cp)) == 8      # the occupier and 7 workers
    assert "schedulingGroup" not in cp.store.get("Pod", "default", "worker-0")["spec"]   # dropped, gate off


def test_eight_free_gpus_all_run_and_the_group_is_marked_scheduled():
    cp = cluster(ON)
    pod_group(cp)
    workers(cp)
    assert placed(cp) == [f"worker-{i}" for i in range(8)]
    [cond] = cp.store.get("PodGroup", "default", "train")["status"]["conditions"]
    assert (cond["status"], cond["reason"]) == ("True", "Scheduled")


def test_freed_gpu_lets_the_whole_gang_in():
    cp = cluster(ON)
    occupy_one_gpu(cp)
    pod_group(cp)
    workers(cp)
    cp.delete("Pod", "default", "occupier")
    cp.settle()
    assert placed(cp) == [f"worker-{i}" for i in range(8)]


def test_fewer_pods_than_min_count_wait_before_the_queue():
    cp = cluster(ON)
    pod_group(cp)
    workers(cp, 7)
    assert placed(cp) == []
    held = cp.scheduler.pre_enqueue_rejection(cp.store.get("Pod", "default", "worker-0"))
    assert held == ("GangScheduling", "waiting for minCount pods from a gang to appear in scheduling queue")
    gpu_pod(cp, "worker-7")
    cp.settle()
    assert len(placed(cp)) == 8


def test_missing_pod_group_holds_the_pods():
    cp = cluster(ON)
    workers(cp, 2)
    held = cp.scheduler.pre_enqueue_rejection(cp.store.get("Pod", "default", "worker-0"))
    assert held == ("GangScheduling", 'waiting for pods\'s pod group "train" to appear in scheduling queue')
    pod_group(cp, min_count=2)
    cp.settle()
    assert placed(cp) == ["worker-0", "worker-1"]


def test_the_guarantee_is_for_the_initial_placement_only():
    """After the gang runs, deleting a member leaves the others running, and a replacement pod is
    scheduled on its own (minCount counts the members already bound)."""
    cp = cluster(ON)
    pod_group(cp)
    workers(cp)
    cp.delete("Pod", "default", "worker-3")
    cp.settle()
    assert len(placed(cp)) == 7
    gpu_pod(cp, "worker-3b")
    cp.settle()
    assert len(placed(cp)) == 8


@pytest.mark.parametrize("policy, message", [
    ({}, "spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"),
    ({"basic": {}, "gang": {"minCount": 2}},
     "exactly one of `basic`, `gang` is required, but multiple fields are set"),
    ({"gang": {"minCount": 0}}, "spec.schedulingPolicy.gang.minCount: Required value"),
])
def test_pod_group_validation(policy, message):
    from drasim.errors import InputError

    cp = cluster(ON)
    with pytest.raises(InputError) as e:
        cp.create({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                   "metadata": {"name": "g", "namespace": "default"}, "spec": {"schedulingPolicy": policy}})
    assert message in str(e.value)


def racks(flag):
    """rack-a: two nodes with 2 GPUs each (4); rack-b: two nodes with 3 GPUs each (6)."""
    cp = ControlPlane(options_for(featuregates.from_flag(flag)))
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    for rack, gpus in (("a", 2), ("b", 3)):
        for n in range(2):
            name = f"{rack}-{n}"
            cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"rack": rack}},
                       "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}})
            cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
                       "spec": {"driver": DRIVER, "nodeName": name,
                                "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                                "devices": [{"name": f"gpu-{i}"} for i in range(gpus)]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "one-gpu", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}})
    from drasim.api import kinds
    from drasim.api.loader import Document
    return cp, lambda n: cp.apply([Document("pg.yaml", kinds.POD_GROUP, {
        "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "train", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": n}}, "schedulingConstraints": {"topology": [{"key": "rack"}]}}})])


TOPOLOGY = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"


@pytest.mark.parametrize("flag, racks_used", [(TOPOLOGY, {"b"}), (ON, {"a", "b"})])
def test_topology_constraint_keeps_the_gang_in_one_rack(flag, racks_used):
    """Five workers: only rack-b (6 GPUs) holds them all; without the alpha gate the constraint is dropped
    and the workers spread over both racks (the scheduler's scoring, not the constraint, decides)."""
    cp, make_group = racks(flag)
    make_group(5)
    workers(cp, 5)
    nodes = [cp.store.get("Pod", "default", f"worker-{i}")["spec"].get("nodeName") for i in range(5)]
    assert all(nodes)
    used = {n.split("-")[0] for n in nodes}
    assert used == racks_used
    if flag != TOPOLOGY:
        assert "schedulingConstraints" not in cp.store.get("PodGroup", "default", "train")["spec"]


def test_no_rack_holds_the_gang():
    cp, make_group = racks(TOPOLOGY)
    make_group(7)
    workers(cp, 7)
    assert placed(cp) == []
    [cond] = cp.store.get("PodGroup", "default", "train")["status"]["conditions"]
    assert cond["message"].startswith("0/2 placements are available")


def test_a_fork_of_a_waiting_gang_continues_as_the_original():
    """ControlPlane.fork() carries the gang plugin's members and the queue: freeing the GPU in the fork
    lets the whole gang in there, while the original stays as it was."""
    cp = cluster(ON)
    occupy_one_gpu(cp)
    pod_group(cp)
    workers(cp)
    fork = cp.fork()
    fork.delete("Pod", "default", "occupier")
    fork.settle()
    assert placed(fork) == [f"worker-{i}" for i in range(8)]
    assert placed(cp) == ["occupier"]
    cp.delete("Pod", "default", "occupier")
    cp.settle()
    assert placed(cp) == placed(fork)
