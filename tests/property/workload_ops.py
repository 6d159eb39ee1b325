"""Random cluster workloads as lists of operations, applied alike to several control planes.

An operation is `(name, n)`: `n` picks among the objects that exist when it is applied
(sorted by name), so the same list drives every control plane the same way as long as they
agree so far. The operations cover what the scheduler's caches must notice: pods arriving and
leaving, claims allocated and released without a pod (as scheduler_perf's allocResourceClaims
does), claims deleted, slices republished with a new pool generation, nodes deleted, class
selectors edited, DeviceTaintRules added and removed, and quota denying creates.
"""
from __future__ import annotations

import random

from drasim.controlplane import ControlPlane
from drasim.errors import InputError

GPU = 'device.driver == "gpu.example.com"'
BIG = 'device.attributes["gpu.example.com"].mem > 50'
NODES = 12

OPS = ("pod", "pod", "pod", "pod", "settle", "delete_pod", "allocate", "release", "delete_claim",
       "republish", "shrink", "delete_node", "edit_class", "taint", "untaint", "quota", "images", "advertise")
POD_KINDS = ("any", "big", "pair", "ext", "cpu", "zone", "alias", "two", "plugin")


def random_ops(rng: random.Random, count: int, ops: tuple[str, ...] = OPS) -> list[tuple[str, int]]:
    return [(rng.choice(ops), rng.randrange(1000)) for _ in range(count)]


def _class(name: str, expr: str, extended: str | None = None) -> dict:
    spec: dict = {"selectors": [{"cel": {"expression": expr}}]}
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def _template(name: str, requests: list[dict]) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": requests}}}}


def _slice(i: int, devices: int, generation: int) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s{i}"},
            "spec": {"driver": "gpu.example.com", "nodeName": f"n{i}",
                     "pool": {"name": f"n{i}", "generation": generation, "resourceSliceCount": 1},
                     "devices": [{"name": f"g{k}", "attributes": {"mem": {"int": 40 + 40 * (k % 2)}}}
                                 for k in range(devices)]}}


def build_cluster(cp: ControlPlane) -> None:
    for i in range(NODES):
        alloc = {"cpu": "8", "memory": "32Gi", "pods": "12"}
        if i % 4 == 0:
            alloc["example.com/gpu"] = "2"          # a device-plugin node for the extended resource
        cp.create({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 3}", "kubernetes.io/hostname": f"n{i}"}},
                   "status": {"allocatable": alloc}})
        if i % 4:
            cp.create(_slice(i, 3, 1))
    cp.create(_class("gpu", GPU, "example.com/gpu"))
    for alias in ("gpu2", "gpu3"):   # the same selection under other names: verdicts are shared
        cp.create(_class(alias, GPU, f"example.com/{alias}"))
    cp.create(_class("big2", BIG, "example.com/big2"))
    cp.create(_template("pair", [{"name": "a", "exactly": {"deviceClassName": "gpu"}},
                                 {"name": "b", "exactly": {"deviceClassName": "gpu",
                                                           "selectors": [{"cel": {"expression": BIG}}]}}]))
    cp.create(_template("any", [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]))
    cp.create(_template("big", [{"name": "r", "exactly": {"deviceClassName": "gpu",
                                                          "selectors": [{"cel": {"expression": BIG}}]}}]))


def _pod(name: str, kind: str, n: int) -> dict:
    container: dict = {"name": "c", "image": "i", "resources": {}}
    spec: dict = {"containers": [container]}
    if kind in ("any", "big", "pair"):
        spec["resourceClaims"] = [{"name": "g", "resourceClaimTemplateName": kind}]
        container["resources"]["claims"] = [{"name": "g"}]
    elif kind in ("ext", "plugin"):
        container["resources"] = {"limits": {"example.com/gpu": str(1 + n % 2)}}
        if kind == "plugin":
            spec["nodeSelector"] = {"zone": f"z{n % 3}"}
    elif kind == "alias":
        resource = ("example.com/gpu2", "example.com/gpu3", "deviceclass.resource.kubernetes.io/gpu2",
                    "example.com/big2")[n % 4]
        container["resources"] = {"limits": {resource: str(1 + n % 2)}}
    elif kind == "two":
        container["resources"] = {"limits": {"example.com/gpu2": "1", "example.com/gpu3": "1"}}
    elif kind == "cpu":
        container["resources"] = {"requests": {"cpu": str(1 + n % 4)}}
    else:
        spec["nodeSelector"] = {"zone": f"z{n % 3}"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _names(cp: ControlPlane, kind: str, namespace: str | None = None, keep=lambda o: True) -> list[str]:
    return sorted(o["metadata"]["name"] for o in cp.store.list(kind, namespace) if keep(o))


def _pick(names: list[str], n: int) -> str | None:
    return names[n % len(names)] if names else None


def apply_op(cp: ControlPlane, index: int, op: str, n: int, denials: list[str]) -> None:
    """Apply one operation; admission denials are recorded, not raised (they must agree too)."""
    try:
        _apply(cp, index, op, n)
    except InputError as e:
        denials.append(f"{index}:{op}: {e}")


def _apply(cp: ControlPlane, index: int, op: str, n: int) -> None:
    store = cp.store
    if op == "pod":
        cp.create(_pod(f"p{index}", POD_KINDS[n % len(POD_KINDS)], n // len(POD_KINDS)))
    elif op == "settle":
        cp.settle()
    elif op == "delete_pod":
        name = _pick(_names(cp, "Pod", "default", lambda p: bool(p["spec"].get("nodeName"))), n)
        if name:
            store.delete("Pod", "default", name)
    elif op == "allocate":   # like scheduler_perf's allocResourceClaims: no pod involved
        claim = cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                           "metadata": {"name": f"pre{index}", "namespace": "default"},
                           "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
        nodes = sorted(store.list("Node"), key=lambda node: node["metadata"]["name"])
        for node in nodes[n % len(nodes):] + nodes[:n % len(nodes)] if nodes else ():
            result = cp.allocator.allocate(node, [claim], cp.dra.allocated)
            if result:
                store.update_status(dict(claim, status={"allocation": result[0]}))
                break
    elif op == "release":
        name = _pick(_names(cp, "ResourceClaim", "default", lambda c: c["metadata"]["name"].startswith("pre")
                            and bool((c.get("status") or {}).get("allocation"))), n)
        if name:
            claim = store.get("ResourceClaim", "default", name)
            store.update_status(dict(claim, status={}))
    elif op == "delete_claim":   # any claim: a pod's generated claim is re-created by the controller
        name = _pick(_names(cp, "ResourceClaim", "default"), n)
        if name:
            store.delete("ResourceClaim", "default", name)
    elif op in ("republish", "shrink"):
        name = _pick(_names(cp, "ResourceSlice"), n)
        if name:
            current = store.get("ResourceSlice", None, name)
            devices = list(current["spec"]["devices"])
            if op == "republish":
                devices.append({"name": f"x{index}", "attributes": {"mem": {"int": 40 + 40 * (n % 2)}}})
            elif len(devices) > 1:
                devices.pop(n % len(devices))
            pool = dict(current["spec"]["pool"], generation=current["spec"]["pool"]["generation"] + 1)
            store.update(dict(current, spec=dict(current["spec"], pool=pool, devices=devices)))
    elif op == "delete_node":
        name = _pick(_names(cp, "Node"), n)
        if name and len(_names(cp, "Node")) > 4:
            store.delete("Node", None, name)
    elif op in ("images", "advertise"):   # node status updates: image spread, device-plugin capacity
        name = _pick(_names(cp, "Node"), n)
        if name:
            node = store.get("Node", None, name)
            status = dict(node.get("status") or {})
            if op == "images":
                status["images"] = [] if status.get("images") else [
                    {"names": ["i:latest"], "sizeBytes": 1_000_000_000 * (1 + n % 4)}]
            else:
                allocatable = dict(status.get("allocatable") or {})
                if allocatable.pop("example.com/gpu2", None) is None:
                    allocatable["example.com/gpu2"] = str(1 + n % 2)
                status["allocatable"] = allocatable
            store.update_status(dict(node, status=status))
    elif op == "edit_class":   # gpu2 alternates between the plain and the big selection
        current = store.get("DeviceClass", None, "gpu2")
        expr = current["spec"]["selectors"][0]["cel"]["expression"]
        selectors = [{"cel": {"expression": BIG if expr == GPU else GPU}}]
        store.update(dict(current, spec=dict(current["spec"], selectors=selectors)))
    elif op == "taint":
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": f"t{index}"},
                   "spec": {"deviceSelector": {"pool": f"n{n % NODES}"},
                            "taint": {"key": "k", "effect": ("NoSchedule", "NoExecute")[n % 2]}}})
    elif op == "untaint":
        name = _pick(_names(cp, "DeviceTaintRule"), n)
        if name:
            store.delete("DeviceTaintRule", None, name)
    elif op == "quota" and store.get("ResourceQuota", "default", "gpus") is None:
        cp.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "gpus", "namespace": "default"},
                   "spec": {"hard": {"requests.example.com/gpu": str(4 + n % 8),
                                     "count/resourceclaims.resource.k8s.io": str(8 + n % 10)}}})


def outcome(cp: ControlPlane, denials: list[str]) -> dict:
    """Everything a user sees of the decisions: placements, devices, claims, pending reasons."""
    pods = cp.store.list("Pod")
    claims = cp.store.list("ResourceClaim")
    pending = {}
    for p in pods:
        if not p["spec"].get("nodeName"):
            cond = next((c for c in (p.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"),
                        {})
            pending[p["metadata"]["name"]] = (cond.get("reason"), cond.get("message"))
    return {
        "placements": {p["metadata"]["name"]: p["spec"].get("nodeName") for p in pods},
        "phases": {p["metadata"]["name"]: (p.get("status") or {}).get("phase") for p in pods},
        "devices": {c["metadata"]["name"]: sorted((r["pool"], r["device"]) for r in
                                                  c["status"]["allocation"]["devices"]["results"])
                    for c in claims if (c.get("status") or {}).get("allocation")},
        "claims": {c["metadata"]["name"]: c["spec"] for c in claims},
        "reserved": {c["metadata"]["name"]: sorted(r["name"] for r in (c.get("status") or {}).get("reservedFor") or ())
                     for c in claims},
        "mappings": {p["metadata"]["name"]: (p.get("status") or {}).get("extendedResourceClaimStatus")
                     for p in pods},
        "pending": pending,
        "denials": list(denials),
    }


def run(options, ops: list[tuple[str, int]]) -> tuple[dict, list[dict]]:
    """The final outcome, and the outcome after every settle (so a divergence shows where it began)."""
    cp = ControlPlane(options)
    build_cluster(cp)
    denials: list[str] = []
    history = []
    for index, (op, n) in enumerate(ops):
        apply_op(cp, index, op, n, denials)
        if op == "settle":
            history.append(outcome(cp, denials))
    cp.settle()
    return outcome(cp, denials), history
