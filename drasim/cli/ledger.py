"""`drasim ledger PHASE...`: per namespace, what its device counts bought (table, JSON or CSV)."""
from __future__ import annotations

import csv
import io
import json

from rich.console import Console
from rich.table import Table

from drasim.plan.ledger import GIB, NamespaceLedger, same_count_different_hardware

CSV_COLUMNS = ("namespace", "claim", "pods", "request", "device_class", "device", "kind", "model", "memory_bytes", "numa", "share")


def _gib(value: int | None) -> str:
    return "-" if value is None else f"{value / GIB:g}Gi"


def render_table(books: list[NamespaceLedger], width: int = 160) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, markup=False)
    summary = Table(title="What each namespace's devices are", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "DEVICES", "WHOLE-DEVICE EQUIVALENTS", "MEMORY", "HARDWARE", "QUOTA (used / hard)"):
        summary.add_column(col, overflow="fold")
    for b in books:
        hardware = ", ".join(f"{n} × {kind}{' ' + model if model else ''}"
                             for (kind, model), n in sorted(b.hardware().items(), key=lambda kv: str(kv[0])))
        if b.mixed:
            hardware += "  (one count, different hardware)"
        quota = "\n".join(f"{q}: {k} {v}" for q, keys in b.quota.items() for k, v in keys.items())
        summary.add_row(b.namespace, str(b.devices), f"{b.whole_equivalents:g}", f"{b.memory_gib:g}Gi",
                        hardware or "-", quota or "-")
    console.print(summary)
    if any(b.over_time for b in books):
        over = Table(title="Over the replayed trace", title_justify="left", show_edge=False)
        for col in ("NAMESPACE", "PODS", "DEVICE-HOURS", "MEMORY GiB-HOURS"):
            over.add_column(col)
        for b in books:
            if b.over_time:
                over.add_row(b.namespace, str(b.over_time["pods"]), f"{b.over_time['deviceHours']:g}",
                             f"{b.over_time['memoryGiBHours']:g}")
        console.print(over)
    for note in same_count_different_hardware(books):
        console.print(f"note: {note}")
    detail = Table(title="Devices", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "CLAIM", "PODS", "DEVICE", "KIND", "MODEL", "MEMORY", "NUMA", "SHARE"):
        detail.add_column(col, overflow="fold")
    for b in books:
        for e in b.entries:
            detail.add_row(e.namespace, e.claim or "(device plugin)", ", ".join(e.pods), e.device, e.kind,
                           e.model or "-", _gib(e.memory_bytes), e.numa or "-", f"{e.share:g}")
    console.print()
    console.print(detail)
    return buf.getvalue()


def render_json(books: list[NamespaceLedger]) -> str:
    return json.dumps({"namespaces": [b.as_json() for b in books],
                       "notes": same_count_different_hardware(books)}, indent=2) + "\n"


def render_csv(books: list[NamespaceLedger]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for b in books:
        for e in b.entries:
            writer.writerow([e.namespace, e.claim, " ".join(e.pods), e.request, e.device_class or "", e.device, e.kind, e.model or "",
                             "" if e.memory_bytes is None else e.memory_bytes, e.numa or "", f"{e.share:g}"])
    return buf.getvalue()
