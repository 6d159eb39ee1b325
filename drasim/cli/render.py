"""Output of `drasim simulate`: the Kubernetes List (json/yaml) and tables for people.

Tables fit the terminal: its width, or COLUMNS, or 160 columns when printing to a pipe; long
cells fold onto more lines, they are never cut. `-o wide` adds the long columns. A large
cluster gets a summary instead of one row per pod unless `--show` asks for the tables.
"""
from __future__ import annotations

import io
import shutil

import yaml
from rich.console import Console
from rich.table import Table

from drasim.api.nesting import dumps_indented
from drasim.cli import view

SMALL_CLUSTER_PODS = 50     # up to this many pods, every table; above, the summary first
TABLES = ("summary", "pods", "pending", "claims", "extended", "nodes", "devices", "rules")
DEFAULT_SMALL = ("pods", "pending", "claims", "extended", "rules")
DEFAULT_LARGE = ("summary", "rules")
FALLBACK_WIDTH = 160        # not a terminal and no COLUMNS: wide enough for a file or a pager


def terminal_width() -> int:
    """COLUMNS when set, else the terminal's width, else FALLBACK_WIDTH (stdout is a pipe or file)."""
    return max(20, shutil.get_terminal_size((FALLBACK_WIDTH, 24)).columns)


def console(buf: io.StringIO, width: int | None = None) -> Console:
    return Console(file=buf, width=width or terminal_width(), no_color=True, highlight=False,
                   soft_wrap=False, markup=False, emoji=False)


def as_list(objects: list[dict]) -> dict:
    """The `List` kubectl prints for `get -o json` (conformance/README.md contract)."""
    return {"apiVersion": "v1", "kind": "List", "items": objects, "metadata": {"resourceVersion": ""}}


def render_json(objects: list[dict]) -> str:
    # json.dumps(indent=2), byte for byte, in linear time at any depth (drasim.api.nesting)
    return dumps_indented(as_list(objects), indent=2) + "\n"


def render_yaml(objects: list[dict]) -> str:
    return yaml.safe_dump(as_list(objects), sort_keys=False, default_flow_style=False)


def _table(title: str, columns: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left", show_edge=False)
    for col in columns:
        t.add_column(col, overflow="fold")
    return t


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(out: Console, cluster: view.Cluster, rows: list[view.PodRow]) -> None:
    out.print()
    phases = ", ".join(f"{n} {phase}" for phase, n in view.phase_counts(rows))
    claims = cluster.kind("ResourceClaim")
    allocated = sum(1 for c in claims if (c.get("status") or {}).get("allocation"))
    out.print(f"{_plural(len(rows), 'pod')}{f' ({phases})' if rows else ''}; "
              f"{_plural(len(cluster.kind('Node')), 'node')}; "
              f"{_plural(len(claims), 'ResourceClaim')} ({allocated} allocated)")
    pools = view.pool_rows(cluster)
    if pools:
        t = _table("Devices by node pool", ("NODE POOL", "DRIVER", "NODES", "ALLOCATED", "BY CLASS"))
        for p in pools:
            t.add_row(p.node_pool, p.driver, str(p.nodes), f"{p.allocated}/{p.devices}",
                      ", ".join(f"{cls}: {n}" for cls, n in p.by_class))
        out.print()
        out.print(t)
    reasons = view.grouped_reasons(rows)
    if reasons:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(overflow="fold")
        for n, reason in reasons:
            grid.add_row(f"{_plural(n, 'pod')}:", reason)
        out.print()
        out.print("Pending pods by reason")
        out.print(grid)


def _pods(out: Console, rows: list[view.PodRow], wide: bool) -> None:
    t = _table("Pods", ("NAMESPACE", "NAME", "NODE", "PHASE", "CLAIMS → DEVICES") + (("REASON",) if wide else ()))
    for r in rows:
        parts = "\n".join(f"{label}: {', '.join(devs) if devs else '(unallocated)'}" for label, devs in r.claims)
        t.add_row(r.namespace, r.name, r.node or "<none>", r.phase, parts, *((r.reason,) if wide else ()))
    out.print()
    out.print(t)


def _pending(out: Console, rows: list[view.PodRow]) -> None:
    pending = [r for r in rows if r.phase == "Pending" and not r.node]
    if pending:
        t = _table("Pending pods", ("POD", "WHY"))
        for r in pending:
            t.add_row(f"{r.namespace}/{r.name}", r.reason)
        out.print()
        out.print(t)
    evicted = [r for r in rows if r.phase == view.EVICTED]
    if evicted:
        t = _table("Evicted pods (deleted; not in -o json)", ("POD", "NODE", "WHY"))
        for r in evicted:
            t.add_row(f"{r.namespace}/{r.name}", r.node, r.reason)
        out.print()
        out.print(t)


def _claims(out: Console, cluster: view.Cluster, wide: bool) -> None:
    t = _table("ResourceClaims", ("NAMESPACE", "NAME", "STATE", "DEVICES", "RESERVED FOR")
               + (("REQUESTS → CLASS",) if wide else ()))
    for claim in cluster.kind("ResourceClaim"):
        status = claim.get("status") or {}
        reserved = [r.get("name", "") for r in status.get("reservedFor") or ()]
        state = "allocated,reserved" if reserved and status.get("allocation") else (
            "allocated" if status.get("allocation") else "pending")
        extra = ("\n".join(f"{req}: {cls}" for req, cls in view._request_classes(claim).items()),) if wide else ()
        t.add_row(claim["metadata"].get("namespace", ""), claim["metadata"]["name"], state,
                  "\n".join(view.devices_of(claim)), ", ".join(reserved), *extra)
    out.print()
    out.print(t)


def _extended(out: Console, cluster: view.Cluster) -> None:
    claims = cluster.claims
    rows = []
    for pod in cluster.kind("Pod"):
        ext = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if not ext:
            continue
        claim = claims.get((pod["metadata"].get("namespace"), ext["resourceClaimName"]))
        results = (((claim or {}).get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])
        for m in ext.get("requestMappings") or ():
            devs = [f"{r['driver']}/{r['pool']}/{r['device']}" for r in results if r["request"] == m["requestName"]]
            rows.append((view.pod_key(pod), m["containerName"], m["resourceName"], ext["resourceClaimName"],
                         m["requestName"], "\n".join(devs)))
    if rows:
        t = _table("Extended resources served by DRA", ("POD", "CONTAINER", "RESOURCE", "CLAIM", "REQUEST", "DEVICES"))
        for row in rows:
            t.add_row(*row)
        out.print()
        out.print(t)


def _nodes(out: Console, cluster: view.Cluster, rows: list[view.PodRow], wide: bool) -> None:
    t = _table("Nodes", ("NAME", "NODE POOL", "PODS", "DEVICES ALLOCATED", "TAINTS") + (("ALLOCATABLE",) if wide else ()))
    for n in view.node_rows(cluster, rows):
        t.add_row(n.name, n.node_pool, str(n.pods), f"{n.allocated}/{n.devices}", "\n".join(n.taints),
                  *((n.allocatable,) if wide else ()))
    out.print()
    out.print(t)


def _devices(out: Console, cluster: view.Cluster, wide: bool) -> None:
    """The per-node device view: which device serves which claim and pod, what it consumes, its taints."""
    uses = view.device_uses(cluster)
    t = _table("Devices", ("NODE", "DEVICE", "CLAIM", "PODS", "CONSUMED", "TAINTS") + (("REQUEST", "CLASS") if wide else ()))
    for d in view.published_devices(cluster):
        served = uses.get(d.id) or [None]
        for u in served:
            t.add_row(d.node or "(not node-local)", d.id, u.claim if u else "(free)", "\n".join(u.pods) if u else "",
                      u.consumed if u else "", "\n".join(d.taints),
                      *((u.request if u else "", u.device_class if u else "") if wide else ()))
    out.print()
    out.print(t)


def _rules(out: Console, cluster: view.Cluster) -> None:
    rules = cluster.kind("DeviceTaintRule")
    if not rules:
        return
    t = _table("DeviceTaintRules", ("NAME", "EFFECT", "EVICTION IN PROGRESS", "MESSAGE"))
    for rule in rules:
        cond = view.condition(rule, "EvictionInProgress")
        t.add_row(rule["metadata"]["name"], ((rule.get("spec") or {}).get("taint") or {}).get("effect", ""),
                  f"{cond.get('status', '')} ({cond.get('reason', '')})" if cond else "", cond.get("message", ""))
    out.print()
    out.print(t)


def default_tables(pod_count: int) -> tuple[str, ...]:
    return DEFAULT_SMALL if pod_count <= SMALL_CLUSTER_PODS else DEFAULT_LARGE


def render_table(objects: list[dict], width: int | None = None, *, show: tuple[str, ...] | None = None,
                 wide: bool = False, evicted: list[dict] | None = None,
                 evicted_claims: dict[tuple, dict] | None = None, held: dict[tuple, str] | None = None) -> str:
    """The tables `show` names (default: by cluster size), `objects` being the settled List plus
    Events; `evicted`: pods the eviction controller deleted, with their claims as they were then."""
    cluster = view.Cluster.of(objects, evicted, evicted_claims, held)
    rows = view.pod_rows(cluster)
    chosen = show or default_tables(len(rows))
    buf = io.StringIO()
    out = console(buf, width)
    for name in TABLES:           # each table starts with a blank line; tidy() drops the first
        if name not in chosen:
            continue
        if name == "summary":
            _summary(out, cluster, rows)
        elif name == "pods":
            _pods(out, rows, wide)
        elif name == "pending":
            _pending(out, rows)
        elif name == "claims":
            _claims(out, cluster, wide)
        elif name == "extended":
            _extended(out, cluster)
        elif name == "nodes":
            _nodes(out, cluster, rows, wide)
        elif name == "devices":
            _devices(out, cluster, wide)
        elif name == "rules":
            _rules(out, cluster)
    if show is None and chosen is DEFAULT_LARGE:
        out.print()
        out.print(f"{len(rows)} pods: one row per pod with --show pods,pending,claims "
                  f"(also: nodes, devices, extended, rules, all).")
    return tidy(buf.getvalue())


def tidy(text: str) -> str:
    """Without rich's padding at line ends (it only makes copied text and diffs noisy)."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines) + "\n" if lines else ""
