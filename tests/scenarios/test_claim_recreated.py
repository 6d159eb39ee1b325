"""The resourceclaim controller makes a template's claim again when the claim recorded in
pod.status.resourceClaimStatuses is gone (k8s: pkg/controller/resourceclaim/controller.go
handleClaim, "perhaps it was deleted accidentally. In that case we re-create it"), and only then:
not for a pod that is done or being deleted, and not while the claim only awaits deletion."""
from drasim.controlplane import ControlPlane

GPU_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                  "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "g0"}]}}
TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "tpl", "namespace": "default"},
            "spec": {"metadata": {"labels": {"team": "a"}},
                     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
       "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "tpl"}]}}


def plane(*objects) -> ControlPlane:
    cp = ControlPlane()
    for obj in (GPU_CLASS, NODE, TEMPLATE, POD, *objects):
        cp.create(obj)
    cp.settle()
    return cp


def recorded(cp) -> str:
    [status] = cp.store.get("Pod", "default", "p")["status"]["resourceClaimStatuses"]
    assert status["name"] == "gpu"
    return status["resourceClaimName"]


def test_a_pending_pods_deleted_claim_is_made_again_and_the_pod_then_runs():
    cp = plane()   # no devices yet: the pod waits, its claim unallocated (no finalizer)
    first = recorded(cp)
    assert cp.store.get("Pod", "default", "p")["spec"].get("nodeName") is None
    cp.delete("ResourceClaim", "default", first)
    cp.settle()
    second = recorded(cp)
    assert second != first and second.startswith("p-gpu-")
    claim = cp.store.get("ResourceClaim", "default", second)
    assert claim["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] == "gpu"
    assert claim["metadata"]["labels"] == {"team": "a"}
    assert [r["kind"] for r in claim["metadata"]["ownerReferences"]] == ["Pod"]
    assert [c["metadata"]["name"] for c in cp.store.list("ResourceClaim", "default")] == [second]
    cp.create(SLICE)
    cp.settle()
    pod = cp.store.get("Pod", "default", "p")
    assert pod["spec"]["nodeName"] == "n1" and pod["status"]["phase"] == "Running"
    assert cp.store.get("ResourceClaim", "default", second)["status"]["allocation"]["devices"]["results"][0][
        "device"] == "g0"


def test_a_claim_in_use_only_awaits_deletion_and_is_not_replaced():
    cp = plane(SLICE)
    name = recorded(cp)
    assert cp.store.get("Pod", "default", "p")["status"]["phase"] == "Running"
    cp.delete("ResourceClaim", "default", name)   # the delete-protection finalizer holds it
    cp.settle()
    claim = cp.store.get("ResourceClaim", "default", name)
    assert claim["metadata"].get("deletionTimestamp")
    assert recorded(cp) == name and len(cp.store.list("ResourceClaim", "default")) == 1


def test_a_claim_replaced_by_one_the_pod_does_not_own_gets_a_new_one_beside_it():
    cp = plane()
    name = recorded(cp)
    cp.delete("ResourceClaim", "default", name)
    # The same name again before the controller looks, a user's claim: handleClaim, "claim that was
    # created for the pod is no longer owned by the pod, creating a new one"; the user's stays.
    cp.store.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": name, "namespace": "default"},
                     "spec": TEMPLATE["spec"]["spec"]})
    cp.settle()
    new = recorded(cp)
    assert new != name
    owners = {c["metadata"]["name"]: [r["name"] for r in c["metadata"].get("ownerReferences") or ()]
              for c in cp.store.list("ResourceClaim", "default")}
    assert owners == {name: [], new: ["p"]}


def test_a_done_pods_claim_is_not_made_again():
    cp = plane(SLICE)
    pod = cp.store.get("Pod", "default", "p")
    cp.store.update_status(dict(pod, status=dict(pod["status"], phase="Succeeded")))
    cp.settle()   # the controller frees and deletes the claim of a pod that is done
    assert cp.store.list("ResourceClaim", "default") == []
    assert recorded(cp)   # still recorded, not replaced
