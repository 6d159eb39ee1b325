"""The `drasim` command line. Thin: parse, call the library, print; user errors are one line.

    drasim simulate PHASE [PHASE ...] [-o table|json|yaml] [--metrics FILE] [--seed N]

Each PHASE (a file or a folder of manifests) is applied in turn and the
cluster runs until nothing more happens before the next one.
"""
from __future__ import annotations

import argparse
import gc
import sys

from drasim.errors import InputError


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="drasim", description="A simulated Kubernetes v1.37 control plane for DRA.")
    sub = ap.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="apply manifests phase by phase and print the settled cluster")
    sim.add_argument("phases", nargs="+", metavar="PHASE",
                     help="a manifest file or folder; each one is applied, then the cluster settles")
    sim.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
    sim.add_argument("--metrics", metavar="FILE", help="write Prometheus metrics (text format) to FILE")
    sim.add_argument("--seed", type=int, default=0, help="seed for names, uids and tie-breaks (default 0)")
    sim.add_argument("--events", action="store_true", help="include Events in json/yaml output")
    dry = sub.add_parser("taint-dryrun", help="what would a DeviceTaintRule do if its effect was NoExecute?")
    dry.add_argument("rule", metavar="RULE.yaml", help="a file with one DeviceTaintRule")
    dry.add_argument("--cluster", nargs="+", required=True, metavar="PHASE",
                     help="the cluster: manifest files or folders, applied as phases")
    dry.add_argument("-o", "--output", choices=("table", "json"), default="table")
    dry.add_argument("--seed", type=int, default=0)
    ex = sub.add_parser("explain", help="simulate, then show node by node why a pod is (not) placed")
    ex.add_argument("pod", metavar="[NAMESPACE/]POD")
    ex.add_argument("--cluster", nargs="+", required=True, metavar="PHASE")
    ex.add_argument("-o", "--output", choices=("table", "json"), default="table")
    ex.add_argument("--seed", type=int, default=0)
    q = sub.add_parser("quota", help="simulate, then show quota usage of DRA devices under its three keys")
    q.add_argument("phases", nargs="+", metavar="PHASE")
    q.add_argument("-o", "--output", choices=("table", "json"), default="table")
    q.add_argument("--seed", type=int, default=0)
    au = sub.add_parser("audit", help="is this cluster ready to move from device plugins to DRA? (exit 1 on errors)")
    au.add_argument("snapshot", nargs="+", metavar="SNAPSHOT",
                    help="manifest files or folders, read as one snapshot (kubectl get … -o yaml output works)")
    au.add_argument("-o", "--output", choices=("table", "json"), default="table")
    au.add_argument("--seed", type=int, default=0)
    le = sub.add_parser("ledger", help="simulate, then show per namespace what its device counts bought in hardware")
    le.add_argument("phases", nargs="+", metavar="PHASE")
    le.add_argument("-o", "--output", choices=("table", "json", "csv"), default="table")
    le.add_argument("--seed", type=int, default=0)
    inv = sub.add_parser("inventory", help="generate Nodes, ResourceSlices and DeviceClasses as real DRA drivers "
                                           "publish them, from a node-pool spec")
    inv.add_argument("pools", metavar="POOLS.yaml", help="node pools (see docs/hardware.md)")
    inv.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml")
    pl = sub.add_parser("plan", help="how many nodes of which pool must be added so the pending pods schedule?")
    pl.add_argument("snapshot", nargs="+", metavar="SNAPSHOT", help="manifest files or folders, read as one snapshot")
    pl.add_argument("--pool", action="append", required=True, metavar="POOLS.yaml",
                    help="candidate node pools (drasim inventory's format, with an optional cost per node); repeatable")
    pl.add_argument("-o", "--output", choices=("table", "json"), default="table")
    pl.add_argument("--seed", type=int, default=0)
    from drasim.cli import sweep
    sweep.add_parser(sub)
    from drasim.cli import bench, serve
    bench.add_parser(sub)
    serve.add_parser(sub)
    return ap


def _settled(phase_paths: list[str], seed: int):
    from drasim.api.loader import load_paths
    from drasim.controlplane import ControlPlane, Options

    phases = [load_paths([p]) for p in phase_paths]
    cp = ControlPlane(Options(seed=seed))
    for docs in phases:
        cp.run_phase(docs)
    return cp


def explain(args: argparse.Namespace) -> int:
    from drasim.cli import explain as explain_view

    sys.stdout.write(explain_view.run(args.pod, _settled(args.cluster, args.seed), args.output))
    return 0


def quota(args: argparse.Namespace) -> int:
    from drasim.cli import quota as quota_view

    cp = _settled(args.phases, args.seed)
    render = quota_view.render_json if args.output == "json" else quota_view.render_table
    sys.stdout.write(render(cp))
    return 0


def audit(args: argparse.Namespace) -> int:
    from drasim.api.loader import load_paths
    from drasim.cli import audit as audit_view
    from drasim.controlplane import Options
    from drasim.plan.audit import audit as run_audit

    skipped: list[str] = []
    documents = load_paths(args.snapshot, skipped)
    for note in skipped:
        print(f"warning: {note}", file=sys.stderr)
    report = run_audit(documents, Options(seed=args.seed))
    render = audit_view.render_json if args.output == "json" else audit_view.render_table
    sys.stdout.write(render(report))
    return 1 if report.has_errors else 0


def ledger(args: argparse.Namespace) -> int:
    from drasim.cli import ledger as ledger_view
    from drasim.plan.ledger import ledger as build

    books = build(_settled(args.phases, args.seed))
    render = {"json": ledger_view.render_json, "csv": ledger_view.render_csv}.get(args.output,
                                                                                  ledger_view.render_table)
    sys.stdout.write(render(books))
    return 0


def taint_dryrun(args: argparse.Namespace) -> int:
    from drasim.cli import taintdryrun

    rule, result, replacements = taintdryrun.what_if(args.rule, args.cluster, seed=args.seed)
    render = taintdryrun.render_json if args.output == "json" else taintdryrun.render_table
    sys.stdout.write(render(rule, result, replacements))
    return 0


def simulate(args: argparse.Namespace) -> int:
    from drasim.api.loader import load_paths
    from drasim.cli import render
    from drasim.controlplane import ControlPlane, Options

    skipped: list[str] = []
    phases = []
    for path in args.phases:   # read everything before running anything
        phase_skipped: list[str] = []
        docs = load_paths([path], phase_skipped)
        if not docs and not phase_skipped:
            raise InputError(f"{path}: no objects passed to apply")   # kubectl apply's words
        phases.append(docs)
        skipped += [note for note in phase_skipped if note not in skipped]
    for note in skipped:
        print(f"warning: {note}", file=sys.stderr)
    cp = ControlPlane(Options(seed=args.seed))
    for docs in phases:
        cp.run_phase(docs)
    if args.metrics:   # before any output: a path that cannot be written is the only error
        cp.scheduler.export_pending(cp.metrics)
        try:
            with open(args.metrics, "w", encoding="utf-8") as f:
                f.write(cp.metrics.exposition())
        except OSError as e:
            raise InputError(f"--metrics {args.metrics}: cannot write: {e.strerror or e}") from None
    objects = cp.objects(include_events=args.events)
    if args.output == "json":
        sys.stdout.write(render.render_json(objects))
    elif args.output == "yaml":
        sys.stdout.write(render.render_yaml(objects))
    else:
        sys.stdout.write(render.render_table(objects))
    return 0


# A simulation allocates millions of small dicts that live as long as the cluster, so the
# default gen-0 threshold (700) runs the cycle collector over them constantly. Measured on
# the scheduler_perf DRA workloads: 10-18 % less wall time, peak memory unchanged
# (docs/PERFORMANCE.md). Collection still happens; only less often.
GC_THRESHOLDS = (50_000, 20, 20)


def main(argv: list[str] | None = None) -> int:
    gc.set_threshold(*GC_THRESHOLDS)
    args = _parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return simulate(args)
        if args.command == "taint-dryrun":
            return taint_dryrun(args)
        if args.command == "explain":
            return explain(args)
        if args.command == "quota":
            return quota(args)
        if args.command == "audit":
            return audit(args)
        if args.command == "ledger":
            return ledger(args)
        if args.command == "plan":
            from drasim.api.loader import load_paths
            from drasim.cli import plan as plan_view
            from drasim.controlplane import Options
            from drasim.plan.scaleout import plan as run_plan

            candidates = plan_view.load_candidates(args.pool)
            result = run_plan(load_paths(args.snapshot), candidates, Options(seed=args.seed))
            sys.stdout.write((plan_view.render_json if args.output == "json" else plan_view.render_table)(result))
            return 0 if result.best is not None and not result.unservable else 1   # 1: some pods stay Pending
        if args.command == "sweep":
            from drasim.cli import sweep
            return sweep.run(args)
        if args.command == "inventory":
            from drasim.cli import inventory
            sys.stdout.write(inventory.run(args.pools, args.output))
            return 0
        if args.command == "serve":
            from drasim.cli import serve
            return serve.run(args)
        if args.command == "bench":
            from drasim.cli import bench
            return bench.run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
