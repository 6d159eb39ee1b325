"""`drasim migrate`: the documented node-by-node move from a device plugin to DRA, as a what-if.

For each node, in the order given, on the settled snapshot (seed 001's procedure):

1. cordon (`spec.unschedulable`), 2. drain (`kubectl drain --ignore-daemonsets`: every pod on
   the node except DaemonSet pods is evicted; a controller recreates its own, bare pods are
   gone), 3. remove the device plugin (the kubelet keeps the resource at 0 in capacity and
   allocatable: extended-resources.md §3.3), 4. publish the DRA driver's slices for the node,
   5. create the DeviceClass that maps the name if it is missing (or stop, naming the fix),
   6. uncordon; then the cluster settles.

After each step the report has what moved, what is Pending and why, the three quota counts, and
the seed's check that the node's capacity for the name fell to zero. `plan_waves` orders all
device-plugin nodes into waves whose migration keeps every pod that was placed placed.
"""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field

from drasim.api.extendedresource import is_extended_resource_name
from drasim.api.loader import Document
from drasim.childcopy import in_copy
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.plan.inventory import allocatable, requested_names


@dataclass
class NodeStep:
    node: str
    names: list[str]                      # extended resources its device plugin served
    ok: bool = True
    problem: str | None = None            # why the step stopped, and the fix
    moved: dict[str, str] = field(default_factory=dict)       # pod -> "old node -> new node" (or "-> Pending")
    lost: list[str] = field(default_factory=list)             # bare pods drain deleted
    pending: dict[str, str] = field(default_factory=dict)     # pod -> reason, after the step
    pending_during: dict[str, str] = field(default_factory=dict)   # pod -> reason, while the nodes were drained
    capacity_after: dict[str, int] = field(default_factory=dict)   # "node: name" -> allocatable after (0 wanted)
    devices_in_use: int = 0               # devices serving pods' extended resources, both backends
    quota: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Migration:
    before_devices_in_use: int
    before_pending: dict[str, str]
    steps: list[NodeStep] = field(default_factory=list)

    def as_json(self) -> dict:
        return asdict(self)


def _placements(cp: ControlPlane) -> dict[str, str | None]:
    return {f"{p['metadata'].get('namespace')}/{p['metadata']['name']}": p["spec"].get("nodeName")
            for p in cp.store.list("Pod") if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")}


def _pending(cp: ControlPlane) -> dict[str, str]:
    out = {}
    for p in cp.store.list("Pod"):
        if p["spec"].get("nodeName") or (p.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        cond = next((c for c in (p.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"), {})
        out[f"{p['metadata'].get('namespace')}/{p['metadata']['name']}"] = cond.get("message") or "waiting to be scheduled"
    return out


def devices_in_use(cp: ControlPlane) -> int:
    """Devices that serve pods' extended resources: device-plugin units on the pods' nodes plus
    the devices of the scheduler's extended-resource claims."""
    total = 0
    for p in cp.store.list("Pod"):
        node = cp.store.get("Node", None, p["spec"].get("nodeName")) if p["spec"].get("nodeName") else None
        if node is None or (p.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        total += sum(q for n, q in requested_names(p).items() if allocatable(node, n) > 0)
    for c in cp.store.list("ResourceClaim"):
        if (c["metadata"].get("annotations") or {}).get("resource.kubernetes.io/extended-resource-claim") == "true":
            total += len(((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", []))
    return total


def _quota(cp: ControlPlane) -> dict[str, dict[str, str]]:
    out = {}
    for q in cp.store.list("ResourceQuota"):
        used = (q.get("status") or {}).get("used") or {}
        out[f"{q['metadata'].get('namespace')}/{q['metadata']['name']}"] = dict(sorted(used.items()))
    return out


def _is_daemon_pod(pod: dict) -> bool:
    return any(r.get("kind") == "DaemonSet" and r.get("controller") for r in pod["metadata"].get("ownerReferences") or ())


def _has_controller(pod: dict) -> bool:
    return any(r.get("controller") for r in pod["metadata"].get("ownerReferences") or ())


def _set_node(cp: ControlPlane, name: str, change) -> None:
    node = copy.deepcopy(cp.store.get("Node", None, name))
    change(node)
    node["metadata"].pop("resourceVersion", None)
    stored = cp.store.update(dict(node, status=cp.store.get("Node", None, name).get("status")))
    if node.get("status") != stored.get("status"):
        cp.store.update_status(dict(stored, status=node["status"]))


def _drain(cp: ControlPlane, nodes, step: NodeStep) -> str | None:
    """kubectl drain --ignore-daemonsets: every pod goes through the eviction API (its budget may
    refuse: 429), refused ones are retried once the cluster has settled (kubectl retries every 5 s)
    until a round evicts nothing more; then the drain is blocked. Returns why, or None."""
    from drasim.evictionapi import EvictionRefused, check

    def evictable():
        return [p for p in cp.store.list("Pod") if p["spec"].get("nodeName") in nodes and not _is_daemon_pod(p)
                and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    while True:
        refused = None
        evicted = 0
        for pod in evictable():
            md = pod["metadata"]
            try:
                charged = check(pod, cp.store.list("PodDisruptionBudget", md.get("namespace")), cp.clock.timestamp())
            except EvictionRefused as e:
                refused = refused or f"drain stopped: evicting pod {md.get('namespace')}/{md['name']}: {e}; " \
                                     "fix: make room for its replacements first, or relax the PodDisruptionBudget"
                continue
            if charged is not None:
                cp.store.update_status(charged)
            if not _has_controller(pod):
                step.lost.append(f"{md.get('namespace')}/{md['name']}")
            cp.delete("Pod", md.get("namespace"), md["name"])
            evicted += 1
        cp.settle()
        if refused is None:
            return None
        if not evicted:
            return refused


def migrate_node(cp: ControlPlane, name: str, slices: list[Document], classes: list[Document]) -> NodeStep:
    return migrate_wave(cp, [name], slices, classes)


def migrate_wave(cp: ControlPlane, wave: list[str], slices: list[Document], classes: list[Document]) -> NodeStep:
    """The six steps for the nodes of a wave together: all cordoned and drained first (the
    evicted pods must fit on the other nodes meanwhile: `pending_during` in the step), then
    all switched to DRA and uncordoned."""
    step = NodeStep(",".join(wave), [])
    nodes = {}
    for name in wave:
        node = cp.store.get("Node", None, name)
        if node is None:
            step.ok, step.problem = False, f"node {name} is not in the snapshot"
            return step
        nodes[name] = sorted(n for n in ((node.get("status") or {}).get("allocatable") or {})
                             if is_extended_resource_name(n) and allocatable(node, n) > 0)
    step.names = sorted({n for names in nodes.values() for n in names})
    missing = [n for n in step.names if cp.er_cache.class_for(n) is None]
    new_classes = [d for d in classes if d.kind.kind == "DeviceClass"
                   and cp.store.get("DeviceClass", None, d.obj["metadata"]["name"]) is None]
    serves = {(d.obj.get("spec") or {}).get("extendedResourceName") for d in new_classes}
    still_missing = [n for n in missing if n not in serves]
    if still_missing:   # stop before touching the node: pods would be drained to nowhere
        step.ok = False
        step.problem = (f"no DeviceClass maps {', '.join(still_missing)}: once the device plugin is gone the pods "
                        f"asking for it cannot be placed; fix: create a DeviceClass with extendedResourceName: "
                        f"{still_missing[0]} (give it with --class)")
        return step
    own = [d for d in slices if (d.obj.get("spec") or {}).get("nodeName") in nodes]
    for name, names in nodes.items():
        if names and not any((d.obj.get("spec") or {}).get("nodeName") == name for d in own):
            step.ok = False
            step.problem = f"--driver-slices has no ResourceSlice with nodeName {name}: the node would have no devices"
            return step
    before = _placements(cp)
    for name in wave:                                                                                 # 1. cordon
        _set_node(cp, name, lambda n: n.setdefault("spec", {}).__setitem__("unschedulable", True))
    blocked = _drain(cp, nodes, step)                                                                 # 2. drain
    if blocked:
        step.ok, step.problem = False, blocked
        step.pending_during = _pending(cp)
        return step
    step.pending_during = _pending(cp)
    for name, names in nodes.items():                                                                 # 3.
        def no_plugin(n, names=names):
            for field_ in ("capacity", "allocatable"):
                values = (n.get("status") or {}).get(field_)
                if isinstance(values, dict):
                    for res in names:
                        if res in values:
                            values[res] = "0"
        _set_node(cp, name, no_plugin)
    try:
        cp.apply(own + new_classes)                                                                   # 4. + 5.
    except InputError as e:
        step.ok, step.problem = False, f"the driver's slices or the class were refused: {e}"
        return step
    for name in wave:                                                                                 # 6. uncordon
        _set_node(cp, name, lambda n: n.setdefault("spec", {}).pop("unschedulable", None))
    cp.settle()
    after = _placements(cp)
    for pod, old in before.items():
        if old in nodes:
            new = after.get(pod)
            step.moved[pod] = f"{old} -> {new or 'Pending'}" if pod in after else f"{old} -> (deleted)"
    for pod, new in after.items():   # pods the controllers recreated
        if pod not in before:
            step.moved[pod] = f"(new) -> {new or 'Pending'}"
    step.pending = _pending(cp)
    step.capacity_after = {f"{name}: {n}": allocatable(cp.store.get("Node", None, name), n)
                           for name, names in nodes.items() for n in names}
    step.devices_in_use = devices_in_use(cp)
    step.quota = _quota(cp)
    return step


def migrate(documents: list[Document], nodes: list[str], slices: list[Document], classes: list[Document],
            options: Options = Options()) -> Migration:
    cp = ControlPlane(options)
    cp.run_phase(documents)
    result = Migration(devices_in_use(cp), _pending(cp))
    for name in nodes:
        step = migrate_node(cp, name, slices, classes)
        result.steps.append(step)
        if not step.ok:
            break
    return result


def device_plugin_nodes(documents: list[Document]) -> list[str]:
    return sorted(d.obj["metadata"]["name"] for d in documents if d.kind.kind == "Node"
                  and any(is_extended_resource_name(n) and allocatable(d.obj, n) > 0
                          for n in ((d.obj.get("status") or {}).get("allocatable") or {})))


def plan_waves(documents: list[Document], slices: list[Document], classes: list[Document],
               options: Options = Options()) -> tuple[list[list[str]], list[str]]:
    """Waves of nodes to migrate together (cordoned and drained at the same time): the largest
    group, in node order, whose drained pods all fit elsewhere meanwhile and that leaves no pod
    Pending that was placed before; each candidate is checked by simulation. Returns the waves
    and the device-plugin nodes no wave can take."""
    remaining = device_plugin_nodes(documents)
    waves: list[list[str]] = []
    baseline = set(migrate(documents, [], slices, classes, options).before_pending)

    # The cluster with the waves chosen so far migrated; each candidate runs on a copy of it
    # (ControlPlane.fork, or a forked process for a large fleet: the same decisions as
    # re-running the phases and earlier waves).
    base = ControlPlane(options)
    base.run_phase(documents)

    def fits(cp: ControlPlane, wave: list[str]) -> bool:
        step = migrate_wave(cp, wave, slices, classes)
        return step.ok and not step.lost and not (set(step.pending_during) - baseline) \
            and not (set(step.pending) - baseline)

    def ok(wave: list[str]) -> bool:
        return in_copy(base, lambda cp: fits(cp, wave))

    while remaining:
        wave: list[str] = []
        for name in remaining:
            if ok(wave + [name]):
                wave.append(name)
        if not wave:
            break
        waves.append(wave)
        migrate_wave(base, wave, slices, classes)
        remaining = [n for n in remaining if n not in wave]
    return waves, remaining
