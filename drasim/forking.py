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
from decimal import Decimal
from fractions import Fraction

from drasim.metrics import Metrics

try:   # compiled CEL activations are immutable bindings of a device's variables: shared
    from cel_expr_python.cel import Activation as _Activation
except ImportError:   # pragma: no cover - the pinned binding has it
    _Activation = None


def _copy_function(fn, memo, copier=None):
    """A function's closure cells copied too: `lambda: self.x()` in the fork calls the fork's x."""
    if fn.__closure__ is None:
        return fn
    copier = copier or (lambda value: copy.deepcopy(value, memo))
    cells = tuple(types.CellType() for _ in fn.__closure__)
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    new.__kwdefaults__ = fn.__kwdefaults__
    memo[id(fn)] = new   # before the cells: a closure may reach itself
    for cell, old in zip(cells, fn.__closure__):
        try:
            cell.cell_contents = copier(old.cell_contents)
        except ValueError:   # a cell not filled yet stays empty
            pass
    return new


def _own_objects(cp) -> set[int]:
    owned = {id(cp), *(id(v) for v in vars(cp).values()), *(id(c) for c in cp.components),
             *(id(p) for p in cp.scheduler.profile.plugins), *(id(c) for c in cp.workload_controllers)}
    return owned


_ATOMIC = frozenset({str, int, float, bool, type(None), bytes, complex, range, type,
                     types.BuiltinFunctionType, types.ModuleType, Fraction, Decimal})


def _plain_class(cls) -> bool:
    """A drasim class whose instances are just their attributes (no copy protocol of its own)."""
    if not (cls.__module__ or "").startswith("drasim."):
        return False
    for base in cls.__mro__[:-1]:
        if base.__module__ in ("builtins", "collections") or any(
                name in vars(base) for name in ("__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__",
                                                "__setstate__", "__copy__")):
            return False
    return True


def _slot_names(cls) -> tuple[str, ...]:
    names: list[str] = []
    for base in cls.__mro__:
        slots = vars(base).get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple(n for n in names if n not in ("__dict__", "__weakref__"))


class _Copier:
    """copy.deepcopy's result for the plane's state, faster: dicts, lists, tuples, sets and drasim's
    own classes are copied here without the reduce protocol (a call per container, not per
    value); anything else goes to copy.deepcopy with the same memo, so identities are kept."""

    def __init__(self, memo: dict) -> None:
        self.memo = memo
        self.plain: dict[type, tuple[bool, tuple[str, ...]]] = {}

    def copy(self, x):
        cls = x.__class__
        if cls in _ATOMIC:
            return x
        memo = self.memo
        y = memo.get(id(x), _MISSING)
        if y is not _MISSING:
            return y
        c = self.copy
        if cls is dict:
            y = memo[id(x)] = {}
            for k, v in x.items():
                y[k if k.__class__ in _ATOMIC else c(k)] = v if v.__class__ in _ATOMIC else c(v)
            return y
        if cls is list:
            y = memo[id(x)] = []
            y.extend([v if v.__class__ in _ATOMIC else c(v) for v in x])
            return y
        if cls is set:
            y = memo[id(x)] = {v if v.__class__ in _ATOMIC else c(v) for v in x}
            return y
        if cls is tuple or cls is frozenset:
            items = [v if v.__class__ in _ATOMIC else c(v) for v in x]
            y = memo.get(id(x), _MISSING)   # a tuple reached again through its own items
            if y is _MISSING:
                y = x if all(a is b for a, b in zip(items, x)) else cls(items)
                memo[id(x)] = y
            return y
        if cls is types.FunctionType:
            return _copy_function(x, memo, c)
        if cls is types.MethodType:
            y = memo[id(x)] = types.MethodType(x.__func__, c(x.__self__))
            return y
        plain = self.plain.get(cls)
        if plain is None:
            plain = self.plain[cls] = (_plain_class(cls), _slot_names(cls))
        if plain[0]:
            y = memo[id(x)] = cls.__new__(cls)
            state = getattr(x, "__dict__", None)
            if state is not None:
                y.__dict__.update({k: v if v.__class__ in _ATOMIC else c(v) for k, v in state.items()})
            for name in plain[1]:
                try:
                    v = getattr(x, name)
                except AttributeError:
                    continue
                object.__setattr__(y, name, v if v.__class__ in _ATOMIC else c(v))
            return y
        return copy.deepcopy(x, memo)


_MISSING = object()


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
    # What the fast copier leaves to copy.deepcopy may hold functions and CEL activations: its
    # dispatch table (it has no per-call hooks) is extended for the duration of the copy (the
    # simulation is single-threaded) and restored whatever happens.
    dispatch = copy._deepcopy_dispatch
    saved = {t: dispatch.get(t) for t in (types.FunctionType, _Activation) if t is not None}
    dispatch[types.FunctionType] = _copy_function
    if _Activation is not None:
        dispatch[_Activation] = copy._deepcopy_atomic
    try:
        new = _Copier(memo).copy(cp)
    finally:
        store._subscribers = saved_subscribers
        for t, old in saved.items():
            if old is None:
                dispatch.pop(t, None)
            else:
                dispatch[t] = old
    metrics.watch_claims(lambda: new.store.list("ResourceClaim"))
    return new
