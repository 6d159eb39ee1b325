"""The HTML pages `--html FILE` writes: one per command, built from the same results the
tables print (drasim/plan, the settled control plane)."""
from __future__ import annotations

from drasim.report.html import Page

SEVERITY_COLOURS = {"error": "#b00020", "warning": "#d98a00", "info": "#7a7a7a"}


def _go():
    import plotly.graph_objects as go   # imported on use: only --html needs plotly
    return go


def device_heatmap(page: Page, cp) -> None:
    """Nodes × their devices: allocated (1) or free (0), so fragmentation is visible at a glance."""
    go = _go()
    allocated = {(r["pool"], r["device"]) for c in cp.store.list("ResourceClaim")
                 for r in ((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])}
    rows: dict[str, list[tuple[str, int]]] = {}
    for s in sorted(cp.store.list("ResourceSlice"), key=lambda s: s["metadata"]["name"]):
        node = (s.get("spec") or {}).get("nodeName") or "(shared)"
        pool = ((s.get("spec") or {}).get("pool") or {}).get("name", "")
        for d in (s.get("spec") or {}).get("devices") or ():
            rows.setdefault(node, []).append((d["name"], int((pool, d["name"]) in allocated)))
    if not rows:
        page.note("No ResourceSlices: no devices to show.")
        return
    nodes = sorted(rows)
    width = max(len(v) for v in rows.values())
    z = [[v for _, v in rows[n]] + [None] * (width - len(rows[n])) for n in nodes]
    text = [[name for name, _ in rows[n]] + [""] * (width - len(rows[n])) for n in nodes]
    fig = go.Figure(go.Heatmap(z=z, y=nodes, text=text, hovertemplate="%{y} %{text}: %{z}<extra></extra>",
                               colorscale=[[0, "#e8f1e4"], [1, "#2e7d32"]], zmin=0, zmax=1, showscale=False,
                               xgap=2, ygap=2))
    fig.update_layout(title="Devices per node (dark: allocated)", height=max(250, 28 * len(nodes) + 120),
                      xaxis={"title": "device (in slice order)", "showticklabels": False}, margin={"l": 160})
    page.figure(fig)


def simulate_page(cp, title: str = "drasim simulate") -> Page:
    go = _go()
    page = Page(title)
    pods = cp.store.list("Pod")
    phases: dict[str, int] = {}
    for p in pods:
        phase = (p.get("status") or {}).get("phase") or ("Pending" if not p["spec"].get("nodeName") else "Unknown")
        phases[phase] = phases.get(phase, 0) + 1
    page.heading("Pods")
    if phases:
        fig = go.Figure(go.Bar(x=list(phases), y=list(phases.values()), marker_color="#1565c0"))
        fig.update_layout(title="Pods by phase", height=320)
        page.figure(fig)
    pending = []
    for p in sorted(pods, key=lambda p: (p["metadata"].get("namespace"), p["metadata"]["name"])):
        if not p["spec"].get("nodeName"):
            cond = next((c for c in (p.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"),
                        {})
            pending.append([f"{p['metadata'].get('namespace')}/{p['metadata']['name']}",
                            cond.get("message") or "waiting to be scheduled"])
    if pending:
        page.table(["PENDING POD", "WHY"], pending)
    page.heading("Devices")
    device_heatmap(page, cp)
    return page


def audit_page(report) -> Page:
    go = _go()
    page = Page("drasim audit: readiness for the move from device plugins to DRA")
    findings = report.sorted_findings()
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    fig = go.Figure(go.Bar(x=list(counts), y=list(counts.values()), marker_color=[SEVERITY_COLOURS[s] for s in counts]))
    fig.update_layout(title="Findings by severity", height=300)
    page.figure(fig)
    page.heading("Findings")
    if findings:
        page.table(["SEVERITY", "FINDING", "MESSAGE", "OBJECTS", "FIX"],
                   [[f.severity, f.code, f.message, "\n".join(f.objects), f.fix] for f in findings],
                   classes=[f.severity for f in findings])
    else:
        page.note("No findings: nothing stands in the way of the move.")
    page.heading("Extended resources requested by pods")
    page.table(["NAME", "REQUESTED BY", "SERVED TODAY", "CLASS AFTER THE MOVE"],
               [[i.name, "\n".join(f"{u.namespace} {u.owner}: {u.pods} pod(s)" for u in i.uses),
                 "\n".join(f"{b.node}: {b.backend} ({b.capacity})" for b in i.nodes), i.device_class or "(none)"]
                for i in report.inventory])
    return page


def ledger_page(books, notes: list[str]) -> Page:
    go = _go()
    page = Page("drasim ledger: what each namespace's device counts bought")
    names = [b.namespace for b in books]
    fig = go.Figure([go.Bar(name="devices counted", x=names, y=[b.devices for b in books]),
                     go.Bar(name="whole-device equivalents", x=names, y=[b.whole_equivalents for b in books])])
    fig.update_layout(barmode="group", title="Counted devices vs whole-device equivalents", height=360)
    page.figure(fig)
    fig = go.Figure(go.Bar(x=names, y=[b.memory_gib for b in books], marker_color="#6a1b9a"))
    fig.update_layout(title="Accelerator memory (GiB)", height=320)
    page.figure(fig)
    for note in notes:
        page.note(note)
    page.heading("Devices")
    page.table(["NAMESPACE", "CLAIM", "PODS", "DEVICE", "KIND", "MODEL", "MEMORY GiB", "SHARE"],
               [[e.namespace, e.claim or "(device plugin)", ", ".join(e.pods), e.device, e.kind, e.model or "-",
                 round((e.memory_bytes or 0) / 1024 ** 3, 3), round(e.share, 4)] for b in books for e in b.entries])
    return page


def sweep_page(rows: list[dict], records: list[dict]) -> Page:
    go = _go()
    page = Page("drasim sweep")
    labels = [", ".join(f"{k}={v}" for k, v in r["group"].items() if v not in ({}, "as-written")) or "(defaults)"
              for r in rows]
    for metric, title in (("pending", "Pending pods (p50, bars to p90)"), ("utilisation", "Device utilisation (p50)")):
        values = [(r[metric] or {}).get("p50") for r in rows]
        errors = [((r[metric] or {}).get("p90") or 0) - (v or 0) for r, v in zip(rows, values)]
        fig = go.Figure(go.Bar(x=labels, y=values, error_y={"type": "data", "symmetric": False, "array": errors,
                                                             "arrayminus": [0] * len(values)}))
        fig.update_layout(title=title, height=380, xaxis={"tickangle": -30})
        page.figure(fig)
    failed = [r for r in records if "error" in r]
    if failed:
        page.heading("Failed scenarios")
        page.table(["SCENARIO", "ERROR"], [[str(r["scenario"]), r["error"]] for r in failed])
    return page


def timeline_page(timeline, summary: dict) -> Page:
    """Pods pending and running, devices allocated over time; device-hours per namespace."""
    go = _go()
    page = Page("drasim replay: a timeline")
    hours = [t / 3600 for t, *_ in timeline.samples]
    fig = go.Figure([go.Scatter(x=hours, y=[p for _, p, _, _ in timeline.samples], name="pending", line_shape="hv"),
                     go.Scatter(x=hours, y=[r for _, _, r, _ in timeline.samples], name="running", line_shape="hv")])
    fig.update_layout(title="Pods over time", xaxis_title="hours", height=360)
    page.figure(fig)
    fig = go.Figure([go.Scatter(x=hours, y=[d for *_, d in timeline.samples], name="allocated", line_shape="hv",
                                fill="tozeroy"),
                     go.Scatter(x=[0, hours[-1] if hours else 0], y=[timeline.total_devices] * 2, name="published",
                                line={"dash": "dash"})])
    fig.update_layout(title=f"Devices allocated (utilisation {summary['utilisation']:.1%})", xaxis_title="hours",
                      height=360)
    page.figure(fig)
    names = list(summary["namespaces"])
    fig = go.Figure(go.Bar(x=names, y=[summary["namespaces"][n]["deviceHours"] for n in names], marker_color="#6a1b9a"))
    fig.update_layout(title="Device-hours per namespace", height=320)
    page.figure(fig)
    page.table(["NAMESPACE", "PODS", "SCHEDULED", "NEVER SCHEDULED", "EVICTED", "DEVICE-HOURS"],
               [[n, r["pods"], r["scheduled"], r["neverScheduled"], r["evicted"], r["deviceHours"]]
                for n, r in summary["namespaces"].items()])
    return page


def migrate_page(m) -> Page:
    """Before/after for a node-by-node migration: devices in use and pods pending per step."""
    go = _go()
    page = Page("drasim migrate: the node-by-node move to DRA")
    steps = ["before"] + [s.node for s in m.steps]
    fig = go.Figure([go.Bar(name="devices in use", x=steps, y=[m.before_devices_in_use] + [s.devices_in_use for s in m.steps]),
                     go.Bar(name="pods pending", x=steps, y=[len(m.before_pending)] + [len(s.pending) for s in m.steps])])
    fig.update_layout(barmode="group", title="After each node", height=360)
    page.figure(fig)
    for s in m.steps:
        page.heading(f"{s.node}: {'done' if s.ok else 'stopped'}")
        if not s.ok:
            page.note(s.problem or "")
            continue
        page.table(["POD", "MOVED"], [[p, v] for p, v in sorted(s.moved.items())])
        if s.pending:
            page.table(["PENDING POD", "WHY"], [[p, v] for p, v in sorted(s.pending.items())])
        page.note(", ".join(f"{k}: {v}" for k, v in s.capacity_after.items()) + " (capacity after; 0 wanted)")
    return page
