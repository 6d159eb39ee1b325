"""ControlPlane.fork(): a copy of a settled plane decides as a fresh load of the same cluster
would, and nothing done to the copy reaches the original (drasim/forking.py)."""
import json
import random

import pytest

from drasim.api.loader import load_paths
from drasim.cli import render
from drasim.controlplane import ControlPlane, Options
from drasim.store import clone
from tests.property.workload_ops import apply_op, build_cluster, outcome, random_ops
from tests.scenarios.test_examples import EXAMPLES


def _frozen(cp: ControlPlane) -> str:
    """Every stored object, Events included, as text: any in-place change shows."""
    return json.dumps([clone(o) for o in cp.objects(include_events=True)], sort_keys=True)


def _with_settle_at(ops, k):
    return ops[:k] + [("settle", 0)] + ops[k:]


@pytest.mark.parametrize("seed", range(8))
def test_a_fork_continues_as_the_original_would_and_leaks_nothing(seed):
    """Random workloads (the optimisation-equivalence operations: pods placed and deleted, claims
    allocated and released, slices republished, nodes deleted, taints, quota denials): the
    first part runs, the plane is forked, the rest runs on the fork. The fork's outcome after
    every settle equals that of one uninterrupted run, and the original is untouched."""
    rng = random.Random(seed)
    ops = random_ops(rng, 120)
    k = rng.randrange(20, 100)
    ops = _with_settle_at(ops, k)

    reference = ControlPlane(Options(seed=5))
    build_cluster(reference)
    ref_denials: list[str] = []
    ref_history = []
    for index, (op, n) in enumerate(ops):
        apply_op(reference, index, op, n, ref_denials)
        if op == "settle" and index > k:
            ref_history.append(outcome(reference, ref_denials))
    reference.settle()

    original = ControlPlane(Options(seed=5))
    build_cluster(original)
    denials: list[str] = []
    for index, (op, n) in enumerate(ops[:k + 1]):
        apply_op(original, index, op, n, denials)
    before = _frozen(original)
    before_outcome = outcome(original, denials)
    copy = original.fork()
    assert outcome(copy, denials) == before_outcome
    assert _frozen(copy) == before
    fork_denials = list(denials)
    history = []
    for index, (op, n) in enumerate(ops[k + 1:], start=k + 1):
        apply_op(copy, index, op, n, fork_denials)
        if op == "settle":
            history.append(outcome(copy, fork_denials))
    copy.settle()
    for i, (a, b) in enumerate(zip(history, ref_history)):
        assert a == b, f"diverged by settle #{i} after the fork"
    assert outcome(copy, fork_denials) == outcome(reference, ref_denials)
    assert _frozen(original) == before, "a change to the fork reached the original"
    # The original still works on its own and comes to the same end.
    for index, (op, n) in enumerate(ops[k + 1:], start=k + 1):
        apply_op(original, index, op, n, denials)
    original.settle()
    assert outcome(original, denials) == outcome(reference, ref_denials)


def test_a_fork_of_a_loaded_snapshot_decides_like_a_fresh_load(tmp_path):
    """What-if on a snapshot: more pods on the fork and on a second, fresh load of the same
    snapshot give the same placements, devices and uids."""
    first = ControlPlane()
    first.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "cluster.yaml"]))
    first.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "workload.yaml"]))
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(render.render_json(first.objects()))
    what_if = EXAMPLES / "gpu-64gi" / "workload.yaml"

    def renamed(docs):   # the same workload again, under new names
        out = []
        for d in load_paths([what_if]):
            obj = clone(d.obj)
            obj["metadata"]["name"] = "again-" + obj["metadata"]["name"]
            out.append(type(d)(d.source, d.kind, obj))
        return out

    loaded = ControlPlane()
    loaded.run_phase(load_paths([snapshot]))
    before = _frozen(loaded)
    copy = loaded.fork()
    copy.run_phase(renamed(None))

    fresh = ControlPlane()
    fresh.run_phase(load_paths([snapshot]))
    fresh.run_phase(renamed(None))

    assert render.render_json(copy.objects()) == render.render_json(fresh.objects())
    assert _frozen(loaded) == before


def test_a_fork_mid_phase_carries_its_timers_and_queues():
    """Forked before settling (pods queued, claims to create, kubelet timers): the fork settles
    to what the original settles to, and the original is untouched until it settles itself."""
    cp = ControlPlane()
    cp.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "cluster.yaml"]))
    cp.apply(load_paths([EXAMPLES / "gpu-64gi" / "workload.yaml"]))   # applied, not settled
    before = _frozen(cp)
    copy = cp.fork()
    copy.settle()
    assert _frozen(cp) == before
    cp.settle()
    assert render.render_json(copy.objects(include_events=True)) == render.render_json(cp.objects(include_events=True))


def test_watchers_of_the_original_do_not_follow_the_fork():
    cp = ControlPlane()
    cp.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "cluster.yaml"]))
    seen = []
    cp.store.subscribe(lambda ev: seen.append(ev), kinds=("Pod",))
    copy = cp.fork()
    copy.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "workload.yaml"]))
    assert copy.store.list("Pod") and not seen
