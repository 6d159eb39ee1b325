"""`drasim bench CONFIG.yaml`: replay a kube-scheduler scheduler_perf config on drasim.

    drasim bench CONFIG.yaml [--workload TESTCASE/WORKLOAD ...] [--label-filter performance]
                 [--topic dra] [--json] [--seed N]
"""
from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> argparse.ArgumentParser:
    ap = subparsers.add_parser("bench", help="run scheduler_perf performance-config.yaml workloads on drasim")
    ap.add_argument("config", metavar="CONFIG.yaml", help="a scheduler_perf performance-config.yaml")
    ap.add_argument("--workload", action="append", default=[], metavar="TESTCASE/WORKLOAD",
                    help="run this workload regardless of labels (repeatable; globs allowed)")
    ap.add_argument("--label-filter", default="performance",
                    help="comma-separated labels, +l required, -l excluded (default: performance)")
    ap.add_argument("--topic", help="threshold topic (default from the config's folder: dra, dra_extendedresource, …)")
    ap.add_argument("--json", action="store_true", help="print DataItems-like JSON records instead of a table")
    ap.add_argument("--seed", type=int, default=0, help="seed for names, uids and allocResourceClaims (default 0)")
    return ap


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every workload ran and passed its threshold, 1 otherwise (or on bad input)."""
    from drasim.bench.config import load_config
    from drasim.bench.report import ProgressFactory, render_json, render_table
    from drasim.bench.runner import Selection, run_config

    config = load_config(args.config, topic=args.topic)
    selection = Selection(tuple(args.workload), args.label_filter)
    if sys.stderr.isatty():
        with ProgressFactory() as progress:
            records = run_config(config, selection, seed=args.seed, progress=progress)
    else:
        records = run_config(config, selection, seed=args.seed)
    if not records:
        print(f"drasim bench: no workload of {args.config} passes the label filter {args.label_filter!r}",
              file=sys.stderr)
    if args.json:
        sys.stdout.write(render_json(records))
    else:
        render_table(records)
    ok = all(r["status"] == "ok" and r["passed"] is not False for r in records)
    return 0 if ok else 1
