"""Server-side Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), what `kubectl get` prints.

k8s: pkg/printers/internalversion/printers.go (column definitions and printPod, printNode,
     printNamespace, printResourceQuota, printEvent, printResourceClaim + resourceClaimState,
     printResourceSlice; DeviceClass, ResourceClaimTemplate and kinds without a printer get
     the default NAME, AGE), apimachinery/pkg/util/duration (HumanDuration for AGE).
"""
from __future__ import annotations

from drasim.server.serialize import outgoing
from drasim.sim.clock import parse_time

_NAME_DOC = "Name must be unique within a namespace."
_AGE_DOC = "CreationTimestamp is a timestamp representing the server time when this object was created."


def _col(name: str, type_: str = "string", priority: int = 0, fmt: str = "", description: str = "") -> dict:
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


NAME = _col("Name", fmt="name", description=_NAME_DOC)
AGE = _col("Age", description=_AGE_DOC)


def human_duration(seconds: float) -> str:
    """k8s: duration.HumanDuration."""
    if seconds < -1:
        return "<invalid>"
    s = int(max(seconds, 0))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m" if s % 60 == 0 else f"{m}m{s % 60}s"
    if m < 180:
        return f"{m}m"
    h = m // 60
    if h < 8:
        return f"{h}h" if m % 60 == 0 else f"{h}h{m % 60}m"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        return f"{h // 24}d" if h % 24 == 0 else f"{h // 24}d{h % 24}h"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    if h < 24 * 365 * 8:
        y, d = h // (24 * 365), (h // 24) % 365
        return f"{y}y" if d == 0 else f"{y}y{d}d"
    return f"{h // (24 * 365)}y"


def _age(obj: dict, now: float) -> str:
    ts = (obj.get("metadata") or {}).get("creationTimestamp")
    if not ts:
        return "<unknown>"
    try:
        return human_duration(now - parse_time(ts))
    except ValueError:
        return "<unknown>"


def _since(ts: str | None, now: float) -> str:
    if not ts:
        return "<unknown>"
    try:
        return human_duration(now - parse_time(ts))
    except ValueError:
        return "<unknown>"


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


# -- Pod -------------------------------------------------------------------------------------
POD_COLUMNS = [NAME, _col("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
               _col("Status", description="The aggregate status of the containers in this pod."),
               _col("Restarts", description="The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
               AGE, _col("IP", priority=1, description="podIP address allocated to the pod."),
               _col("Node", priority=1, description="Name of the Node that the Pod is scheduled on."),
               _col("Nominated Node", priority=1, description="nominatedNodeName is set when this pod preempts one or more pods on the node."),
               _col("Readiness Gates", priority=1, description="If specified, all readiness gates will be evaluated for pod readiness.")]


def _pod_row(pod: dict, now: float) -> list:
    spec, status, md = pod.get("spec") or {}, pod.get("status") or {}, pod.get("metadata") or {}
    reason = status.get("reason") or status.get("phase") or ""
    # k8s: printers.go printPod — a pod whose PodScheduled condition says SchedulingGated shows that.
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated"
           for c in status.get("conditions") or () if isinstance(c, dict)):
        reason = "SchedulingGated"
    restarts, ready, running = 0, 0, False
    for cs in reversed(status.get("containerStatuses") or []):
        restarts += cs.get("restartCount") or 0
        state = cs.get("state") or {}
        if (state.get("waiting") or {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif state.get("terminated") is not None:
            term = state["terminated"] or {}
            reason = term.get("reason") or (f"Signal:{term['signal']}" if term.get("signal")
                                             else f"ExitCode:{term.get('exitCode', 0)}")
        elif state.get("running") is not None and cs.get("ready"):
            running = True
            ready += 1
    if reason == "Completed" and running:
        ready_cond = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
        reason = "Running" if ready_cond else "NotReady"
    if md.get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    gates = spec.get("readinessGates") or []
    if gates:
        true = {c.get("type") for c in status.get("conditions") or () if c.get("status") == "True"}
        gate_cell = f"{sum(1 for g in gates if g.get('conditionType') in true)}/{len(gates)}"
    else:
        gate_cell = "<none>"
    return [_name(pod), f"{ready}/{len(spec.get('containers') or [])}", reason, str(restarts), _age(pod, now),
            status.get("podIP") or "<none>", spec.get("nodeName") or "<none>",
            status.get("nominatedNodeName") or "<none>", gate_cell]


# -- Node ------------------------------------------------------------------------------------
NODE_COLUMNS = [NAME, _col("Status", description="The status of the node"),
                _col("Roles", description="The roles of the node"), AGE,
                _col("Version", description="Kubelet Version reported by the node."),
                _col("Internal-IP", priority=1, description="List of addresses reachable to the node."),
                _col("External-IP", priority=1, description="List of addresses reachable to the node."),
                _col("OS-Image", priority=1, description="OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
                _col("Kernel-Version", priority=1, description="Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
                _col("Container-Runtime", priority=1, description="ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).")]


def _node_row(node: dict, now: float) -> list:
    spec, status = node.get("spec") or {}, node.get("status") or {}
    ready = next((c for c in status.get("conditions") or () if c.get("type") == "Ready"), None)
    states = ["Unknown"] if ready is None else ["Ready" if ready.get("status") == "True" else "NotReady"]
    if spec.get("unschedulable"):
        states.append("SchedulingDisabled")
    labels = (node.get("metadata") or {}).get("labels") or {}
    roles = sorted({k[len("node-role.kubernetes.io/"):] for k in labels if k.startswith("node-role.kubernetes.io/")
                    and k != "node-role.kubernetes.io/"} | ({labels["kubernetes.io/role"]} if labels.get("kubernetes.io/role") else set()))
    info = status.get("nodeInfo") or {}

    def address(kind: str) -> str:
        return next((a.get("address") for a in status.get("addresses") or () if a.get("type") == kind), "<none>")
    return [_name(node), ",".join(states), ",".join(roles) or "<none>", _age(node, now), info.get("kubeletVersion", ""),
            address("InternalIP"), address("ExternalIP"), info.get("osImage") or "<unknown>",
            info.get("kernelVersion") or "<unknown>", info.get("containerRuntimeVersion") or "<unknown>"]


# -- others ----------------------------------------------------------------------------------
NAMESPACE_COLUMNS = [NAME, _col("Status", description="The status of the namespace"), AGE]
QUOTA_COLUMNS = [NAME, AGE, _col("Request", description="Request represents a minimum amount of cpu/memory that a container may consume."),
                 _col("Limit", description="Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.")]
EVENT_COLUMNS = [_col("Last Seen"), _col("Type"), _col("Reason"), _col("Object"), _col("Subobject", priority=1),
                 _col("Source", priority=1), _col("Message"), _col("First Seen", priority=1),
                 _col("Count", priority=1), _col("Name", priority=1)]
CLAIM_COLUMNS = [NAME, _col("State", description="A summary of the current state (allocated, pending, reserved, etc.)."), AGE]
SLICE_COLUMNS = [NAME, _col("Node", description="nodeName field"), _col("Driver", description="driver field"),
                 _col("Pool", description="pool field"), AGE]
DEFAULT_COLUMNS = [NAME, AGE]


def _quota_row(rq: dict, now: float) -> list:
    status = rq.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    requests, limits = [], []
    for res in sorted(hard):
        text = f"{res}: {used.get(res, '0')}/{hard[res]}"
        (limits if res.split(".")[0] == "limits" and "." in res else requests).append(text)
    return [_name(rq), _age(rq, now), ", ".join(requests), ", ".join(limits)]


def _event_row(ev: dict, now: float) -> list:
    inv = ev.get("involvedObject") or {}
    last = ev.get("lastTimestamp") or ev.get("eventTime") or (ev.get("metadata") or {}).get("creationTimestamp")
    source = (ev.get("source") or {}).get("component") or ev.get("reportingComponent") or ""
    return [_since(last, now), ev.get("type", ""), ev.get("reason", ""),
            f"{(inv.get('kind') or '').lower()}/{inv.get('name', '')}", inv.get("fieldPath", ""), source,
            (ev.get("message") or "").strip(), _since(ev.get("firstTimestamp") or last, now),
            str(ev.get("count") or 1), _name(ev)]


def claim_state(claim: dict) -> str:
    """k8s: printers.go resourceClaimState."""
    deleted = bool((claim.get("metadata") or {}).get("deletionTimestamp"))
    status = claim.get("status") or {}
    states = ["deleted"] if deleted else []
    if not status.get("allocation"):
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if status.get("reservedFor"):
            states.append("reserved")
    return ",".join(states)


# k8s: printers.go printPodDisruptionBudget
PDB_COLUMNS = [NAME,
               _col("Min Available", description="The minimum number or percentage of available pods this budget requires."),
               _col("Max Unavailable", description="The maximum number or percentage of unavailable pods this budget requires."),
               _col("Allowed Disruptions", "integer", description="Number of pod disruptions that are currently allowed."),
               AGE]


def _pdb_row(pdb: dict, now: float) -> list:
    spec = pdb.get("spec") or {}
    shown = [str(spec[k]) if spec.get(k) is not None else "N/A" for k in ("minAvailable", "maxUnavailable")]
    return [_name(pdb), *shown, int((pdb.get("status") or {}).get("disruptionsAllowed") or 0), _age(pdb, now)]


# k8s: printers.go printPriorityClass
PRIORITY_CLASS_COLUMNS = [NAME,
                          _col("Value", "integer", description="value represents the integer value of this priority class."),
                          _col("Global-Default", "boolean", description="globalDefault specifies whether this "
                               "PriorityClass should be considered as the default priority for pods that do not have "
                               "any priority class."),
                          AGE,
                          _col("PreemptionPolicy", description="preemptionPolicy is the Policy for preempting pods "
                               "with lower priority.")]


def _priority_class_row(pc: dict, now: float) -> list:
    return [_name(pc), int(pc.get("value") or 0), bool(pc.get("globalDefault")), _age(pc, now),
            pc.get("preemptionPolicy") or "<unset>"]


PRINTERS = {
    "Pod": (POD_COLUMNS, _pod_row),
    "PriorityClass": (PRIORITY_CLASS_COLUMNS, _priority_class_row),
    "PodDisruptionBudget": (PDB_COLUMNS, _pdb_row),
    "Node": (NODE_COLUMNS, _node_row),
    "Namespace": (NAMESPACE_COLUMNS, lambda o, now: [_name(o), (o.get("status") or {}).get("phase", ""), _age(o, now)]),
    "ResourceQuota": (QUOTA_COLUMNS, _quota_row),
    "Event": (EVENT_COLUMNS, _event_row),
    "ResourceClaim": (CLAIM_COLUMNS, lambda o, now: [_name(o), claim_state(o), _age(o, now)]),
    "ResourceSlice": (SLICE_COLUMNS, lambda o, now: [_name(o), (o.get("spec") or {}).get("nodeName") or "",
                                                     (o.get("spec") or {}).get("driver", ""),
                                                     ((o.get("spec") or {}).get("pool") or {}).get("name", ""),
                                                     _age(o, now)]),
}


def _workload_printers() -> None:
    from drasim.server.tables_workloads import PRINTERS as workloads
    PRINTERS.update(workloads)


def _partial_metadata(obj: dict) -> dict:
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}


def table(kind: str, objects: list[dict], now: float, *, include: str = "Metadata", headers: bool = True,
          resource_version: str = "", continue_token: str = "") -> dict:
    """A meta.k8s.io/v1 Table; includeObject None | Metadata (the default) | Object."""
    columns, row_of = PRINTERS.get(kind, (DEFAULT_COLUMNS, lambda o, now: [_name(o), _age(o, now)]))
    rows = []
    for obj in objects:
        row: dict = {"cells": row_of(obj, now)}
        if include == "Object":
            row["object"] = outgoing(obj)
        elif include != "None":
            row["object"] = _partial_metadata(obj)
        rows.append(row)
    md: dict = {"resourceVersion": resource_version} if resource_version else {}
    if continue_token:
        md["continue"] = continue_token
    out = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": md, "rows": rows}
    if headers:
        out["columnDefinitions"] = columns
    else:
        out["columnDefinitions"] = None
    return out


def wants_table(accept: str) -> bool:
    for part in accept.split(","):
        params = {p.split("=", 1)[0].strip(): p.split("=", 1)[1].strip() for p in part.split(";")[1:] if "=" in p}
        if params.get("as") == "Table" and params.get("g") == "meta.k8s.io":
            return params.get("v") in ("v1", "v1beta1")
        if part.strip():
            return False
    return False


_workload_printers()
