"""Several work items in one turn of the loop, while they write nothing.

run_until_quiet (drasim/sim/loop.py) gives each turn to the first component with work. An item
that writes nothing to the store changes nothing another component acts on (their work comes
from watch events, and the clock does not move within a turn), so the loop's next turn would be
this component's again: taking its next item at once is the same run without the turn's
has_work calls (a settle after loading a snapshot checks every claim and every owner reference
and writes nothing). A write ends the batch, so the components before this one see its events
first, as they would otherwise. BATCH bounds a turn: a server's slice checks its deadline
between turns (drasim/server/runtime.py).
"""
from __future__ import annotations

from typing import Callable

BATCH = 64


def run_batch(component, step: Callable[[], None]) -> None:
    """step() once, then again while the store's revision is unchanged and component has work."""
    store = component.store
    revision = store.revision
    for _ in range(BATCH - 1):
        step()
        if store.revision != revision or not component.has_work():
            return
    step()
