"""`drasim migrate SNAPSHOT... --node N --driver-slices FILE`: the node-by-node what-if, printed."""
from __future__ import annotations

import io
import json

from rich.console import Console
from rich.table import Table

from drasim.plan.migrate import Migration


def render_table(m: Migration, width: int = 160) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, markup=False)
    console.print(f"Before: {m.before_devices_in_use} device(s) serve pods' extended resources; "
                  f"{len(m.before_pending)} pod(s) pending.")
    for s in m.steps:
        console.print()
        if not s.ok:
            console.print(f"{s.node}: stopped: {s.problem}")
            continue
        zero = all(v == 0 for v in s.capacity_after.values())
        console.print(f"{s.node}: cordoned, drained, device plugin removed, DRA slices published, uncordoned. "
                      f"Capacity for {', '.join(s.names) or 'its extended resources'} now "
                      f"{'0 (as the runbook checks)' if zero else s.capacity_after}; "
                      f"{s.devices_in_use} device(s) in use.")
        table = Table(show_edge=False, title_justify="left")
        table.add_column("POD", overflow="fold")
        table.add_column("MOVED", overflow="fold")
        for pod, move in sorted(s.moved.items()):
            table.add_row(pod, move)
        if s.moved:
            console.print(table)
        for pod in s.lost:
            console.print(f"lost: {pod} has no controller; kubectl drain refuses it without --force")
        for pod, why in sorted(s.pending_during.items()):
            console.print(f"pending while drained: {pod}: {why}")
        for pod, why in sorted(s.pending.items()):
            console.print(f"pending after: {pod}: {why}")
        for quota, used in s.quota.items():
            console.print(f"quota {quota}: " + ", ".join(f"{k}={v}" for k, v in used.items()))
    return buf.getvalue()


def render_waves(waves: list[list[str]], stuck: list[str]) -> str:
    lines = [f"wave {i}: {', '.join(w)}" for i, w in enumerate(waves, start=1)]
    if stuck:
        lines.append(f"cannot be migrated without leaving pods Pending: {', '.join(stuck)}")
    return "\n".join(lines or ["no device-plugin nodes"]) + "\n"


def render_json(m: Migration) -> str:
    return json.dumps(m.as_json(), indent=2) + "\n"
