"""Scenarios per second of `drasim sweep` with 1 and 2 local worker processes and on a local Ray
instance, on the bundled examples/sweep spec (24 scenarios of the plan-training cluster).

    python benchmarks/sweep.py [SPEC.yaml]

Not a timed test: it prints figures. Ray's start-up (a few seconds) is reported apart.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from drasim.plan.sweep import load_spec
from drasim.plan.sweep_runner import run_sweep

SPEC = Path(__file__).resolve().parents[1] / "examples" / "sweep" / "sweep.yaml"


def main() -> None:
    spec = load_spec(sys.argv[1] if len(sys.argv) > 1 else str(SPEC))
    n = len(spec.scenarios())
    for label, kwargs in (("1 worker", {"workers": 1}), ("2 workers", {"workers": 2})):
        t = time.perf_counter()
        run_sweep(spec, **kwargs)
        wall = time.perf_counter() - t
        print(f"{label:>10}: {n} scenarios in {wall:.2f} s = {n / wall:.2f} scenarios/s")
    try:
        import ray
    except ImportError:
        print("       ray: not installed (pip install 'drasim[sweep]')")
        return
    t = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - t
    try:
        t = time.perf_counter()
        run_sweep(spec, ray_address="local")
        wall = time.perf_counter() - t
    finally:
        ray.shutdown()
    print(f"       ray: {n} scenarios in {wall:.2f} s = {n / wall:.2f} scenarios/s (start-up {startup:.1f} s apart)")


if __name__ == "__main__":
    main()
