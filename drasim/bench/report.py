"""Printing bench results: a rich table, JSON records, and a progress bar on stderr."""
from __future__ import annotations

import json
import sys
from typing import IO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table


def render_json(records: list[dict]) -> str:
    return json.dumps(records, indent=2, default=str) + "\n"


def _num(value, fmt: str = "{:.1f}") -> str:
    return "-" if value is None else fmt.format(value)


def _pair(counts: dict | None) -> str:
    """Pods/claims, e.g. `2500/2500`."""
    counts = counts or {}
    return f"{counts.get('Pod', 0)}/{counts.get('ResourceClaim', 0)}"


def render_table(records: list[dict], file: IO[str] | None = None) -> None:
    out = file or sys.stdout
    console = Console(file=out, width=None if out.isatty() else 220)
    table = Table(title="drasim bench: pods/s per wall-clock second of drasim, creation and admission included",
                  caption="Throughput: SchedulingThroughput's Average (scheduler_perf's 1 s ticks), or Overall "
                          "where the phase is shorter than two ticks. Fine: 0.1 s ticks, a diagnostic only.")
    for col in ("Workload", "Status", "Throughput", "From", "Average", "Perc50", "Perc90", "Perc99", "Samples",
                "Overall", "Fine", "Pods", "Created p/c", "Admitted p/c", "Duration s", "CPU s", "Unsched.",
                "Threshold", "Result"):
        table.add_column(col, justify="left" if col in ("Workload", "Status", "From", "Result") else "right")
    for r in records:
        m = r.get("metrics") or {}
        tp = m.get("SchedulingThroughput") or {}
        headline = m.get("Throughput") or {}
        result = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "-"}[r.get("passed")]
        status = r["status"] if r["status"] == "ok" else f"[yellow]{escape(r['status'])}[/]"
        source = {"SchedulingThroughput": "1 s ticks", "OverallThroughput": "overall"}.get(headline.get("from"), "-")
        table.add_row(escape(str(r["name"])), status, _num(headline.get("value")), source,
                      _num(tp.get("Average")), _num(tp.get("Perc50")), _num(tp.get("Perc90")), _num(tp.get("Perc99")),
                      _num(m.get("ThroughputSamples"), "{}"), _num(m.get("OverallThroughput")),
                      _num((m.get("FineSchedulingThroughput") or {}).get("Average")),
                      _num(m.get("PodsScheduled"), "{}"), _pair(m.get("Created")), _pair(m.get("Admitted")),
                      _num(m.get("SchedulingDuration"), "{:.2f}"), _num(m.get("CPUTime"), "{:.2f}"),
                      _num(m.get("PodsUnschedulable"), "{}"), _num(r.get("threshold"), "{:g}"), result)
    console.print(table)
    for r in records:
        if r.get("error"):
            console.print(f"[bold]{escape(str(r['name']))}[/]: {escape(r['status'])}: {escape(str(r['error']))}",
                          highlight=False)
        for note in r.get("notes") or ():
            console.print(f"[dim]{escape(str(r['name']))}: note: {escape(str(note))}[/]", highlight=False)


class _Bar:
    def __init__(self, progress: Progress, description: str, total: float) -> None:
        self.progress = progress
        self.task = progress.add_task(escape(description), total=total)

    def update(self, completed: float) -> None:
        self.progress.update(self.task, completed=completed)

    def close(self) -> None:
        self.progress.remove_task(self.task)


class ProgressFactory:
    """`factory(description, total)` → a bar on stderr; use as a context manager around the run."""

    def __init__(self) -> None:
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:.0f}/"
                                 "{task.total:.0f}"), TimeElapsedColumn(), console=Console(file=sys.stderr),
                                 transient=True)

    def __call__(self, description: str, total: float) -> _Bar:
        return _Bar(self.progress, description, total)

    def __enter__(self) -> "ProgressFactory":
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()
