"""`drasim plan SNAPSHOT... --pool POOLS.yaml`: which nodes to add so the pending pods schedule."""
from __future__ import annotations

import io
import json
from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from drasim.errors import InputError
from drasim.hardware import generate
from drasim.plan.scaleout import Candidate, Plan


def load_candidates(paths: list[str]) -> list[Candidate]:
    out: list[Candidate] = []
    for path in paths:
        try:
            spec = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: cannot read: {e}") from None
        except yaml.YAMLError as e:
            raise InputError(f"{path}: invalid YAML: {e}") from None
        pools = spec.get("pools") if isinstance(spec, dict) else None
        if not isinstance(pools, list) or not pools:
            raise InputError(f"{path}: pools: must be a non-empty list of node pools")
        for i, pool in enumerate(pools):
            if not isinstance(pool, dict):
                raise InputError(f"{path}: pools[{i}]: must be a mapping")
            pool = dict(pool)
            cost = pool.pop("cost", None)
            if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0):
                raise InputError(f"{path}: pools[{i}].cost: must be a number >= 0, not {cost!r}")
            try:
                generate({"pools": [dict(pool, count=1)]})   # the pool must generate
            except InputError as e:
                raise InputError(f"{path}: {str(e).replace('pools[0]', f'pools[{i}]')}") from None
            if any(c.name == pool.get("name") for c in out):
                raise InputError(f"{path}: pools[{i}].name: {pool.get('name')!r} is given twice")
            out.append(Candidate(pool["name"], pool, None if cost is None else float(cost)))
    return out


def render_table(result: Plan, width: int = 160) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, markup=False)
    console.print(f"{len(result.baseline_pending)} pod(s) pending before adding nodes.")
    if result.best is not None:
        add = ", ".join(f"{n} node(s) of {pool}" for pool, n in sorted(result.best["add"].items())) or "nothing"
        cost = "" if result.best["cost"] is None else f" (cost {result.best['cost']:g})"
        console.print(f"Add {add}{cost}: every pod a candidate can serve then schedules.")
    else:
        console.print("No candidate, alone or mixed, schedules every pod a candidate can serve.")
    for pool, c in sorted(result.coverage.items()):
        line = f"{pool}: serves {c['serves']} of the {c['of']} pending pod(s)"
        if c["cannotServe"]:
            line += f"; not e.g. {c['cannotServe']['pod']}: {c['cannotServe']['why']}"
        console.print(line)
    if result.answers:
        table = Table(title="Answers found (each confirmed by a simulation)", title_justify="left", show_edge=False)
        for col in ("ADD", "COST", "STILL PENDING"):
            table.add_column(col, overflow="fold")
        for a in sorted(result.answers, key=lambda a: (a["cost"] is None, a["cost"] or 0, sorted(a["add"].items()))):
            table.add_row(", ".join(f"{n} × {p}" for p, n in sorted(a["add"].items())),
                          "-" if a["cost"] is None else f"{a['cost']:g}", str(len(a["pending"])))
        console.print(table)
    if result.unservable:
        table = Table(title="Pods no candidate can serve", title_justify="left", show_edge=False)
        for col in ("POD", "POOL", "WHY (the scheduler's reason with the pool added)"):
            table.add_column(col, overflow="fold")
        for pod, reasons in sorted(result.unservable.items()):
            for pool, why in sorted(reasons.items()):
                table.add_row(pod, pool, why)
        console.print(table)
    return buf.getvalue()


def render_json(result: Plan) -> str:
    return json.dumps(result.as_json(), indent=2) + "\n"
