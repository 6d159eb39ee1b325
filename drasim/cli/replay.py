"""`drasim replay TRACE --cluster PHASE...`: pods arrive and finish on the virtual clock."""
from __future__ import annotations

import io
import json

from rich.console import Console
from rich.table import Table

from drasim.api.duration import parse_go_duration
from drasim.errors import InputError


def _hms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


def render_table(summary: dict, width: int = 160) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, markup=False)
    console.print(f"Replayed {_hms(summary['duration'])} of virtual time; device utilisation "
                  f"{summary['utilisation']:.1%}; {summary['evictions']} pod(s) evicted; "
                  f"{summary['idleDeviceHoursWhilePodsPending']:g} device-hours idle while pods were pending.")
    table = Table(title="Per namespace", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "PODS", "SCHEDULED", "NEVER SCHEDULED", "EVICTED", "WAIT p50 / p90 / p99", "DEVICE-HOURS",
                "MEMORY GiB-HOURS"):
        table.add_column(col, overflow="fold")
    for ns, row in summary["namespaces"].items():
        waits = row["timeToSchedule"]
        table.add_row(ns, str(row["pods"]), str(row["scheduled"]), str(row["neverScheduled"]), str(row["evicted"]),
                      " / ".join(_hms(waits[k]) for k in ("p50", "p90", "p99")) if waits else "-",
                      f"{row['deviceHours']:g}", f"{row['memoryGiBHours']:g}")
    console.print(table)
    for cls, hours in summary["deviceHoursByClass"].items():
        waits = summary["timeToScheduleByClass"].get(cls)
        used = summary["utilisationByClass"].get(cls)
        console.print(f"{cls}: {hours:g} device-hours" + ("" if used is None else f", utilisation {used:.1%}")
                      + ("" if not waits else f", wait p50/p99 {_hms(waits['p50'])}/{_hms(waits['p99'])}"))
    for pool, used in summary["utilisationByNodePool"].items():
        if used is not None:
            console.print(f"node pool {pool}: utilisation {used:.1%}")
    for refused in summary["refusedArrivals"]:
        console.print(f"refused arrival: {refused}")
    return buf.getvalue()


def run(args) -> int:
    from drasim.plan.timeline import load_trace, replay, summary
    from drasim.cli.main import _read_phases

    until = None
    if args.until:
        try:
            until = parse_go_duration(args.until)
        except ValueError as e:
            raise InputError(f"--until: {e}") from None
    trace = load_trace(args.trace)
    import sys
    if sys.stderr.isatty():   # a long replay shows how far virtual time got
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        with Progress(TextColumn("replay"), BarColumn(), TextColumn("{task.fields[at]}"), TimeElapsedColumn(),
                      transient=True) as bar:
            task = bar.add_task("replay", total=1.0, at="")
            timeline = replay(_read_phases(args.cluster), trace, args.options, until=until,
                              progress=lambda done, total: bar.update(task, completed=done / total if total else 1.0,
                                                                      at=f"{_hms(done)} of {_hms(total)}"))
    else:
        timeline = replay(_read_phases(args.cluster), trace, args.options, until=until)
    result = summary(timeline)
    if args.html:
        from drasim.report import html, pages
        html.write(pages.timeline_page(timeline, result), args.html)
    if args.output == "json":
        out = dict(result, samples=[{"t": t, "pending": p, "running": r, "devicesAllocated": d}
                                    for t, p, r, d in timeline.samples],
                   pods=[vars(p) for p in timeline.pods.values()])
        return print(json.dumps(out, indent=2)) or 0
    print(render_table(result), end="")
    return 0
