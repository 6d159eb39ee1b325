"""childcopy.in_copy: a what-if in a forked child process gives what the same what-if on
ControlPlane.fork() gives, leaves the parent as it was, and carries exceptions back
(drasim/childcopy.py)."""
import json
import os
import random

import pytest

from drasim import childcopy
from drasim.controlplane import ControlPlane, Options
from drasim.store import clone
from tests.property.workload_ops import apply_op, build_cluster, outcome, random_ops

pytestmark = pytest.mark.skipif(not childcopy.can_fork(), reason="no os.fork here")


def _frozen(cp: ControlPlane) -> str:
    return json.dumps([clone(o) for o in cp.objects(include_events=True)], sort_keys=True)


def _what_if(ops, start):
    def run(cp):
        denials: list[str] = []
        for index, (op, n) in enumerate(ops, start=start):
            apply_op(cp, index, op, n, denials)
        cp.settle()
        return outcome(cp, denials), cp.scheduler.attempts
    return run


@pytest.mark.parametrize("seed", range(4))
def test_a_child_decides_as_an_in_process_fork(seed):
    """Random workloads: the first part runs, then the rest as a what-if — in a child process
    and on an in-process fork — with equal outcomes (placements, devices, claims, pending
    reasons, scheduling attempts); the parent is untouched."""
    rng = random.Random(seed)
    ops = random_ops(rng, 100)
    k = rng.randrange(20, 80)
    cp = ControlPlane(Options(seed=5))
    build_cluster(cp)
    for index, (op, n) in enumerate(ops[:k]):
        apply_op(cp, index, op, n, [])
    cp.settle()
    before = _frozen(cp)
    what_if = _what_if(ops[k:], k)
    in_child = childcopy.in_copy(cp, what_if, child=True)
    assert _frozen(cp) == before, "the child's changes reached the parent"
    in_process = childcopy.in_copy(cp, what_if, child=False)
    assert in_child == in_process
    assert _frozen(cp) == before


def test_exceptions_come_back_and_a_lost_child_is_reported():
    cp = ControlPlane()

    def refuse(_):
        raise ValueError("no such node")
    with pytest.raises(ValueError, match="no such node"):
        childcopy.in_copy(cp, refuse, child=True)
    with pytest.raises(childcopy.ChildFailed, match="exit status 3"):
        childcopy.in_copy(cp, lambda _: os._exit(3), child=True)
    with pytest.raises(childcopy.ChildFailed, match="cannot be sent back"):
        childcopy.in_copy(cp, lambda _: (lambda: 1), child=True)   # a lambda does not pickle


def test_size_chooses_the_copy():
    """Small planes are copied in-process (a child's pid differs from ours); large ones forked."""
    cp = ControlPlane()
    assert childcopy.in_copy(cp, lambda _: os.getpid()) == os.getpid()
    old = childcopy.CHILD_OBJECTS
    childcopy.CHILD_OBJECTS = 0
    try:
        assert childcopy.in_copy(cp, lambda _: os.getpid()) != os.getpid()
    finally:
        childcopy.CHILD_OBJECTS = old
