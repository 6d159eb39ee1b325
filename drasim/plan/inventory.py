"""Who asks for which extended resource, and what serves it on each node (KEP-5004).

A client of the control plane: it reads a settled (or just applied) cluster and computes,
for every DRA-extended resource name that pods request,

- the requests per namespace and owner (the workload whose manifest would change),
- the backend serving it on each node today, as the scheduler would route it
  (extended-resources.md §3.1): a device plugin (`status.allocatable[name] > 0`), DRA
  through the class the name resolves to (§2, the scheduler's name → class cache), or
  nothing,
- the class that would serve it once the device plugins are gone.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from drasim.api import kinds
from drasim.api.extendedresource import IMPLICIT_PREFIX, is_dra_extended_resource_name
from drasim.api.podresources import pod_requests
from drasim.api.quantity import QuantityError, parse_quantity
from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input
from drasim.controlplane import ControlPlane

DEVICE_PLUGIN = "device-plugin"
DRA = "dra"
NONE = "none"

TEMPLATE_HASH_LABEL = "pod-template-hash"


@dataclass(frozen=True)
class Use:
    namespace: str
    owner: str         # "Deployment/demo", "StatefulSet/db", or "Pod/x" for a bare pod
    pods: int
    quantity: int      # the pods' requests for the name, summed


@dataclass(frozen=True)
class NodeBackend:
    node: str
    backend: str       # DEVICE_PLUGIN, DRA or NONE (as the scheduler routes the name there)
    capacity: int      # device-plugin allocatable, or DRA devices matching the class on the node
    dra_devices: int   # DRA devices on the node that the name's class selects (whatever the backend)


@dataclass(frozen=True)
class NameInventory:
    name: str
    device_class: str | None    # the class the name resolves to (serves it after the move)
    implicit: bool              # the name is `deviceclass.resource.kubernetes.io/<class>`
    uses: tuple[Use, ...]
    nodes: tuple[NodeBackend, ...] = field(default=())

    @property
    def pods(self) -> int:
        return sum(u.pods for u in self.uses)


def owner_of(pod: dict, store) -> str:
    """The workload a user edits: a ReplicaSet's Deployment (by its ownerReference when the
    snapshot has the ReplicaSet, else by the `<deployment>-<pod-template-hash>` naming the
    Deployment controller uses), or the pod's controller, or the pod itself."""
    md = pod["metadata"]
    ref = next((r for r in md.get("ownerReferences") or () if isinstance(r, dict) and r.get("controller")), None)
    if ref is None:
        return f"Pod/{md['name']}"
    kind, name = ref.get("kind", ""), ref.get("name", "")
    if kind == "ReplicaSet":
        rs = store.get("ReplicaSet", md.get("namespace"), name) if "ReplicaSet" in kinds.BY_KIND else None
        if rs is not None:
            up = next((r for r in rs["metadata"].get("ownerReferences") or () if r.get("controller")), None)
            if up is not None:
                return f"{up.get('kind')}/{up.get('name')}"
        suffix = (md.get("labels") or {}).get(TEMPLATE_HASH_LABEL)
        if suffix and name.endswith("-" + suffix):
            return f"Deployment/{name[:-len(suffix) - 1]}"
    return f"{kind}/{name}"


def requested_names(pod: dict) -> dict[str, int]:
    """DRA-extended names with a non-zero pod request (§3 definitions)."""
    return {n: q for n, q in pod_requests(pod).items() if q and is_dra_extended_resource_name(n)}


def allocatable(node: dict, name: str) -> int:
    value = ((node.get("status") or {}).get("allocatable") or {}).get(name)
    if value is None:
        return 0
    try:
        return parse_quantity(str(value)).int_value()
    except (QuantityError, ValueError, OverflowError):
        return 0


def class_devices_by_node(cp: ControlPlane, class_name: str) -> dict[str, int]:
    """Devices each node's slices publish that the class's selectors select (node-local slices;
    the audit does not place node-selector slices)."""
    dc = cp.store.get("DeviceClass", None, class_name)
    if dc is None:
        return {}
    try:
        selectors = [compile_selector(s["cel"]["expression"]) for s in (dc.get("spec") or {}).get("selectors") or ()
                     if isinstance(s, dict) and isinstance(s.get("cel"), dict)]
    except CelCompileError:
        return {}
    out: dict[str, int] = {}
    for sl in cp.store.list("ResourceSlice"):
        spec = sl.get("spec") or {}
        node = spec.get("nodeName")
        if not node:
            continue
        for device in spec.get("devices") or ():
            try:
                data = device_input(spec.get("driver", ""), device)
                if all(sel.matches(data) for sel in selectors):
                    out[node] = out.get(node, 0) + 1
            except CelRuntimeError:
                continue
    return out


def inventory(cp: ControlPlane) -> list[NameInventory]:
    store = cp.store
    uses: dict[str, dict[tuple[str, str], list[int]]] = {}
    for pod in store.list("Pod"):
        for name, quantity in requested_names(pod).items():
            key = (pod["metadata"].get("namespace") or "", owner_of(pod, store))
            acc = uses.setdefault(name, {}).setdefault(key, [0, 0])
            acc[0] += 1
            acc[1] += quantity
    nodes = sorted(store.list("Node"), key=lambda n: n["metadata"]["name"])
    out = []
    for name in sorted(uses):
        cls = cp.er_cache.class_for(name)
        devices = class_devices_by_node(cp, cls) if cls else {}
        backends = []
        for node in nodes:
            node_name = node["metadata"]["name"]
            plugin = allocatable(node, name)
            dra = devices.get(node_name, 0)
            if plugin > 0:
                backends.append(NodeBackend(node_name, DEVICE_PLUGIN, plugin, dra))
            elif cls is not None:
                backends.append(NodeBackend(node_name, DRA, dra, dra))
            else:
                backends.append(NodeBackend(node_name, NONE, 0, 0))
        out.append(NameInventory(
            name, cls, name.startswith(IMPLICIT_PREFIX),
            tuple(Use(ns, owner, n, q) for (ns, owner), (n, q) in sorted(uses[name].items())),
            tuple(backends)))
    return out
