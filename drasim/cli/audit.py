"""`drasim audit SNAPSHOT...`: the migration-readiness report, as a table or JSON."""
from __future__ import annotations

import io
import json

from rich.console import Console
from rich.table import Table

from drasim.plan.audit import Report

_BACKEND_TEXT = {"device-plugin": "device plugin", "dra": "DRA", "none": "none"}


def _nodes_cell(inv) -> str:
    by_backend: dict[str, list[str]] = {}
    for b in inv.nodes:
        label = f"{b.node} ({b.capacity})" if b.backend != "none" else b.node
        by_backend.setdefault(b.backend, []).append(label)
    return "; ".join(f"{_BACKEND_TEXT[k]}: {', '.join(v)}" for k, v in sorted(by_backend.items()))


def render_table(report: Report, width: int = 160) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, markup=False)
    inv = Table(title="Extended resources requested by pods", title_justify="left", show_edge=False)
    for col in ("NAME", "REQUESTED BY (namespace owner: pods × amount)", "SERVED TODAY ON (capacity)",
                "CLASS AFTER THE MOVE"):
        inv.add_column(col, overflow="fold")
    for i in report.inventory:
        uses = ", ".join(f"{u.namespace} {u.owner}: {u.pods} × {u.quantity // max(u.pods, 1)}" for u in i.uses)
        inv.add_row(i.name, uses, _nodes_cell(i), i.device_class or "(none)")
    if report.inventory:
        console.print(inv)
    else:
        console.print("No pod requests an extended resource.")
    findings = report.sorted_findings()
    if not findings:
        console.print("\nNo findings: nothing stands in the way of the move.")
        return buf.getvalue()
    table = Table(title=f"Findings ({len(findings)})", title_justify="left", show_edge=False)
    for col in ("SEVERITY", "FINDING", "OBJECTS", "FIX"):
        table.add_column(col, overflow="fold")
    for f in findings:
        table.add_row(f.severity, f"{f.code}: {f.message}", "\n".join(f.objects), f.fix)
    console.print()
    console.print(table)
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    console.print(f"\n{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return buf.getvalue()


def render_json(report: Report) -> str:
    return json.dumps(report.as_json(), indent=2) + "\n"
