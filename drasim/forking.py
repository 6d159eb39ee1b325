"""Copying a control plane cheaply: what-ifs and sweeps start from the copy instead of parsing,
decoding and admitting the same snapshot again.

A fork is a deep copy of the plane — store tables, every component's indexes and queues, the
scheduler's caches, the clock and its timers, the generators of names, uids and tie-breaks —
that *shares* the stored objects themselves: copy-on-write at object granularity, since a
stored object is never changed in place (every write stores a new dict; drasim/store/memory.py
says so to every reader). So the fork decides exactly as the original would from that point on,
and writes to either leave the other as it was (tests/scenarios/test_fork.py).

What is not copied: subscribers to the store that are not part of the plane (a benchmark
executor, a server's watch hub, a timeline recorder: they watch the original only), the
durable journal (a fork never writes to the original's data directory), and the Prometheus
metrics, which start from zero in the fork.
"""
from __future__ import annotations

import copy
import types

from drasim.metrics import Metrics

try:   # compiled CEL activations are immutable bindings of a device's variables: shared
    from cel_expr_python.cel import Activation as _Activation
except ImportError:   # pragma: no cover - the pinned binding has it
    _Activation = None


def _copy_function(fn, memo):
    """A function's closure cells copied too: `lambda: self.x()` in the fork calls the fork's x."""
    if fn.__closure__ is None:
        return fn
    cells = tuple(types.CellType(copy.deepcopy(c.cell_contents, memo)) for c in fn.__closure__)
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    new.__kwdefaults__ = fn.__kwdefaults__
    memo[id(fn)] = new
    return new


def _own_objects(cp) -> set[int]:
    owned = {id(cp), *(id(v) for v in vars(cp).values()), *(id(c) for c in cp.components),
             *(id(p) for p in cp.scheduler.profile.plugins), *(id(c) for c in cp.workload_controllers)}
    return owned


def fork(cp):
    """A copy of `cp` sharing its stored objects; see the module docstring."""
    store = cp.store
    owned = _own_objects(cp)
    foreign = {kind: [h for h in handlers if id(getattr(h, "__self__", None)) not in owned]
               for kind, handlers in store._subscribers.items()}
    metrics = Metrics()
    memo: dict[int, object] = {id(cp.options): cp.options, id(cp.metrics): metrics}
    if store.journal is not None:
        memo[id(store.journal)] = None
    for table in store._objects.values():
        for obj in table.values():
            memo[id(obj)] = obj
    saved_subscribers = store._subscribers
    store._subscribers = {kind: [h for h in handlers if h not in foreign[kind]]
                          for kind, handlers in saved_subscribers.items()}
    # copy.deepcopy has no per-call hooks: its dispatch table is extended for the duration of
    # the copy (the simulation is single-threaded) and restored whatever happens.
    dispatch = copy._deepcopy_dispatch
    saved = {t: dispatch.get(t) for t in (types.FunctionType, _Activation) if t is not None}
    dispatch[types.FunctionType] = _copy_function
    if _Activation is not None:
        dispatch[_Activation] = copy._deepcopy_atomic
    try:
        new = copy.deepcopy(cp, memo)
    finally:
        store._subscribers = saved_subscribers
        for t, old in saved.items():
            if old is None:
                dispatch.pop(t, None)
            else:
                dispatch[t] = old
    metrics.watch_claims(lambda: new.store.list("ResourceClaim"))
    return new
