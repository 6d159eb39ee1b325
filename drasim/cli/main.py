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
    from drasim.cli import bench
    bench.add_parser(sub)
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
    for note in cp.kubelets.warnings:   # e.g. a drasim.io/run-for annotation that is no duration
        print(f"warning: {note}", file=sys.stderr)
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
    if args.command in _BATCH_COMMANDS:
        from drasim.api.nesting import run_with_room

        return run_with_room(_run, args)   # manifests may nest 10,000 levels deep, as in Kubernetes
    return _run(args)   # long-running commands stay on the main thread (signal handlers)


_BATCH_COMMANDS = ("simulate", "explain", "quota", "taint-dryrun", "bench")


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "simulate":
            return simulate(args)
        if args.command == "taint-dryrun":
            return taint_dryrun(args)
        if args.command == "explain":
            return explain(args)
        if args.command == "quota":
            return quota(args)
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
