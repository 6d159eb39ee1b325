"""`drasim sweep SPEC.yaml`: run a sweep's scenarios and print the aggregate."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drasim.plan.sweep import aggregate, load_spec
from drasim.plan.sweep_runner import run_sweep


def add_arguments(sw) -> None:
    sw.add_argument("spec", metavar="SPEC.yaml", help="the sweep: cluster, workload, pools and the dimensions to vary")
    sw.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    sw.add_argument("--ray", metavar="ADDRESS", help="run on Ray: 'local' starts a local instance, 'auto' or an "
                                                     "address joins a running cluster")
    sw.add_argument("--results", metavar="DIR", help="keep each scenario's result here; a rerun skips finished ones")
    sw.add_argument("-o", "--output", choices=("table", "json"), default="table", help="table (default) or json")
    sw.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report with plots to FILE")


def _fmt(p: dict | None, fmt: str = "{:g}") -> str:
    if not p:
        return "-"
    return " / ".join(fmt.format(p[k]) for k in ("p50", "p90", "p99"))


def render_table(rows: list[dict], records: list[dict]) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=180, no_color=True, highlight=False, markup=False)
    table = Table(title="Sweep (p50 / p90 / p99 over seeds)", title_justify="left", show_edge=False)
    for col in ("SCENARIO", "RUNS", "FAILED", "PENDING PODS", "UTILISATION", "EVICTIONS", "WORST P99 WAIT (s)"):
        table.add_column(col, overflow="fold")
    for r in rows:
        group = ", ".join(f"{k}={json.dumps(v) if isinstance(v, dict) else v}" for k, v in r["group"].items())
        table.add_row(group, str(r["runs"]), str(r["failed"]), _fmt(r["pending"]), _fmt(r["utilisation"], "{:.0%}"),
                      _fmt(r["evictions"]), "-" if r["timeToScheduleP99"] is None else f"{r['timeToScheduleP99']:g}")
    console.print(table)
    for rec in records:
        if "error" in rec:
            console.print(f"failed: {json.dumps(rec['scenario'], sort_keys=True)}: {rec['error']}")
    return buf.getvalue()


def run(args) -> int:
    if args.workers < 1:
        from drasim.errors import InputError
        raise InputError("--workers: must be at least 1")
    spec = load_spec(args.spec)
    progress = None
    if sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            print(f"\rsweep: {done}/{total} scenarios", end="" if done < total else "\n", file=sys.stderr, flush=True)
    records = run_sweep(spec, workers=args.workers, ray_address=args.ray,
                        results=Path(args.results) if args.results else None, progress=progress)
    rows = aggregate(records)
    if args.html:
        from drasim.report import html, pages
        html.write(pages.sweep_page(rows, records), args.html)
    if args.output == "json":
        sys.stdout.write(json.dumps({"groups": rows, "scenarios": records}, indent=2) + "\n")
    else:
        sys.stdout.write(render_table(rows, records))
    return 1 if any("error" in r for r in records) else 0
