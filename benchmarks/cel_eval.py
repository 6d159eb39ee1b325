"""Evaluations per second of DRA selectors over 10k prebuilt devices (figures for docs/cel.md).

Run: PYTHONPATH=. .venv/bin/python benchmarks/cel_eval.py
"""
from __future__ import annotations

import time

from drasim.cel import compile_selector, device_input

DEVICES = 10_000
ROUNDS = 5
EXPRESSIONS = [
    'device.driver == "x"',
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0',
    'device.capacity["gpu.example.com"].memory == quantity("64Gi")',
    'device.attributes["gpu.example.com"].model == "a100" && device.attributes["gpu.example.com"].index > 2',
    'device.attributes["gpu.example.com"].cuda.isGreaterThan(semver("12.0.0"))',
]


def _device(i: int) -> dict:
    return {
        "name": f"gpu-{i}",
        "attributes": {"model": {"string": "a100" if i % 2 else "h100"}, "index": {"int": i % 8},
                       "cuda": {"version": f"12.{i % 4}.0"}},
        "capacity": {"memory": {"value": "64Gi" if i % 3 else "80Gi"}},
    }


def main() -> None:
    start = time.perf_counter()
    devices = [device_input("gpu.example.com", _device(i)) for i in range(DEVICES)]
    built = time.perf_counter() - start
    print(f"{DEVICES} DeviceInputs built at {DEVICES / built:,.0f}/s")
    start = time.perf_counter()
    for d in devices:  # the first evaluation of a device builds its cel-cpp activation
        d.activation()
    print(f"activations built at {DEVICES / (time.perf_counter() - start):,.0f}/s")
    for expression in EXPRESSIONS:
        selector = compile_selector(expression)
        best = 0.0
        for _ in range(ROUNDS):
            start = time.perf_counter()
            for d in devices:
                selector.matches(d)
            best = max(best, DEVICES / (time.perf_counter() - start))
        print(f"{best:>12,.0f} evals/s  {expression}")


if __name__ == "__main__":
    main()
