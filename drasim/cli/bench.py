"""`drasim bench CONFIG.yaml`: replay a kube-scheduler scheduler_perf config on drasim.

    drasim bench CONFIG.yaml [--workload TESTCASE/WORKLOAD ...] [--label-filter performance]
                 [--topic dra] [--json] [--seed N]
"""
from __future__ import annotations

import argparse
import sys


def add_parser(subparsers, epilog: str | None = None, formatter_class=argparse.HelpFormatter) -> argparse.ArgumentParser:
    help_ = "run scheduler_perf performance-config.yaml workloads on drasim"
    ap = subparsers.add_parser("bench", help=help_, description=help_[0].upper() + help_[1:] + ".",
                               epilog=epilog, formatter_class=formatter_class)
    ap.add_argument("config", metavar="CONFIG.yaml", help="a scheduler_perf performance-config.yaml")
    ap.add_argument("--workload", action="append", default=[], metavar="TESTCASE/WORKLOAD",
                    help="run this workload regardless of labels (repeatable; globs allowed)")
    ap.add_argument("--label-filter", default="performance", metavar="LABELS",
                    help="comma-separated labels, +l required, -l excluded (default: performance)")
    ap.add_argument("--topic", metavar="TOPIC", help="threshold topic (default from the config's folder: dra, dra_extendedresource, …)")
    ap.add_argument("--json", action="store_true", help="print DataItems-like JSON records instead of a table")
    ap.add_argument("--seed", type=int, default=0, metavar="N", help="seed for names, uids and allocResourceClaims (default 0)")
    return ap


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every workload ran and passed its threshold, 1 otherwise (or on bad input)."""
    from drasim.bench.config import load_config
    from drasim.bench.report import ProgressFactory
    from drasim.bench.runner import Selection, run_config

    config = load_config(args.config, topic=args.topic)
    selection = Selection(tuple(args.workload), args.label_filter)
    finished: list[dict] = []
    try:
        if sys.stderr.isatty():
            with ProgressFactory() as progress:
                run_config(config, selection, seed=args.seed, progress=progress, on_record=finished.append)
        else:   # no bar: say what finished, so a long run shows it is alive (and what Ctrl-C keeps)
            def note(record: dict) -> None:
                finished.append(record)
                print(f"drasim bench: finished {record['name']}: {record['status']}", file=sys.stderr, flush=True)
            run_config(config, selection, seed=args.seed, on_record=note)
    except KeyboardInterrupt:
        # Ctrl-C: what finished is worth keeping (a long config takes minutes per workload).
        _print(args, finished)
        print(f"drasim bench: interrupted after {len(finished)} finished workload(s)", file=sys.stderr)
        return 130
    if not finished:
        print(f"drasim bench: no workload of {args.config} passes the label filter {args.label_filter!r}",
              file=sys.stderr)
    _print(args, finished)
    ok = all(r["status"] == "ok" and r["passed"] is not False for r in finished)
    return 0 if ok else 1


def _print(args: argparse.Namespace, records: list[dict]) -> None:
    from drasim.bench.report import render_json, render_table

    if args.json:
        sys.stdout.write(render_json(records))
    else:
        render_table(records)
