"""What the `simulate` tables show, computed from the settled objects: plain rows, no drawing.

The cluster is the List `-o json` prints (plus Events) and the pods the device taint eviction
controller deleted, which the List no longer holds but a person asking "where did my pod go?"
must see (`Evicted`, with the reason).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from drasim.api import podclaims
from drasim.api.devicetaints import rule_matches_device

EVICTED = "Evicted"
WAITING = "waiting to be scheduled"

# Node labels that name a node pool on the common platforms (GKE, EKS, AKS, Karpenter, OpenShift
# machine sets); a node without one is its own pool of one only in the per-node view.
NODE_POOL_LABELS = ("cloud.google.com/gke-nodepool", "eks.amazonaws.com/nodegroup", "kubernetes.azure.com/agentpool",
                    "agentpool", "karpenter.sh/nodepool", "machine.openshift.io/cluster-api-machineset")
NO_POOL_LABEL = "(no node pool label)"


@dataclass
class Cluster:
    """The objects by kind, indexed the ways the tables read them."""

    by_kind: dict[str, list[dict]]
    evicted: list[dict] = field(default_factory=list)     # pods as they were when deleted
    evicted_claims: dict[tuple, dict] = field(default_factory=dict)   # their claims then
    held: dict[tuple, str] = field(default_factory=dict)   # (ns, name) -> why PreEnqueue holds it back

    @classmethod
    def of(cls, objects: list[dict], evicted: list[dict] | None = None,
           evicted_claims: dict[tuple, dict] | None = None, held: dict[tuple, str] | None = None) -> "Cluster":
        by_kind: dict[str, list[dict]] = {}
        for o in objects:
            by_kind.setdefault(o["kind"], []).append(o)
        return cls(by_kind, list(evicted or ()), dict(evicted_claims or {}), dict(held or {}))

    def kind(self, name: str) -> list[dict]:
        return self.by_kind.get(name, [])

    @property
    def claims(self) -> dict[tuple[str | None, str], dict]:
        return {(c["metadata"].get("namespace"), c["metadata"]["name"]): c for c in self.kind("ResourceClaim")}


def devices_of(claim: dict | None) -> list[str]:
    results = ((((claim or {}).get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
    return [f"{r['driver']}/{r['pool']}/{r['device']}" for r in results]


def condition(obj: dict, type_: str) -> dict:
    return next((c for c in (obj.get("status") or {}).get("conditions") or () if c.get("type") == type_), {})


def pod_key(pod: dict) -> str:
    return f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"


def pod_claims(pod: dict, claims: dict) -> list[tuple[str, dict | None]]:
    """(label, claim) for every claim the pod uses, the extended-resource claim last."""
    ns = pod["metadata"].get("namespace")
    out = []
    for entry, name, _ in podclaims.pod_claims(pod):
        out.append((name or f"<{entry['name']}: not created>", claims.get((ns, name)) if name else None))
    ext = (pod.get("status") or {}).get("extendedResourceClaimStatus")
    if ext:
        out.append((ext["resourceClaimName"], claims.get((ns, ext["resourceClaimName"]))))
    return out


def warnings_by_pod(events: list[dict]) -> dict[tuple, dict]:
    """The newest Warning Event per pod (namespace, name, uid), by lastTimestamp then creation order."""
    newest: dict[tuple, dict] = {}
    for ev in events:
        inv = ev.get("involvedObject") or {}
        if ev.get("type") != "Warning" or inv.get("kind") != "Pod":
            continue
        key = (inv.get("namespace"), inv.get("name"))
        old = newest.get(key)
        if old is None or (ev.get("lastTimestamp") or "") >= (old.get("lastTimestamp") or ""):
            newest[key] = ev
    return newest


def pending_reason(pod: dict, warnings: dict[tuple, dict], held: dict[tuple, str] | None = None) -> str:
    """Why a pod has no node: its PodScheduled condition (kube-scheduler's words), else the newest
    Warning Event about it (a claim the controller could not create), else the PreEnqueue check
    holding it back (a missing claim: v1.37 writes neither condition nor Event for it, so the
    scheduler's queue is the only place the reason is), else that it waits for its turn."""
    cond = condition(pod, "PodScheduled")
    if cond.get("status") == "False" and (cond.get("message") or cond.get("reason")):
        return ": ".join(p for p in (cond.get("reason"), cond.get("message")) if p)
    md = pod["metadata"]
    key = (md.get("namespace"), md["name"])
    if key in (held or {}) and key not in warnings:
        return held[key]
    ev = warnings.get((md.get("namespace"), md["name"]))
    if ev is not None and (ev.get("involvedObject") or {}).get("uid") in (None, md.get("uid")):
        return ": ".join(p for p in (ev.get("reason"), ev.get("message")) if p)
    return WAITING


def evicted_reason(pod: dict) -> str:
    cond = condition(pod, "DisruptionTarget")
    return ": ".join(p for p in (cond.get("reason"), cond.get("message")) if p) or "deleted by the device taint manager"


@dataclass(frozen=True)
class PodRow:
    namespace: str
    name: str
    phase: str
    node: str
    claims: tuple[tuple[str, tuple[str, ...]], ...]    # (claim label, devices)
    reason: str                                        # pending or evicted: why; else ""

    @property
    def devices(self) -> tuple[str, ...]:
        return tuple(d for _, devs in self.claims for d in devs)


def pod_rows(cluster: Cluster) -> list[PodRow]:
    claims = cluster.claims
    then = {**claims, **cluster.evicted_claims}
    warnings = warnings_by_pod(cluster.kind("Event"))
    rows = []
    for pod, evicted in [(p, False) for p in cluster.kind("Pod")] + [(p, True) for p in cluster.evicted]:
        node = (pod.get("spec") or {}).get("nodeName") or ""
        parts = tuple((label, tuple(devices_of(claim))) for label, claim in pod_claims(pod, then if evicted else claims))
        if evicted:
            phase, reason = EVICTED, evicted_reason(pod)
        elif not node:
            phase, reason = "Pending", pending_reason(pod, warnings, cluster.held)
        else:
            phase, reason = (pod.get("status") or {}).get("phase", "") or "Pending", ""
        md = pod["metadata"]
        rows.append(PodRow(md.get("namespace", ""), md["name"], phase, node, parts, reason))
    return rows


def grouped_reasons(rows: list[PodRow]) -> list[tuple[int, str]]:
    """Identical pending reasons with how many pods give each, most frequent first."""
    counts = Counter(r.reason for r in rows if r.phase == "Pending" and not r.node)
    return sorted(((n, reason) for reason, n in counts.items()), key=lambda t: (-t[0], t[1]))


def phase_counts(rows: list[PodRow]) -> list[tuple[str, int]]:
    order = ("Running", "Pending", "Succeeded", "Failed", EVICTED)
    counts = Counter(r.phase for r in rows)
    return sorted(counts.items(), key=lambda t: (order.index(t[0]) if t[0] in order else len(order), t[0]))


def node_pool(node: dict | None) -> str:
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return next((labels[k] for k in NODE_POOL_LABELS if labels.get(k)), NO_POOL_LABEL)


@dataclass(frozen=True)
class Device:
    node: str                    # "" for a pool not local to one node
    driver: str
    pool: str
    name: str
    taints: tuple[str, ...]      # key=value:effect, from the slice and from DeviceTaintRules

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"


def _taint(t: dict) -> str:
    return f"{t.get('key', '')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"


def published_devices(cluster: Cluster) -> list[Device]:
    rules = cluster.kind("DeviceTaintRule")
    out = []
    for s in cluster.kind("ResourceSlice"):
        spec = s.get("spec") or {}
        driver, pool = spec.get("driver", ""), (spec.get("pool") or {}).get("name", "")
        for d in spec.get("devices") or ():
            taints = [_taint(t) for t in d.get("taints") or ()]
            taints += [f"{_taint((r.get('spec') or {}).get('taint') or {})} (rule {r['metadata']['name']})"
                       for r in rules if rule_matches_device(r, driver, pool, d.get("name", ""))]
            # A slice's nodeName, else the device's own (perDeviceNodeSelection); else not node-local.
            node = spec.get("nodeName") or d.get("nodeName") or ""
            out.append(Device(node, driver, pool, d.get("name", ""), tuple(taints)))
    return sorted(out, key=lambda d: (d.node, d.driver, d.pool, d.name))


@dataclass(frozen=True)
class Use:
    """One claim's allocation of a device: which request, for which pods, consuming what."""

    claim: str
    request: str
    device_class: str
    pods: tuple[str, ...]
    consumed: str


def _request_classes(claim: dict) -> dict[str, str]:
    """request (or request/subrequest) name → its DeviceClass."""
    out = {}
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        if (r.get("exactly") or {}).get("deviceClassName"):
            out[r["name"]] = r["exactly"]["deviceClassName"]
        for sub in r.get("firstAvailable") or ():
            out[f"{r['name']}/{sub.get('name')}"] = sub.get("deviceClassName", "")
    return out


def device_uses(cluster: Cluster) -> dict[str, list[Use]]:
    """driver/pool/device → the claims allocated it (several when its capacity is shared)."""
    out: dict[str, list[Use]] = {}
    for c in cluster.kind("ResourceClaim"):
        status = c.get("status") or {}
        results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or ()
        classes = _request_classes(c)
        pods = tuple(f"{c['metadata'].get('namespace')}/{r.get('name')}" for r in status.get("reservedFor") or ()
                     if r.get("resource") == "pods")
        for r in results:
            consumed = ", ".join(f"{k}={v}" for k, v in sorted((r.get("consumedCapacity") or {}).items()))
            use = Use(f"{c['metadata'].get('namespace')}/{c['metadata']['name']}", r.get("request", ""),
                      classes.get(r.get("request", ""), ""), pods, consumed)
            out.setdefault(f"{r['driver']}/{r['pool']}/{r['device']}", []).append(use)
    return out


@dataclass(frozen=True)
class PoolRow:
    node_pool: str
    driver: str
    nodes: int
    devices: int
    allocated: int
    by_class: tuple[tuple[str, int], ...]


def pool_rows(cluster: Cluster) -> list[PoolRow]:
    """Devices published and allocated per node pool and driver, the allocated ones by class."""
    nodes = {n["metadata"]["name"]: n for n in cluster.kind("Node")}
    uses = device_uses(cluster)
    groups: dict[tuple[str, str], dict] = {}
    for d in published_devices(cluster):
        pool = node_pool(nodes.get(d.node)) if d.node else f"{d.pool} (not node-local)"
        g = groups.setdefault((pool, d.driver), {"nodes": set(), "devices": 0, "allocated": 0, "classes": Counter()})
        g["nodes"].add(d.node)
        g["devices"] += 1
        if d.id in uses:
            g["allocated"] += 1
            g["classes"].update({u.device_class or "(no class)" for u in uses[d.id]})
    return [PoolRow(pool, driver, len(g["nodes"] - {""}), g["devices"], g["allocated"],
                    tuple(sorted(g["classes"].items()))) for (pool, driver), g in sorted(groups.items())]


@dataclass(frozen=True)
class NodeRow:
    name: str
    node_pool: str
    pods: int
    devices: int
    allocated: int
    taints: tuple[str, ...]
    allocatable: str


def node_rows(cluster: Cluster, rows: list[PodRow]) -> list[NodeRow]:
    pods = Counter(r.node for r in rows if r.node and r.phase != EVICTED)
    uses = device_uses(cluster)
    published = published_devices(cluster)
    devices = Counter(d.node for d in published)
    allocated = Counter(d.node for d in published if d.id in uses)
    out = []
    for n in cluster.kind("Node"):
        name = n["metadata"]["name"]
        alloc = (n.get("status") or {}).get("allocatable") or {}
        out.append(NodeRow(name, node_pool(n), pods[name], devices[name], allocated[name],
                           tuple(_taint(t) for t in (n.get("spec") or {}).get("taints") or ()),
                           ", ".join(f"{k}={v}" for k, v in sorted(alloc.items()))))
    return out
