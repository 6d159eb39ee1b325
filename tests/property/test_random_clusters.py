"""Property: random *valid* clusters settle without crashing, and the settled state is consistent.

Invariants checked on every run:
- no device is allocated exclusively to two claims;
- every bound pod's claims (direct, template and extended-resource) are allocated and
  reserved for it;
- a pod is Running only when bound;
- the same input gives the same output.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.controlplane import ControlPlane
from drasim.errors import InputError

DRIVER = "gpu.example.com"
SELECTORS = [None, 'device.attributes["gpu.example.com"].mem >= 40',
             'device.attributes["gpu.example.com"].model == "a"', '"mem" in device.attributes["gpu.example.com"]']


@st.composite
def device(draw, i):
    d = {"name": f"g{i}", "attributes": {"model": {"string": draw(st.sampled_from(["a", "b"]))}}}
    if draw(st.booleans()):
        d["attributes"]["mem"] = {"int": draw(st.sampled_from([20, 40, 80]))}
    if draw(st.integers(0, 6)) == 0:
        d["taints"] = [{"key": "k", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))}]
    return d


@st.composite
def exactly(draw):
    body = {"deviceClassName": draw(st.sampled_from(["gpu", "gpu-a"]))}
    mode = draw(st.integers(0, 5))
    if mode == 0:
        body["allocationMode"] = "All"
    else:
        body["count"] = draw(st.integers(1, 2))
    sel = draw(st.sampled_from(SELECTORS))
    if sel:
        body["selectors"] = [{"cel": {"expression": sel}}]
    if draw(st.integers(0, 4)) == 0:
        body["tolerations"] = [{"operator": "Exists", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute"]))}]
    return body


@st.composite
def claim_spec(draw):
    requests = []
    for r in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 3)) == 0:
            requests.append({"name": f"r{r}", "firstAvailable": [
                dict(draw(exactly()), name="first"), dict(draw(exactly()), name="second")]})
        else:
            requests.append({"name": f"r{r}", "exactly": draw(exactly())})
    spec = {"devices": {"requests": requests}}
    if len(requests) == 2 and draw(st.booleans()):
        spec["devices"]["constraints"] = [{"matchAttribute": "gpu.example.com/model"}]
    return spec


@st.composite
def cluster(draw):
    objs: list[dict] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}],
                  "extendedResourceName": "example.com/gpu"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu-a"},
         "spec": {"selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a"'}}]}},
    ]
    for n in range(draw(st.integers(1, 3))):
        alloc = {"cpu": "4", "memory": "8Gi", "pods": "10"}
        if draw(st.integers(0, 3)) == 0:
            alloc["example.com/gpu"] = str(draw(st.integers(0, 2)))
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{n}"},
                     "status": {"allocatable": alloc}})
        devices = [draw(device(i)) for i in range(draw(st.integers(0, 4)))]
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s{n}"},
                     "spec": {"driver": DRIVER, "nodeName": f"n{n}", "devices": devices,
                              "pool": {"name": f"n{n}", "generation": 1, "resourceSliceCount": 1}}})
    objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "t", "namespace": "default"}, "spec": {"spec": draw(claim_spec())}})
    for c in range(draw(st.integers(0, 2))):
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": f"c{c}", "namespace": "default"}, "spec": draw(claim_spec())})
    claims = [o["metadata"]["name"] for o in objs if o["kind"] == "ResourceClaim"]
    for p in range(draw(st.integers(1, 5))):
        container = {"name": "app", "image": "i", "resources": {}}
        spec = {"containers": [container], "priority": draw(st.sampled_from([0, 0, 100]))}
        kind = draw(st.sampled_from(["template", "claim", "extended", "implicit", "plain"]))
        if kind == "template":
            spec["resourceClaims"] = [{"name": "x", "resourceClaimTemplateName": "t"}]
            container["resources"] = {"claims": [{"name": "x"}]}
        elif kind == "claim" and claims:
            spec["resourceClaims"] = [{"name": "x", "resourceClaimName": draw(st.sampled_from(claims))}]
            container["resources"] = {"claims": [{"name": "x"}]}
        elif kind == "extended":
            container["resources"] = {"limits": {"example.com/gpu": str(draw(st.integers(1, 2)))}}
        elif kind == "implicit":
            container["resources"] = {"limits": {"deviceclass.resource.kubernetes.io/gpu-a": "1"}}
        else:
            container["resources"] = {"requests": {"cpu": str(draw(st.integers(1, 3)))}}
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{p}", "namespace": "default"},
                     "spec": spec})
    if draw(st.integers(0, 3)) == 0:
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "rule"},
                     "spec": {"deviceSelector": {"device": "g0"},
                              "taint": {"key": "m", "effect": draw(st.sampled_from(["None", "NoExecute", "NoSchedule"]))}}})
    return objs


def settle(objs: list[dict]) -> ControlPlane:
    cp = ControlPlane()
    for obj in objs:
        try:
            cp.create(obj)
        except InputError:
            pass   # e.g. a claim the random spec made invalid: rejected, as the API server would
    cp.settle()
    return cp


def check_consistent(cp: ControlPlane) -> None:
    owners: dict[str, str] = {}
    for claim in cp.store.list("ResourceClaim"):
        allocation = (claim.get("status") or {}).get("allocation")
        for r in ((allocation or {}).get("devices") or {}).get("results") or ():
            if r.get("adminAccess") or r.get("shareID"):
                continue
            key = f"{r['driver']}/{r['pool']}/{r['device']}"
            assert key not in owners, f"{key} allocated to {owners[key]} and {claim['metadata']['name']}"
            owners[key] = claim["metadata"]["name"]
    for pod in cp.store.list("Pod"):
        bound = pod["spec"].get("nodeName")
        if pod["status"].get("phase") == "Running":
            assert bound
        if not bound:
            continue
        names = [s.get("resourceClaimName") for s in pod["status"].get("resourceClaimStatuses") or ()]
        names += [e.get("resourceClaimName") for e in pod["spec"].get("resourceClaims") or ()]
        ext = pod["status"].get("extendedResourceClaimStatus")
        if ext:
            names.append(ext["resourceClaimName"])
        for name in filter(None, names):
            claim = cp.store.get("ResourceClaim", "default", name)
            assert claim is not None and claim["status"].get("allocation"), f"{name} of bound pod not allocated"
            assert any(r["uid"] == pod["metadata"]["uid"] for r in claim["status"].get("reservedFor") or ())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cluster())
def test_random_clusters_settle_consistently(objs):
    """Any valid cluster settles; devices are never double-booked; bound pods hold their claims."""
    cp = settle(objs)
    check_consistent(cp)
    again = settle(objs)
    assert [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in cp.store.list("Pod")] == \
           [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in again.store.list("Pod")]
