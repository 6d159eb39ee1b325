"""`drasim explain POD --cluster PHASE...`: where a pod is or would go, and why, node by node."""
from __future__ import annotations

import io
import json

from rich.console import Console
from rich.table import Table

from drasim.cli.render import terminal_width, tidy
from drasim.cli.view import pending_reason, pod_claims, warnings_by_pod
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from drasim.scheduler.explain import Explanation, explain


def find_pod(cp: ControlPlane, ref: str) -> dict:
    ns, _, name = ref.rpartition("/")
    if not name or "/" in ns:
        raise InputError(f'{ref!r}: a pod is named NAME or NAMESPACE/NAME')
    pod = cp.store.get("Pod", ns or "default", name)
    if pod is None:
        raise InputError(f'pods "{name}" not found in namespace "{ns or "default"}"{_made_from(cp, ns or "default", name)}')
    return pod


def _made_from(cp: ControlPlane, namespace: str, name: str) -> str:
    """A workload's name given for a pod's (a Job, a Deployment): the pods its controller named after it."""
    prefix = f"{name}-"
    made = sorted(p["metadata"]["name"] for p in cp.store.list("Pod") if p["metadata"].get("namespace") == namespace
                  and p["metadata"]["name"].startswith(prefix))
    if not made:
        return ""
    shown = ", ".join(made[:5]) + (f" and {len(made) - 5} more" if len(made) > 5 else "")
    return f'; pods whose names start with "{prefix}": {shown}'


def _gang_line(cp: ControlPlane, pod: dict) -> str | None:
    """The pod's gang, if it is in one: a pod that fits alone may still wait for its group."""
    if cp.gang is None:
        return None
    from drasim.scheduler.plugins.gangscheduling import gang_min_count, group_key

    key = group_key(pod)
    group = cp.store.get("PodGroup", *key) if key else None
    need = gang_min_count(group)
    if need is None:
        return None
    members = cp.gang.members(key)
    bound = sum(1 for p in members if (p.get("spec") or {}).get("nodeName"))
    cond = next((c for c in (group.get("status") or {}).get("conditions") or ()
                 if c.get("type") == "PodGroupInitiallyScheduled"), None)
    state = f"; PodGroupInitiallyScheduled={cond['status']} ({cond.get('reason')})" if cond else ""
    return (f"  gang: PodGroup {key[0]}/{key[1]} needs {need} pods placed together; {len(members)} exist, "
            f"{bound} bound{state}")


def render_table(cp: ControlPlane, pod: dict, why: Explanation) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=terminal_width(), no_color=True, highlight=False, markup=False)
    md = pod["metadata"]
    node = pod["spec"].get("nodeName")
    claims = {(c["metadata"].get("namespace"), c["metadata"]["name"]): c for c in cp.store.list("ResourceClaim")}
    if node:
        console.print(f"Pod {md.get('namespace')}/{md['name']} runs on {node} ({pod['status'].get('phase')}).")
    else:
        # The same reason the simulate tables give: condition, else newest Warning Event, else waiting.
        found = cp.scheduler.pre_enqueue_rejection(pod)
        key = (pod["metadata"].get("namespace"), pod["metadata"]["name"])
        reason = pending_reason(pod, warnings_by_pod(cp.store.list("Event")),
                                {key: f"{found[0]}: {found[1]}"} if found else None)
        console.print(f"Pod {md.get('namespace')}/{md['name']} is Pending: {reason}")
    for label, claim in pod_claims(pod, claims):
        results = (((claim or {}).get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])
        devices = ", ".join(f"{r['driver']}/{r['pool']}/{r['device']}" for r in results) or "(unallocated)"
        console.print(f"  claim {label}: {devices}")
    gang = _gang_line(cp, pod)
    if gang:
        console.print(gang)
    console.print()
    if why.gated:
        console.print(f"Not tried yet (PreEnqueue): {why.gated}")
    elif why.pre_filter:
        console.print(f"Rejected before any node is looked at (PreFilter): {why.pre_filter}")
    elif why.error:
        console.print(f"Scheduler error: {why.error}")
    else:
        console.print("A scheduling cycle for this pod on the cluster as it is now, every node evaluated"
                      + (" (as if it were placed again; its claims keep their devices):" if node else ":"))
        plugins = sorted({p for v in why.nodes for p in v.scores})
        t = Table(show_edge=False)
        for col in ["NODE", "FILTER", *plugins, "TOTAL"]:
            t.add_column(col, overflow="fold")
        for v in sorted(why.nodes, key=lambda v: (v.total is None, -(v.total or 0), v.node)):
            verdict = "fits" if v.status is None else f"{v.status.plugin}: {v.status.message()}"
            t.add_row(v.node, verdict, *[str(v.scores.get(p, "")) for p in plugins],
                      "" if v.total is None else str(v.total))
        console.print(t)
        _device_reasons(console, cp, pod, why)
    return tidy(buf.getvalue())


DEVICE_NODES_SHOWN = 5   # nodes whose device-level reasons are printed (JSON has all)


def _dra_rejected(cp: ControlPlane, why: Explanation) -> list[dict]:
    names = [v.node for v in why.nodes if v.status is not None and v.status.plugin == "DynamicResources"]
    return [n for n in (cp.store.get("Node", None, name) for name in names) if n is not None]


def _device_reasons(console, cp: ControlPlane, pod: dict, why: Explanation) -> None:
    """Down to the device: for DRA-rejected nodes, each request's devices and why each cannot serve it."""
    from drasim.plan.devicewhy import explain_node

    nodes = _dra_rejected(cp, why)
    for node in nodes[:DEVICE_NODES_SHOWN]:
        for r in explain_node(cp, pod, node):
            console.print()
            count = r.count if r.count == "all" else f"{r.count} device(s)"
            console.print(f"{node['metadata']['name']}: {r.claim}, request {r.request} "
                          f"(class {r.device_class or '-'}, {count}): {r.hint}")
            for d in r.devices:
                detail = f" ({d.detail})" if d.detail else ""
                console.print(f"  {d.device}: {'usable' if d.reason is None else d.reason}{detail}")
    if len(nodes) > DEVICE_NODES_SHOWN:
        console.print(f"\n({len(nodes) - DEVICE_NODES_SHOWN} more node(s) rejected by DynamicResources: -o json has them all)")


def render_json(cp: ControlPlane, pod: dict, why: Explanation) -> str:
    out = {"pod": f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}",
           "node": pod["spec"].get("nodeName"), "gated": why.gated, "preFilter": why.pre_filter, "error": why.error,
           "nodes": [{"node": v.node, "fits": v.status is None,
                      "plugin": None if v.status is None else v.status.plugin,
                      "reason": None if v.status is None else v.status.message(),
                      "scores": v.scores, "total": v.total} for v in why.nodes]}
    from drasim.plan.devicewhy import explain_node
    out["devices"] = {node["metadata"]["name"]: [
        {"claim": r.claim, "request": r.request, "deviceClass": r.device_class, "count": r.count, "usable": r.usable,
         "hint": r.hint, "devices": [{"device": d.device, "reason": d.reason, "detail": d.detail} for d in r.devices]}
        for r in explain_node(cp, pod, node)] for node in _dra_rejected(cp, why)}
    return json.dumps(out, indent=2) + "\n"


def run(pod_ref: str, cp: ControlPlane, output: str) -> str:
    pod = find_pod(cp, pod_ref)
    why = explain(cp.scheduler, pod)
    return render_json(cp, pod, why) if output == "json" else render_table(cp, pod, why)
