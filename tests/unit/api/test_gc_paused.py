"""loader.gc_paused: the cycle collector off during a bulk step; what the step built kept out
of its later passes (gc.freeze) only when asked (a one-shot run's steps) and only for a
snapshot's worth of objects — never for library callers, whose dropped planes must stay
collectable."""
import gc

from drasim.api import loader
from drasim.api.loader import load_paths
from drasim.controlplane import ControlPlane
from tests.scenarios.test_examples import EXAMPLES


def build(n: int) -> list:
    return [[i] for i in range(n)]   # lists: always tracked by the collector (small dicts may not be)


def test_a_bulk_step_asked_to_freeze_is_frozen_and_the_collector_comes_back_on():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    with loader.gc_paused(freeze=True):
        assert not gc.isenabled()
        kept = build(loader._BULK_ALLOCATIONS + 1000)
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(kept)


def test_small_steps_and_steps_not_asked_are_not_frozen():
    before = gc.get_freeze_count()
    with loader.gc_paused(freeze=True):
        small = build(1000)
    with loader.gc_paused():
        big = build(loader._BULK_ALLOCATIONS + 1000)
    assert gc.isenabled() and gc.get_freeze_count() <= before and len(small) + len(big) > 0


def test_only_documents_handed_over_are_frozen_after_a_phase(monkeypatch):
    """Planning loops build and drop many planes: a plain apply must not freeze one for good;
    the CLI's own (owned) phases may."""
    monkeypatch.setattr(loader, "_BULK_ALLOCATIONS", 10)   # any phase counts as bulk here
    phase = EXAMPLES / "gpu-64gi" / "cluster.yaml"
    # gc.get_objects() lists the collector's generations, not the frozen (permanent) one.
    plain = ControlPlane()
    plain.apply(load_paths([phase]))
    assert any(o is plain.store.list("Node")[0] for o in gc.get_objects())
    owned = ControlPlane()
    owned.apply(load_paths([phase]), owned=True)
    assert not any(o is owned.store.list("Node")[0] for o in gc.get_objects())


def test_a_paused_caller_stays_paused():
    gc.disable()
    try:
        with loader.gc_paused(freeze=True):
            build(10)
        assert not gc.isenabled()
    finally:
        gc.enable()
