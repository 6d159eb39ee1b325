"""Loading a fleet snapshot, and forking it (docs/PERFORMANCE.md "Loading at fleet scale").

    python benchmarks/fleet_snapshot.py [NODES] [--yaml] [--keep DIR]

Builds the GPU fleet of benchmarks/fleet (NODES nodes × 8 GPUs, 8 pods per node, half from a
claim template, half unchanged `example.com/gpu: 1` pods), with kubelets, so pods are Running;
writes what `kubectl get namespaces,deviceclasses,nodes,resourceslices,pods,resourceclaims -A
-o json` (or `-o yaml`) would print — one v1 List — and then times, in a fresh control plane:
reading the file, applying it (decode, defaults, validation, admission, store), settling (no
pod may be scheduled again), `ControlPlane.fork()` of the loaded plane and a what-if in a forked
child process (drasim/childcopy.py: the pods of one node deleted, the copy settled).
"""
from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import yaml

from drasim.api.loader import gc_paused, load_paths
from drasim.bench.config import Params, load_config
from drasim.childcopy import in_copy
from drasim.bench.executor import Executor
from drasim.bench.ops import prepare_ops
from drasim.cli import render
from drasim.controlplane import ControlPlane, options_for

FLEET = Path(__file__).resolve().parent / "fleet" / "performance-config.yaml"
KINDS = ("Namespace", "DeviceClass", "Node", "ResourceSlice", "Pod", "ResourceClaim")


def build(nodes: int) -> ControlPlane:
    config = load_config(FLEET)
    tc = config.test_cases[0]
    workload = next(w for w in tc.workloads if w.name == "500nodes")
    workload.params.update(nodes=nodes, claimPods=4 * nodes, extendedPods=4 * nodes)
    cp = ControlPlane(options_for(None, kubelets=True))
    Executor(cp, FLEET.parent).run(prepare_ops(tc.ops, Params(workload)))
    cp.settle()
    return cp


def snapshot(cp: ControlPlane) -> list[dict]:
    return [o for o in cp.objects() if o["kind"] in KINDS]


def write_yaml(objects: list[dict], path: Path) -> None:
    """The List as `kubectl get -o yaml` prints it, written item by item with libyaml's emitter
    (PyYAML's pure-Python one needs over 10 GiB and many minutes for the 16,000-node fleet)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with open(path, "w") as f:
        f.write("apiVersion: v1\nitems:\n")
        for obj in objects:
            text = yaml.dump(obj, Dumper=dumper, sort_keys=False, default_flow_style=False)
            lines = text.splitlines()
            f.write("- " + lines[0] + "\n")
            f.writelines("  " + line + "\n" for line in lines[1:])
        f.write("kind: List\nmetadata:\n  resourceVersion: \"\"\n")


def read(path: Path) -> list:
    """The snapshot's documents, read as `drasim simulate` reads its phases (cli.main._read_phases)."""
    with gc_paused(freeze=True):
        return load_paths([path])


def load_only(path: Path, fork: bool = True) -> dict:
    """Time reading, applying, settling and (unless told not to) forking an existing snapshot file."""
    results: dict = {"file": str(path), "MiB": round(path.stat().st_size / 2**20, 1)}
    docs = timed("read", lambda: read(path), results)
    results["objects"] = len(docs)
    loaded = ControlPlane()
    timed("apply", lambda: loaded.apply(docs, owned=True), results)   # as `drasim simulate` applies a phase
    timed("settle", loaded.settle, results)
    results["total"] = round(results["read"] + results["apply"] + results["settle"], 2)
    results["scheduling_attempts"] = loaded.scheduler.attempts
    results["pods_unbound"] = sum(1 for p in loaded.store.list("Pod") if not p["spec"].get("nodeName"))
    del docs
    if fork:
        timed("fork", loaded.fork, results)
        answer = timed("what_if_child", lambda: in_copy(loaded, what_if, child=True), results)
        results["what_if_pods_deleted"], results["what_if_pods_unbound"] = answer
    results["peak_rss_MiB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return results


def what_if(cp: ControlPlane) -> tuple[int, int]:
    """A what-if on a copy: the pods of the first node deleted and the plane settled again.
    Returns (pods deleted, pods left without a node)."""
    node = min(n["metadata"]["name"] for n in cp.store.list("Node"))
    gone = [p for p in cp.store.list("Pod") if p["spec"].get("nodeName") == node]
    for pod in gone:
        cp.delete("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
    cp.settle()
    return len(gone), sum(1 for p in cp.store.list("Pod") if not p["spec"].get("nodeName"))


def timed(label: str, fn, results: dict):
    """Run fn, keeping its wall time in results; its CPU time in and out of the kernel goes to
    stderr (on a virtual machine, first touches of fresh memory can cost as much as the work)."""
    before, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    out = fn()
    results[label] = round(time.perf_counter() - t0, 2)
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{label}: {results[label]} s (user {after.ru_utime - before.ru_utime:.2f} s, "
          f"system {after.ru_stime - before.ru_stime:.2f} s, {after.ru_minflt - before.ru_minflt} page faults)",
          file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", type=int, nargs="?", default=16000)
    ap.add_argument("--yaml", action="store_true", help="also write and load the YAML form")
    ap.add_argument("--keep", type=Path, help="write the snapshot files here (default: a temporary folder)")
    ap.add_argument("--load", type=Path, help="only time loading (and forking) this snapshot file")
    ap.add_argument("--no-fork", action="store_true", help="with --load: do not time forking the loaded plane")
    args = ap.parse_args()
    if args.load:
        print(json.dumps(load_only(args.load, fork=not args.no_fork)))
        return 0
    gc.disable()   # as drasim bench does: nothing the runs allocate is garbage before they end
    folder = args.keep or Path(tempfile.mkdtemp(prefix="fleet-snapshot-"))
    folder.mkdir(parents=True, exist_ok=True)
    results: dict = {"nodes": args.nodes}
    cp = timed("build", lambda: build(args.nodes), results)
    objects = snapshot(cp)
    results["objects"] = len(objects)
    files = {"json": folder / f"fleet-{args.nodes}.json"}
    files["json"].write_text(render.render_json(objects))
    if args.yaml:
        files["yaml"] = folder / f"fleet-{args.nodes}.yaml"
        write_yaml(objects, files["yaml"])
    for form, path in files.items():
        results[f"{form}_MiB"] = round(path.stat().st_size / 2**20, 1)
    expected = {(o["metadata"].get("namespace"), o["metadata"]["name"]): o["spec"].get("nodeName")
                for o in objects if o["kind"] == "Pod"}
    del cp, objects
    gc.collect()
    for form, path in files.items():
        docs = timed(f"{form}_read", lambda: read(path), results)
        loaded = ControlPlane()
        timed(f"{form}_apply", lambda: loaded.apply(docs, owned=True), results)
        timed(f"{form}_settle", loaded.settle, results)
        results[f"{form}_total"] = round(results[f"{form}_read"] + results[f"{form}_apply"] + results[f"{form}_settle"], 2)
        results[f"{form}_scheduling_attempts"] = loaded.scheduler.attempts
        placed = {(p["metadata"].get("namespace"), p["metadata"]["name"]): p["spec"].get("nodeName")
                  for p in loaded.store.list("Pod")}
        assert placed == expected, "the loaded snapshot places pods differently"
        copy = timed(f"{form}_fork", loaded.fork, results)
        assert len(copy.store.list("Pod")) == len(expected)
        del docs, loaded, copy
        gc.collect()
    results["peak_rss_MiB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
