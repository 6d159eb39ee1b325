"""PodGroup claims (DRAWorkloadResourceClaims, beta in v1.37, off by default; needs GenericWorkload):
a PodGroup's ResourceClaim or template shared by its members, one reservedFor entry for the group.
k8s: dynamic-resource-allocation resourceclaim.BindTo / IsForPod / IsReservedForPod, the resourceclaim
controller's PodGroup sync (controller_test.go cases *-podgroup), KEP-5729."""
import pytest

from drasim import featuregates
from drasim.api import kinds
from drasim.api.loader import Document
from drasim.controlplane import ControlPlane, options_for

DRIVER = "gpu.example.com"
BOTH = "GenericWorkload=true,DRAWorkloadResourceClaims=true"


def cluster(flag: str, nodes: int = 2) -> ControlPlane:
    cp = ControlPlane(options_for(featuregates.from_flag(flag)))
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    for n in range(nodes):
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{n}"},
                   "status": {"allocatable": {"cpu": "1000", "memory": "1000Gi", "pods": "1000"}}})
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{n}"},
                   "spec": {"driver": DRIVER, "nodeName": f"node-{n}",
                            "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1},
                            "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "tpl", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}})
    cp.settle()
    return cp


def group(cp, entry: dict, name: str = "g"):
    cp.apply([Document("pg.yaml", kinds.POD_GROUP, {
        "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"basic": {}}, "resourceClaims": [entry]}})])
    cp.settle()


def member(cp, name: str, entry: dict, group_name: str = "g"):
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": {"schedulingGroup": {"podGroupName": group_name},
                        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": entry["name"]}]}}],
                        "resourceClaims": [dict(entry)]}})


def claims(cp):
    return cp.store.list("ResourceClaim", "default")


TEMPLATE = {"name": "gpu", "resourceClaimTemplateName": "tpl"}


def test_template_entry_gives_one_claim_for_the_whole_group():
    cp = cluster(BOTH)
    group(cp, TEMPLATE)
    for i in range(3):
        member(cp, f"p{i}", TEMPLATE)
    cp.settle()
    [claim] = claims(cp)
    owner = claim["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("PodGroup", "g", True)
    assert claim["metadata"]["annotations"]["resource.kubernetes.io/podgroup-claim-name"] == "gpu"
    assert claim["metadata"]["generateName"] == "g-gpu-"
    pg = cp.store.get("PodGroup", "default", "g")
    assert pg["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": claim["metadata"]["name"]}]
    pods = [cp.store.get("Pod", "default", f"p{i}") for i in range(3)]
    assert {p["status"]["resourceClaimStatuses"][0]["resourceClaimName"] for p in pods} == {claim["metadata"]["name"]}
    assert len({p["spec"].get("nodeName") for p in pods}) == 1 and pods[0]["spec"].get("nodeName")
    assert claim["status"]["reservedFor"] == [{"apiGroup": "scheduling.k8s.io", "resource": "podgroups",
                                               "name": "g", "uid": pg["metadata"]["uid"]}]
    assert all(p["status"]["phase"] == "Running" for p in pods)   # the kubelet accepts the group's reservation


def test_gate_off_each_member_gets_its_own_claim():
    cp = cluster("GenericWorkload=true")
    group(cp, TEMPLATE)
    for i in range(3):
        member(cp, f"p{i}", TEMPLATE)
    cp.settle()
    owners = sorted(c["metadata"]["ownerReferences"][0]["kind"] for c in claims(cp))
    assert owners == ["Pod", "Pod", "Pod"]
    assert sum(1 for c in claims(cp) if (c.get("status") or {}).get("allocation")) == 3


def test_the_group_going_away_releases_and_deletes_its_claim():
    cp = cluster(BOTH)
    group(cp, TEMPLATE)
    member(cp, "p0", TEMPLATE)
    cp.settle()
    [claim] = claims(cp)
    assert claim["status"].get("allocation")
    cp.delete("Pod", "default", "p0")
    cp.delete("PodGroup", "default", "g")
    cp.settle()
    assert claims(cp) == []


@pytest.mark.parametrize("flag, running", [(BOTH, 300), ("GenericWorkload=true", 256)])
def test_one_reservation_for_the_group_lifts_the_256_consumer_limit(flag, running):
    """A shared claim by name: without the group entry each pod takes one of the 256 reservedFor slots."""
    cp = cluster(flag, nodes=1)
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
    entry = {"name": "gpu", "resourceClaimName": "shared"}
    group(cp, entry)
    for i in range(300):
        member(cp, f"p{i:03d}", entry)
    cp.settle()
    assert sum(1 for p in cp.store.list("Pod", "default") if p["spec"].get("nodeName")) == running
    reserved = cp.store.get("ResourceClaim", "default", "shared")["status"]["reservedFor"]
    assert len(reserved) == (1 if flag == BOTH else 256)


def test_a_groups_deleted_claim_is_made_again():
    """Before any member is scheduled (no finalizer yet) the group's claim is deleted: the
    controller makes another and records it in the group's status."""
    cp = cluster(BOTH)
    group(cp, TEMPLATE)
    [first] = claims(cp)
    cp.delete("ResourceClaim", "default", first["metadata"]["name"])
    cp.settle()
    [second] = claims(cp)
    assert second["metadata"]["name"] != first["metadata"]["name"]
    [status] = cp.store.get("PodGroup", "default", "g")["status"]["resourceClaimStatuses"]
    assert status == {"name": "gpu", "resourceClaimName": second["metadata"]["name"]}
