"""loader.gc_paused: the cycle collector off during a bulk step, and what the step built kept
out of its later passes (gc.freeze) only when the step built a snapshot's worth of objects."""
import gc

from drasim.api import loader


def build(n: int) -> list:
    return [[i] for i in range(n)]   # lists: always tracked by the collector (small dicts may not be)


def test_a_bulk_step_is_frozen_and_the_collector_comes_back_on():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    with loader.gc_paused():
        assert not gc.isenabled()
        kept = build(loader._BULK_ALLOCATIONS + 1000)
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(kept)


def test_a_small_step_is_not_frozen():
    before = gc.get_freeze_count()
    with loader.gc_paused():
        kept = build(1000)
    assert gc.isenabled() and gc.get_freeze_count() == before and len(kept) == 1000


def test_a_paused_caller_stays_paused():
    gc.disable()
    try:
        with loader.gc_paused():
            build(10)
        assert not gc.isenabled()
    finally:
        gc.enable()
