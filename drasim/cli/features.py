"""`drasim features`: v1.37's DRA and scheduling feature gates, their stage and default, and how far
drasim models each (with --feature-gates: also what a run with those gates would use)."""
from __future__ import annotations

import io
import json

from rich.console import Console
from rich.table import Table

from drasim import featuregates


def add_arguments(p) -> None:
    from drasim.cli.args import feature_gates_flag

    feature_gates_flag(p)
    p.add_argument("-o", "--output", choices=("table", "json"), default="table", help="table (default) or json")


def rows(enabled: dict[str, bool]) -> list[dict]:
    return [{"name": g.name, "stage": g.stage, "default": g.default, "lockToDefault": g.locked,
             "enabled": enabled[g.name], "dependsOn": list(g.depends_on), "modelled": g.modelled, "note": g.note}
            for g in sorted(featuregates.GATES.values(), key=lambda g: g.name)]


def render(items: list[dict], output: str) -> str:
    if output == "json":
        return json.dumps({"kubernetesVersion": "v1.37", "featureGates": items}, indent=2) + "\n"
    buf = io.StringIO()
    console = Console(file=buf, width=200, no_color=True, highlight=False, markup=False)
    table = Table(show_edge=False, box=None, pad_edge=False)
    for col in ("NAME", "STAGE", "DEFAULT", "LOCKED", "ENABLED", "DRASIM", "NOTE"):
        table.add_column(col, no_wrap=col != "NOTE")
    for r in items:
        table.add_row(r["name"], r["stage"], str(r["default"]).lower(), "yes" if r["lockToDefault"] else "",
                      str(r["enabled"]).lower(), r["modelled"], r["note"])
    console.print(table)
    return buf.getvalue()


def run(args) -> str:
    return render(rows(args.gates), args.output)
