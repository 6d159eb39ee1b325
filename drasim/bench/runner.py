"""Run a config's test cases × workloads on fresh control planes; one record per collection.

k8s: scheduler_perf.go RunBenchmarkPerfScheduling (workload selection by label filter, gates,
fresh cluster per workload, threshold check on SchedulingThroughput Average).
"""
from __future__ import annotations

import fnmatch
import gc
import resource
import time
from dataclasses import dataclass
from typing import Callable

from drasim.bench.config import (DEFAULT_LABEL_FILTER, Config, ConfigError, Params, TestCase, Workload,
                                 labels_match, merged_gates, threshold_for)
from drasim import featuregates
from drasim.bench.executor import Executor
from drasim.bench.ops import UnsupportedOp, prepare_ops
from drasim.controlplane import ControlPlane, options_for
from drasim.errors import InputError


@dataclass(frozen=True)
class Selection:
    """Which workloads run: named ones (TESTCASE/WORKLOAD, globs allowed) regardless of labels,
    otherwise those whose labels pass the filter."""

    workloads: tuple[str, ...] = ()
    label_filter: str = DEFAULT_LABEL_FILTER

    def picks(self, tc: TestCase, w: Workload) -> bool:
        if self.workloads:
            full = f"{tc.name}/{w.name}"
            return any(fnmatch.fnmatchcase(full, pattern) for pattern in self.workloads)
        return labels_match(set(tc.labels) | set(w.labels), self.label_filter)


def selected(config: Config, selection: Selection) -> list[tuple[TestCase, Workload]]:
    picked = [(tc, w) for tc in config.test_cases for w in tc.workloads if selection.picks(tc, w)]
    if selection.workloads:
        names = {f"{tc.name}/{w.name}" for tc in config.test_cases for w in tc.workloads}
        missing = [p for p in selection.workloads if not any(fnmatch.fnmatchcase(n, p) for n in names)]
        if missing:
            raise ConfigError(f"{config.path}: no workload {missing[0]!r}; known: {', '.join(sorted(names))}")
    return picked


def run_config(config: Config, selection: Selection = Selection(), *, seed: int = 0,
               progress: Callable | None = None,
               on_record: Callable[[dict], None] | None = None) -> list[dict]:
    records: list[dict] = []
    for tc, w in selected(config, selection):
        for record in run_workload(config, tc, w, seed=seed, progress=progress):
            records.append(record)
            if on_record is not None:
                on_record(record)
        gc.collect()
    return records


def run_workload(config: Config, tc: TestCase, w: Workload, *, seed: int = 0,
                 progress: Callable | None = None) -> list[dict]:
    gates = merged_gates(tc, w)
    known = {g: v for g, v in gates.items() if g in featuregates.GATES}
    try:
        full = featuregates.resolve(known)
    except featuregates.FeatureGateError as e:   # recorded, and the workload runs with v1.37's defaults
        full, known = dict(featuregates.DEFAULTS), {}
        gate_error = e.reason
    else:
        gate_error = None
    ignored = sorted(set(gates) - set(known)) + featuregates.unmodelled_changes(full)
    threshold = threshold_for(w.threshold, config.topic)
    base = {
        "testCase": tc.name, "workload": w.name, "name": f"{tc.name}/{w.name}",
        "labels": sorted(set(tc.labels) | set(w.labels)), "params": dict(w.params),
        "featureGates": gates, "topic": config.topic, "threshold": threshold or None,
        "status": "ok", "error": None, "metrics": {}, "passed": None, "notes": [],
    }
    if gate_error:
        base["notes"].append(f"feature gates not applied: {gate_error}")
    if ignored:
        base["notes"].append("feature gates recorded but not modelled by drasim: " + ", ".join(ignored))
    if tc.scheduler_config_path:
        base["notes"].append(f"schedulerConfigPath {tc.scheduler_config_path} not applied: drasim runs "
                             "the default v1.37 profile")
    params = Params(w)
    try:
        ops = prepare_ops(tc.ops, params)
    except UnsupportedOp as e:
        return [dict(base, status="unsupported", error=str(e))]
    except ConfigError as e:
        return [dict(base, status="error", error=str(e))]

    cp = ControlPlane(options_for(full, seed=seed, kubelets=False))
    ex = Executor(cp, config.path.parent, seed=seed, progress=progress)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    status, error = "ok", None
    # The cycle collector is off while a workload runs: what it allocates lives until the
    # workload ends (nodes, pods, claims), so its passes found nothing to free and cost 8-12 %
    # of the CPU time (benchmarks/fleet, docs/PERFORMANCE.md); run_config collects in between.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        ex.run(ops)
    except InputError as e:
        status, error = "failed", str(e)
    finally:
        if gc_was_enabled:
            gc.enable()
    totals = {
        "WorkloadWallTime": time.perf_counter() - wall0,
        "WorkloadCPUTime": time.process_time() - cpu0,
        "PeakRSSMiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "PodsUnschedulable": ex.pods_unscheduled(),
    }
    notes = base["notes"] + ex.notes
    if not ex.results:
        return [dict(base, status=status, error=error, metrics=totals, notes=notes)]
    out = []
    for result in ex.results:
        metrics = {k: v for k, v in result.items() if k != "suffix"}
        metrics.update(totals)
        passed, extra = check_threshold(metrics.get("Throughput"), threshold)
        name = f"{tc.name}/{w.name}/{result['suffix']}" if result["suffix"] else f"{tc.name}/{w.name}"
        out.append(dict(base, name=name, status=status, error=error,
                        metrics=metrics, passed=passed if status == "ok" else False,
                        notes=notes + extra))
    return out


def check_threshold(throughput: dict | None, threshold: float) -> tuple[bool | None, list[str]]:
    """The comparable figure must be strictly greater than the threshold; 0 means no check
    (README §2). scheduler_perf checks SchedulingThroughput's Average; when a phase is too short
    for two of its 1 s ticks that figure does not exist, and OverallThroughput (pods over the
    phase's wall time, creation included) stands in, with a note saying so."""
    notes = []
    if throughput and throughput.get("from") == "OverallThroughput":
        notes.append("the phase was too short for two of scheduler_perf's 1 s ticks: no SchedulingThroughput; "
                     "OverallThroughput (pods / phase wall time, creation included) is the comparable figure")
    if not threshold:
        return None, notes
    if not throughput or throughput.get("value") is None:
        return None, notes + ["no throughput figure: threshold not checked"]
    return throughput["value"] > threshold, notes
