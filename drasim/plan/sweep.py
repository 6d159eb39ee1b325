"""`drasim sweep SPEC.yaml`: many simulations of one cluster, varied, aggregated.

    cluster: [cluster.yaml]            # phases (files or folders), relative to the spec
    workload: [workload.yaml]          # optional: applied after the cluster settled
    pools: pools.yaml                  # optional: node pools added (drasim inventory's format)
    vary:
      seed: [0, 1, 2, 3]               # names, uids, tie-breaks, the random choices below
      arrival: [as-written, shuffled]  # the workload's pods in file order or shuffled by seed
      fleet: [0.5, 1.0]                # scale every pool's count by this factor
      taintFraction: [0, 0.05]         # a NoExecute DeviceTaintRule on this share of devices
      featureGates: [{}, {DRAPartitionableDevices: false}]

A scenario is one combination (the cartesian product of `vary`). Running one is a pure function
of the spec and the scenario (`run_scenario`), so it can run in a local worker process or on a
Ray cluster alike (drasim/plan/sweep_runner.py). The result of each scenario: pods, pods
pending, devices and devices allocated (utilisation), pods evicted, and the virtual seconds
from a pod's creation to its binding (time to schedule). `aggregate` groups scenarios by every
dimension but the seed and reports percentiles.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import yaml

from drasim import featuregates
from drasim.api import kinds
from drasim.api.loader import Document, load_paths
from drasim.errors import InputError

DIMENSIONS = ("seed", "arrival", "fleet", "taintFraction", "featureGates")
DEFAULTS = {"seed": 0, "arrival": "as-written", "fleet": 1.0, "taintFraction": 0.0, "featureGates": {}}
ARRIVALS = ("as-written", "shuffled")
PERCENTILES = (50, 90, 99)
TAINT_KEY = "drasim.io/sweep-failure"


class SweepError(InputError):
    """A sweep spec drasim cannot run."""


@dataclass(frozen=True)
class Spec:
    base: Path
    cluster: tuple[str, ...]
    workload: tuple[str, ...]
    pools: str | None
    vary: dict[str, list]

    def scenarios(self) -> list[dict]:
        keys = [d for d in DIMENSIONS if d in self.vary]
        combos = itertools.product(*(self.vary[k] for k in keys))
        return [dict(DEFAULTS, **dict(zip(keys, values))) for values in combos]


def scenario_id(scenario: dict) -> str:
    """A stable name for a scenario's result file (resuming skips those already done)."""
    text = json.dumps(scenario, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_spec(path: str) -> Spec:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise SweepError(f"{path}: cannot read: {e}") from None
    except yaml.YAMLError as e:
        raise SweepError(f"{path}: invalid YAML: {e}") from None
    if not isinstance(raw, dict):
        raise SweepError(f"{path}: a sweep spec is a mapping with cluster, workload, pools and vary")
    unknown = sorted(set(raw) - {"cluster", "workload", "pools", "vary"})
    if unknown:
        raise SweepError(f"{path}: unknown field {unknown[0]!r} (known: cluster, workload, pools, vary)")
    base = Path(path).resolve().parent

    def paths(key: str) -> tuple[str, ...]:
        value = raw.get(key) or []
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SweepError(f"{path}: {key}: must be a file or folder, or a list of them")
        return tuple(str(base / v) for v in value)

    cluster = paths("cluster")
    if not cluster:
        raise SweepError(f"{path}: cluster: required (the manifests every scenario starts from)")
    pools = raw.get("pools")
    if pools is not None and not isinstance(pools, str):
        raise SweepError(f"{path}: pools: must be a pool spec file")
    vary = raw.get("vary") or {}
    if not isinstance(vary, dict):
        raise SweepError(f"{path}: vary: must be a mapping of dimensions to lists of values")
    for key, values in vary.items():
        where = f"{path}: vary.{key}"
        if key not in DIMENSIONS:
            raise SweepError(f"{path}: vary: unknown dimension {key!r} (known: {', '.join(DIMENSIONS)})")
        if not isinstance(values, list) or not values:
            raise SweepError(f"{where}: must be a non-empty list")
        for v in values:
            _check_value(key, v, where)
    return Spec(base, cluster, paths("workload"), str(base / pools) if pools else None, vary)


def _check_value(key: str, v, where: str) -> None:
    ok = {"seed": lambda: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
          "arrival": lambda: v in ARRIVALS,
          "fleet": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100,
          "taintFraction": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1,
          "featureGates": lambda: isinstance(v, dict) and all(isinstance(g, str) and isinstance(b, bool)
                                                              for g, b in v.items())}[key]
    if ok() and key == "featureGates":
        try:
            featuregates.resolve(v)
        except featuregates.FeatureGateError as e:
            raise SweepError(f"{where}: featureGates: {e.reason}") from None
        return
    if not ok():
        want = {"seed": "an integer >= 0", "arrival": " or ".join(ARRIVALS), "fleet": "a factor from 0 to 100",
                "taintFraction": "a fraction from 0 to 1", "featureGates": "a mapping of gate names to true/false"}
        raise SweepError(f"{where}: {v!r} is not {want[key]}")


def _documents(paths: tuple[str, ...]) -> list[Document]:
    return load_paths(list(paths)) if paths else []


def _pool_documents(spec: Spec, factor: float, classes: set[str]) -> list[Document]:
    """The pools' nodes and slices, scaled; their drivers' DeviceClasses unless the cluster has them."""
    if not spec.pools:
        return []
    from drasim.hardware import generate

    raw = yaml.safe_load(Path(spec.pools).read_text(encoding="utf-8"))
    pools = []
    for pool in (raw or {}).get("pools") or ():
        pool = {k: v for k, v in pool.items() if k != "cost"}
        count = math.floor(int(pool.get("count", 1)) * factor + 0.5)
        if count > 0:
            pools.append(dict(pool, count=count))
    if not pools:
        return []
    return [Document(f"{spec.pools}#{i}", kinds.BY_KIND[o["kind"]], o) for i, o in enumerate(generate({"pools": pools}))
            if not (o["kind"] == "DeviceClass" and o["metadata"]["name"] in classes)]


def _failure_rules(cp, fraction: float, rng: random.Random) -> list[dict]:
    devices = sorted({(s["spec"]["driver"], s["spec"]["pool"]["name"], d["name"]) for s in cp.store.list("ResourceSlice")
                      for d in s["spec"].get("devices") or ()})
    chosen = rng.sample(devices, min(len(devices), math.ceil(len(devices) * fraction))) if fraction else []
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": f"sweep-failure-{i}"},
             "spec": {"deviceSelector": {"driver": d, "pool": p, "device": n},
                      "taint": {"key": TAINT_KEY, "effect": "NoExecute"}}} for i, (d, p, n) in enumerate(sorted(chosen))]


def run_scenario(spec: Spec, scenario: dict) -> dict:
    """One simulation; raises InputError on bad input (the runner records it as a failure)."""
    from drasim.controlplane import ControlPlane, options_for
    from drasim.sim.clock import parse_time

    gates = featuregates.resolve(scenario["featureGates"])
    ignored = featuregates.unmodelled_changes(gates)
    cp = ControlPlane(options_for(gates, seed=scenario["seed"]))
    rng = random.Random(scenario["seed"])
    cluster = _documents(spec.cluster)
    classes = {d.obj["metadata"].get("name") for d in cluster if d.kind.kind == "DeviceClass"}
    cp.run_phase(cluster + _pool_documents(spec, scenario["fleet"], classes))
    workload = _documents(spec.workload)
    if scenario["arrival"] == "shuffled":   # the pods only: namespaces, templates and claims come first, as written
        pods = [d for d in workload if d.kind.kind == "Pod"]
        rng.shuffle(pods)
        workload = [d for d in workload if d.kind.kind != "Pod"] + pods
    rules = _failure_rules(cp, scenario["taintFraction"], rng)
    if rules:
        cp.apply([Document(f"failure#{i}", kinds.DEVICE_TAINT_RULE, r) for i, r in enumerate(rules)])
    if workload:
        cp.run_phase(workload)
    else:
        cp.settle()
    pods = cp.store.list("Pod")
    devices = sum(len(s["spec"].get("devices") or ()) for s in cp.store.list("ResourceSlice"))
    allocated = len({(r["driver"], r["pool"], r["device"]) for c in cp.store.list("ResourceClaim")
                     for r in ((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])})
    waits = []
    for p in pods:
        cond = next((c for c in (p.get("status") or {}).get("conditions") or ()
                     if c.get("type") == "PodScheduled" and c.get("status") == "True"), None)
        created = p["metadata"].get("creationTimestamp")
        if cond and cond.get("lastTransitionTime") and created:
            waits.append(parse_time(cond["lastTransitionTime"]) - parse_time(created))
    return {"pods": len(pods), "pending": sum(1 for p in pods if not p["spec"].get("nodeName")),
            "devices": devices, "allocated": allocated, "utilisation": allocated / devices if devices else 0.0,
            "evictions": int(cp.metrics.registry.get_sample_value(
                "device_taint_eviction_controller_pod_deletions_total") or 0), "timeToSchedule": _percentiles(waits),
            "ignoredGates": ignored}


def _percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {f"p{p}": ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)] for p in PERCENTILES}


def aggregate(results: list[dict]) -> list[dict]:
    """Per group (every dimension but the seed): runs, failures, percentiles of pending pods,
    utilisation and evictions, and the worst p99 time to schedule."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        key = json.dumps({k: v for k, v in r["scenario"].items() if k != "seed"}, sort_keys=True)
        groups.setdefault(key, []).append(r)
    out = []
    for key, runs in sorted(groups.items()):
        ok = [r["result"] for r in runs if r.get("result")]
        row = {"group": json.loads(key), "runs": len(runs), "failed": len(runs) - len(ok)}
        for metric in ("pending", "utilisation", "evictions"):
            row[metric] = _percentiles([float(m[metric]) for m in ok])
        p99 = [m["timeToSchedule"]["p99"] for m in ok if m.get("timeToSchedule")]
        row["timeToScheduleP99"] = max(p99) if p99 else None
        out.append(row)
    return out
