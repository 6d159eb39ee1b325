"""The filter cache is an optimisation only: runs with it on and off make the same decisions."""
import random

from drasim.controlplane import ControlPlane, Options


def build(cp: ControlPlane, rng: random.Random, nodes: int, pods: int) -> None:
    for i in range(nodes):
        alloc = {"cpu": "8", "memory": "32Gi", "pods": "20"}
        if i % 5 == 0:
            alloc["example.com/gpu"] = "2"          # a device-plugin node for the extended resource
        cp.create({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 3}", "kubernetes.io/hostname": f"n{i}"}},
                   "status": {"allocatable": alloc}})
        if i % 5:
            cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s{i}"},
                       "spec": {"driver": "gpu.example.com", "nodeName": f"n{i}",
                                "pool": {"name": f"n{i}", "generation": 1, "resourceSliceCount": 1},
                                "devices": [{"name": f"g{k}", "attributes": {"mem": {"int": 40 + 40 * (k % 2)}}}
                                            for k in range(4)]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                        "extendedResourceName": "example.com/gpu"}})
    for alias in ("gpu2", "gpu3"):   # same selection as "gpu" under other names: verdicts are shared
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": alias},
                   "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                            "extendedResourceName": f"example.com/{alias}"}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "big2"},
               "spec": {"selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].mem > 50'}}],
                        "extendedResourceName": "example.com/big2"}})   # another selection: never shared with gpu2
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "pair", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [
                   {"name": "a", "exactly": {"deviceClassName": "gpu"}},
                   {"name": "b", "exactly": {"deviceClassName": "gpu", "selectors": [
                       {"cel": {"expression": 'device.attributes["gpu.example.com"].mem > 50'}}]}}]}}}})
    for name, expr in (("any", None), ("big", 'device.attributes["gpu.example.com"].mem > 50')):
        exactly = {"deviceClassName": "gpu"}
        if expr:
            exactly["selectors"] = [{"cel": {"expression": expr}}]
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                   "metadata": {"name": name, "namespace": "default"},
                   "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}}})
    for i in range(pods):
        kind = rng.choice(["any", "big", "pair", "ext", "cpu", "zone", "alias", "two"])
        container = {"name": "c", "image": "i", "resources": {}}
        spec = {"containers": [container]}
        if kind in ("any", "big", "pair"):
            spec["resourceClaims"] = [{"name": "g", "resourceClaimTemplateName": kind}]
            container["resources"]["claims"] = [{"name": "g"}]
        elif kind == "ext":
            container["resources"] = {"limits": {"example.com/gpu": str(rng.randint(1, 2))}}
        elif kind == "alias":
            name = rng.choice(["example.com/gpu2", "example.com/gpu3", "deviceclass.resource.kubernetes.io/gpu2",
                               "example.com/big2"])
            container["resources"] = {"limits": {name: str(rng.randint(1, 2))}}
        elif kind == "two":
            container["resources"] = {"limits": {"example.com/gpu2": "1", "example.com/gpu3": "1"}}
        elif kind == "cpu":
            container["resources"] = {"requests": {"cpu": f"{rng.randint(1, 4)}"}}
        else:
            spec["nodeSelector"] = {"zone": f"z{rng.randint(0, 2)}"}
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
                   "spec": spec})
        if rng.random() < 0.3:
            cp.settle()
        if rng.random() < 0.1:
            bound = [p for p in cp.store.list("Pod") if p["spec"].get("nodeName")]
            if bound:
                victim = rng.choice(sorted(bound, key=lambda p: p["metadata"]["name"]))
                cp.store.delete("Pod", "default", victim["metadata"]["name"])
        if rng.random() < 0.05:
            churn(cp, rng, i)
    cp.settle()


def churn(cp: ControlPlane, rng: random.Random, i: int) -> None:
    """Changes that reach nodes without a pod landing there: they must invalidate cached verdicts."""
    what = rng.choice(["taint", "untaint", "allocate", "release", "grow"])
    if what == "taint":
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": f"t{i}"},
                   "spec": {"deviceSelector": {"pool": f"n{rng.randint(1, 39)}"},
                            "taint": {"key": "k", "effect": "NoSchedule"}}})
    elif what == "untaint":
        for rule in sorted(cp.store.list("DeviceTaintRule"), key=lambda r: r["metadata"]["name"])[:1]:
            cp.store.delete("DeviceTaintRule", None, rule["metadata"]["name"])
    elif what == "allocate":   # like scheduler_perf's allocResourceClaims: no pod involved
        claim = cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                           "metadata": {"name": f"pre{i}", "namespace": "default"},
                           "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
        for node in sorted(cp.store.list("Node"), key=lambda n: n["metadata"]["name"]):
            result = cp.allocator.allocate(node, [claim], cp.dra.allocated)
            if result:
                cp.store.update_status(dict(claim, status={"allocation": result[0]}))
                break
    elif what == "release":
        for claim in sorted(cp.store.list("ResourceClaim", "default"), key=lambda c: c["metadata"]["name"]):
            if claim["metadata"]["name"].startswith("pre") and (claim.get("status") or {}).get("allocation"):
                cp.store.update_status(dict(claim, status={}))
                break
    else:
        name = f"s{rng.choice([k for k in range(40) if k % 5])}"
        current = cp.store.get("ResourceSlice", None, name)
        spec = dict(current["spec"], pool=dict(current["spec"]["pool"], generation=current["spec"]["pool"]["generation"] + 1),
                    devices=current["spec"]["devices"] + [{"name": f"x{i}"}])
        cp.store.update(dict(current, spec=spec))


def outcome(filter_cache: bool) -> dict:
    cp = ControlPlane(Options(filter_cache=filter_cache, seed=3))
    build(cp, random.Random(42), nodes=40, pods=260)
    placements = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in cp.store.list("Pod")}
    devices = {c["metadata"]["name"]: [(r["pool"], r["device"]) for r in
                                       c["status"]["allocation"]["devices"]["results"]]
               for c in cp.store.list("ResourceClaim") if (c.get("status") or {}).get("allocation")}
    claims = {c["metadata"]["name"]: c["spec"] for c in cp.store.list("ResourceClaim")}
    mappings = {p["metadata"]["name"]: (p.get("status") or {}).get("extendedResourceClaimStatus", {}).get("requestMappings")
                for p in cp.store.list("Pod")}
    return {"placements": placements, "devices": devices, "claims": claims, "mappings": mappings}


def test_same_placements_with_and_without_filter_cache():
    """Every pod lands on the same node and every claim gets the same devices either way."""
    with_cache = outcome(True)
    without = outcome(False)
    assert with_cache["placements"] == without["placements"]
    assert with_cache["devices"] == without["devices"]
    assert with_cache["claims"] == without["claims"]        # right classes in extended-resource claims
    assert with_cache["mappings"] == without["mappings"]
    assert sum(1 for n in with_cache["placements"].values() if n) > 100   # the workload really schedules
    assert sum(1 for n in with_cache["placements"].values() if not n) > 0  # and some pods stay pending


def _aliasing_run(filter_cache: bool) -> dict:
    """Pods asking for different extended resources, some of whose classes select alike."""
    cp = ControlPlane(Options(filter_cache=filter_cache))
    for i in range(3):
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                   "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "20"}}})
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s{i}"},
                   "spec": {"driver": "gpu.example.com", "nodeName": f"n{i}",
                            "pool": {"name": f"n{i}", "generation": 1, "resourceSliceCount": 1},
                            "devices": [{"name": f"g{k}", "attributes": {"mem": {"int": 40 + 40 * (k == 0)}}}
                                        for k in range(3)]}})
    for name, expr in (("any-a", "true"), ("any-b", "true"), ("big", 'device.attributes["gpu.example.com"].mem > 50')):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                   "spec": {"selectors": [{"cel": {"expression": expr}}], "extendedResourceName": f"example.com/{name}"}})
    # Fill every node's big device first, then ask for more of each kind.
    order = ["big"] * 3 + ["any-a", "any-b", "big", "any-a", "big", "any-b"] * 2
    for i, name in enumerate(order):
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i",
                                            "resources": {"limits": {f"example.com/{name}": "1"}}}]}})
        cp.settle()
    return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in cp.store.list("Pod")}


def test_alias_shares_verdicts_only_between_equal_selections():
    """any-a and any-b share verdicts (same selectors); big never borrows theirs."""
    with_cache, without = _aliasing_run(True), _aliasing_run(False)
    assert with_cache == without
    assert [with_cache[f"p{i}"] for i in range(3)] != [None] * 3          # the big devices are taken
    assert all(with_cache[f"p{i}"] is None for i in (5, 7, 11, 13))       # no more big devices anywhere
