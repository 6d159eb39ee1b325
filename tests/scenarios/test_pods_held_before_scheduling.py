"""Pods held back before scheduling, and what v1.37 shows for them.

- A missing ResourceClaim: DynamicResources' PreEnqueue rejects the pod (k8s:
  dynamicresources.go PreEnqueue → foreachPodResourceClaim → the lister's NotFound). The
  scheduling queue keeps it gated and writes nothing: no PodScheduled condition, no Event
  (v1.37 has no status reporting for PreEnqueue; core/v1 has no NotReadyForScheduling).
- A missing ResourceClaimTemplate: the resourceclaim controller records a Warning Event
  FailedResourceClaimCreation and retries (k8s: controller.go syncPod/handleClaim).
"""
from drasim.controlplane import ControlPlane

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                  "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "g0"}, {"name": "g1"}]}}
CLAIM_SPEC = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}


def pod(name: str, *entries: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i",
                                     "resources": {"claims": [{"name": e["name"]} for e in entries]}}],
                     "resourceClaims": list(entries)}}


def cluster() -> ControlPlane:
    cp = ControlPlane()
    for obj in (NODE, CLASS, SLICE):
        cp.create(obj)
    return cp


def events_about(cp: ControlPlane, name: str) -> list[dict]:
    return [e for e in cp.store.list("Event") if e["involvedObject"]["name"] == name]


def test_missing_claim_holds_the_pod_without_condition_or_event():
    cp = cluster()
    cp.create(pod("p", {"name": "gpu", "resourceClaimName": "nope"}))
    cp.settle()
    p = cp.store.get("Pod", "default", "p")
    assert not p["spec"].get("nodeName")
    assert p["status"]["phase"] == "Pending"
    assert not [c for c in p["status"].get("conditions") or () if c["type"] == "PodScheduled"]
    assert events_about(cp, "p") == []
    assert cp.scheduler.pre_enqueue_rejection(p) == (
        "DynamicResources", 'resourceclaim.resource.k8s.io "nope" not found')
    # The claim appears: the gated pod is tried and placed.
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "nope", "namespace": "default"}, "spec": CLAIM_SPEC})
    cp.settle()
    p = cp.store.get("Pod", "default", "p")
    assert p["spec"]["nodeName"] == "n1" and p["status"]["phase"] == "Running"
    assert cp.scheduler.pre_enqueue_rejection(p) is None


def test_missing_template_gives_the_controllers_warning_and_is_retried_when_it_appears():
    cp = cluster()
    cp.create(pod("p", {"name": "gpu", "resourceClaimTemplateName": "tpl"}))
    cp.settle()
    p = cp.store.get("Pod", "default", "p")
    assert not p["spec"].get("nodeName")
    assert not [c for c in p["status"].get("conditions") or () if c["type"] == "PodScheduled"]
    [event] = events_about(cp, "p")
    assert (event["type"], event["reason"], event["source"]["component"]) == (
        "Warning", "FailedResourceClaimCreation", "resource_claim")
    assert event["message"] == ('PodResourceClaim gpu: resource claim template "tpl": '
                                'resourceclaimtemplate.resource.k8s.io "tpl" not found')
    assert cp.scheduler.pre_enqueue_rejection(p) == (
        "DynamicResources", 'pod "default/p": ResourceClaim not created yet')
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "tpl", "namespace": "default"}, "spec": {"spec": CLAIM_SPEC}})
    cp.settle()
    p = cp.store.get("Pod", "default", "p")
    assert p["spec"]["nodeName"] == "n1" and p["status"]["phase"] == "Running"
    assert len(p["status"]["resourceClaimStatuses"]) == 1


def test_first_failing_entry_stops_the_sync_and_no_status_is_written():
    """k8s syncPod returns at the first entry that fails: entries after it get no claim and
    resourceClaimStatuses is not written, even for a claim made before it."""
    cp = cluster()
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "ok", "namespace": "default"}, "spec": {"spec": CLAIM_SPEC}})
    cp.create(pod("p", {"name": "a", "resourceClaimTemplateName": "ok"},
                  {"name": "b", "resourceClaimTemplateName": "missing"},
                  {"name": "c", "resourceClaimTemplateName": "ok"}))
    cp.settle()
    p = cp.store.get("Pod", "default", "p")
    assert not (p["status"].get("resourceClaimStatuses"))
    claims = cp.store.list("ResourceClaim", "default")
    assert [c["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] for c in claims] == ["a"]
