"""Worst-case cost of a checked DRA selector, as the API server estimates it.

k8s: google/cel-go checker/cost.go (coster: the walk over the checked AST, field paths,
size tracking, comprehensions, binds), dynamic-resource-allocation/cel/compile.go
(CompileCELExpression's EstimateCost with draCostEstimator and sizeEstimator),
apiserver pkg/cel/environment/base.go (PresenceTestHasCost(false): has() is free).
Per-function costs live in drasim/cel/cost_functions.py.

    estimate(root) -> Estimate(cost=(min, max), largest_value=…)

The API server rejects a selector whose estimated max cost is above
CEL_SELECTOR_EXPRESSION_MAX_COST (validation.go validateCELExpression).
`built` is drasim's own, for the memory guard (selector.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from drasim.cel import cost_functions as fn
from drasim.cel.checked import CelType, Node
from drasim.cel.cost_sizes import (CONST_COST, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, MAX_U64, ONE,
                                   SELECT_AND_IDENT_COST, STRUCT_CREATE_BASE_COST, UNKNOWN, ZERO, Range, add,
                                   add_u64, dra_size, fixed, mul, mul_u64, union)

_ACCUMULATORS = ("__result__", "@result")  # cel-go parser.AccumulatorName, HiddenAccumulatorName
_QUANTITY = CelType("message", "kubernetes.Quantity")
_PRESENCE_TEST_COST = ZERO  # k8s base.go: checker.PresenceTestHasCost(false)
ITERATION_BUDGET = 10_000  # cel-cpp's comprehension iterations per evaluation (not configurable here)


@dataclass(frozen=True, slots=True)
class Entry:
    """cel-go entrySizeEstimate: container kind ("list"/"map") and key / value sizes."""

    container: str
    key: Range
    val: Range

    def union(self, other: Entry | None) -> Entry | None:
        if other is None:
            return None
        return Entry(self.container, union(self.key, other.key), union(self.val, other.val))


@dataclass(slots=True)
class _Local:
    path: tuple[str, ...]
    size: Range | None
    entry: Entry | None


@dataclass(frozen=True, slots=True)
class AstNode:
    """cel-go checker.AstNode: what a function estimator may ask about an argument."""

    path: tuple[str, ...]
    type: CelType
    node: Node | None
    computed_size: Range | None


@dataclass(frozen=True, slots=True)
class Estimate:
    """`cost`: the (min, max) estimate. `built`: drasim's bound on the total size (characters,
    bytes, list items) of the values an evaluation builds with +, replace, join, format,
    lists.range, … (map/filter steps included), MAX_U64 when one is unknown."""

    cost: Range
    built: int


SizeOracle = Callable[[tuple[str, ...]], "Range | None"]


class Coster:
    """One walk over one checked AST (cel-go checker.coster)."""

    def __init__(self, size_oracle: SizeOracle = dra_size) -> None:
        self.size_oracle = size_oracle
        self.paths: dict[int, tuple[str, ...]] = {}
        self.sizes: dict[int, Range] = {}
        self.entries: dict[int, Entry] = {}
        self.locals: dict[str, list[_Local]] = {}
        # drasim's memory guard: sizes of the values growing operations may build, each
        # times how often the enclosing comprehensions may run it (at most cel-cpp's budget).
        self.growth: list[int] = []
        self.repeats = 1
        self.loop_counts: list[int] = []  # iterations of each enclosing comprehension

    # --- the walk ---------------------------------------------------------------------------

    def cost(self, e: Node | None) -> Range:
        if e is None:
            return ZERO
        kind = e.kind
        if kind == "const":
            return fixed(CONST_COST)
        if kind == "ident":
            local = self.peek(e.name)
            self.paths[e.id] = local.path if local else (e.name,)
            return fixed(SELECT_AND_IDENT_COST)
        if kind == "select":
            return self._select(e)
        if kind == "call":
            return self._call(e)
        if kind == "list":
            return self._create_list(e)
        if kind == "map":
            return self._create_map(e)
        if kind == "struct":
            total = fixed(STRUCT_CREATE_BASE_COST)
            for _, value in e.entries:
                total = add(total, self.cost(value))
            return total
        if kind == "comp":
            return self._bind(e) if _is_bind(e) else self._comprehension(e)
        return ZERO

    def _select(self, e: Node) -> Range:
        if e.test_only:  # has(): only the operand, which "evaluates" the presence test
            return add(_PRESENCE_TEST_COST, self.cost(e.operand))
        total = self.cost(e.operand)
        if _kind(self.type_of(e.operand)) in ("map", "message", "type_param"):
            total = add(total, fixed(SELECT_AND_IDENT_COST))
        self.paths[e.id] = self.path_of(e.operand) + (e.field,)
        return total

    def _call(self, e: Node) -> Range:
        if e.function == "dyn" and len(e.args) == 1:  # dyn() only switches type checking off
            arg = e.args[0]
            arg_cost = self.cost(arg)
            self._copy_sizes(e, arg)
            return add(ONE, arg_cost)
        arg_costs = []
        arg_nodes = []
        for arg in e.args:
            arg_costs.append(self.cost(arg))
            arg_nodes.append(self.ast_node(arg))
        if not e.overloads:
            return ZERO
        total = ZERO
        target = None
        if e.target is not None:
            total = self.cost(e.target)
            target = self.ast_node(e.target)
        fn_cost = (MAX_U64, 0)
        result_size = None
        for overload in e.overloads:
            cost, size = fn.function_cost(self, e, overload, target, arg_nodes, arg_costs)
            fn_cost = union(fn_cost, cost)
            if size is not None:
                result_size = size if result_size is None else union(result_size, size)
            if overload in ("index_list", "index_map") and e.args:
                sub = "@items" if overload == "index_list" else "@values"
                entry = self.entry_of(e.args[0])
                result_size = entry.val if entry else None
                self.paths[e.id] = self.path_of(e.args[0]) + (sub,)
            if result_size is None:
                result_size = self.size_of(e)
        if result_size is not None:
            self.sizes[e.id] = result_size
        if fn.grows(e.overloads):
            built = fn.growth_size(self, e, arg_nodes, result_size)
            if self._appends_to_accumulator(e):
                # map/filter: cel-cpp builds `@result + [x]` anew in every iteration, so
                # the list built there grows up to the iteration count each time.
                built = add_u64(built, self.loop_counts[-1])
            self.growth.append(mul_u64(built, self.repeats))
        return add(total, fn_cost)

    def _create_list(self, e: Node) -> Range:
        total = ZERO
        item = (0 if not e.args else MAX_U64, 0)
        for element in e.args:
            total = add(total, self.cost(element))
            item = union(item, self.size_or_unknown(element))
        self.entries[e.id] = Entry("list", ONE, item)
        return add(total, fixed(LIST_CREATE_BASE_COST))

    def _create_map(self, e: Node) -> Range:
        total = ZERO
        start = (0 if not e.entries else MAX_U64, 0)
        key_size, val_size = start, start
        for key, value in e.entries:
            total = add(add(total, self.cost(key)), self.cost(value))
            key_size = union(key_size, self.size_or_unknown(key))
            val_size = union(val_size, self.size_or_unknown(value))
        self.entries[e.id] = Entry("map", key_size, val_size)
        return add(total, fixed(MAP_CREATE_BASE_COST))

    def _comprehension(self, e: Node) -> Range:
        rng = e.iter_range
        total = add(self.cost(rng), self.cost(e.accu_init))
        self._push_local(e.accu_var, e.accu_init)
        if e.iter_var2:
            self._push_iter(e.iter_var, rng, "key")
            self._push_iter(e.iter_var2, rng, "value")
        else:
            self._push_iter(e.iter_var, rng, "single")
        outer_repeats = self.repeats
        iterations = min(self.size_or_unknown(rng)[1], ITERATION_BUDGET)
        self.repeats = mul_u64(outer_repeats, iterations)
        self.loop_counts.append(iterations)
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        self.loop_counts.pop()
        self.repeats = outer_repeats
        self.pop(e.iter_var)
        if e.iter_var2:
            self.pop(e.iter_var2)
        total = add(total, self.cost(e.result))
        self.pop(e.accu_var)
        count = self.size_or_unknown(rng)
        total = add(total, mul(count, add(step, loop)))
        init = e.accu_init
        if init.kind == "const":
            size = self.size_of(init)
            if size is not None:
                self.sizes[e.id] = size
        elif init.kind in ("list", "map"):
            self.sizes[e.id] = count
            step_entry = self.entry_of(e.loop_step)
            if step_entry is not None:
                self.entries[e.id] = step_entry
        return total

    def _bind(self, e: Node) -> Range:
        # Binds are lazy: the (empty) range is still charged, like cel-go.
        total = add(self.cost(e.iter_range), self.cost(e.accu_init))
        self._push_local(e.accu_var, e.accu_init)
        total = add(total, self.cost(e.result))
        self.pop(e.accu_var)
        self._copy_sizes(e, e.result)
        return total

    def _appends_to_accumulator(self, e: Node) -> bool:
        return (bool(self.loop_counts) and "add_list" in e.overloads and bool(e.args)
                and e.args[0].kind == "ident" and e.args[0].name in _ACCUMULATORS)

    # --- locals, paths, sizes ---------------------------------------------------------------

    def peek(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    def _push_local(self, name: str, e: Node) -> None:
        self.locals.setdefault(name, []).append(_Local(self.path_of(e), self.size_of(e), self.entry_of(e)))

    def _push_iter(self, name: str, rng: Node, role: str) -> None:
        """cel-go pushIterKey / pushIterValue / pushIterSingle."""
        entry = self.entry_of(rng)
        container = entry.container if entry else _kind(self.type_of(rng))
        is_list = container == "list"
        if role == "key":
            size, sub = (entry.key if entry else None), ("@indices" if is_list else "@keys")
        elif role == "value":
            size, sub = (entry.val if entry else None), ("@items" if is_list else "@values")
        elif is_list:
            size, sub = (entry.val if entry else None), "@items"
        else:
            size, sub = (entry.key if entry else None), "@keys"
        self.locals.setdefault(name, []).append(_Local(self.path_of(rng) + (sub,), size, None))

    def path_of(self, e: Node) -> tuple[str, ...]:
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None:
                return local.path
        return self.paths.get(e.id, ())

    def type_of(self, e: Node) -> CelType:
        """The checker's type; capacity values are kubernetes.Quantity, as in the API server
        (cel-cpp's checker here only knows them as dyn, docs/cel.md)."""
        t = e.type
        if t.kind == "dyn":
            path = self.path_of(e)
            if (len(path) == 4 and path[0] == "device" and path[1] == "capacity"
                    and path[3] not in ("@keys", "@indices")):
                return _QUANTITY
        return t

    def ast_node(self, e: Node) -> AstNode:
        path = self.path_of(e)
        if path and path[0] in _ACCUMULATORS:
            path = ()
        return AstNode(path, self.type_of(e), e, self.size_of(e))

    def size_of(self, e: Node) -> Range | None:
        """cel-go computeSize: tracked, literal, estimator (by path), scalar type, local var."""
        if e.id in self.sizes:
            return self.sizes[e.id]
        literal = _literal_size(e)
        if literal is not None:
            return literal
        estimated = self.size_oracle(self.path_of(e))
        if estimated is not None:
            self.sizes[e.id] = estimated
            return estimated
        if is_scalar(self.type_of(e)):
            return ONE
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None and local.size is not None:
                return local.size
        return None

    def size_or_unknown(self, e: Node) -> Range:
        size = self.size_of(e)
        return UNKNOWN if size is None else size

    def entry_of(self, e: Node) -> Entry | None:
        if e.id in self.entries:
            return self.entries[e.id]
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None:
                return local.entry
        return None

    def set_entry(self, e: Node, entry: Entry | None) -> None:
        if entry is not None:
            self.entries[e.id] = entry

    def _copy_sizes(self, dst: Node, src: Node) -> None:
        size = self.size_of(src)
        if size is not None:
            self.sizes[dst.id] = size
        self.set_entry(dst, self.entry_of(src))


def _is_bind(e: Node) -> bool:
    rng, cond = e.iter_range, e.loop_condition
    return (rng.kind == "list" and not rng.args and cond.kind == "const" and cond.value is False
            and e.accu_var != _ACCUMULATORS[0])


def _literal_size(e: Node) -> Range | None:
    """cel-go computeExprSize: exact sizes of literals and aggregate literals."""
    if e.kind == "const":
        v = e.value
        if isinstance(v, str):
            return fixed(len(v))
        if isinstance(v, bytes):
            return fixed(len(v))
        return ONE  # bool, int, uint, double, null
    if e.kind == "list":
        return fixed(len(e.args))
    if e.kind == "map":
        return fixed(len(e.entries))
    return None


_SCALAR_KINDS = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})


def is_scalar(t: CelType) -> bool:
    """cel-go isScalar: constant size at compile time (strings are not)."""
    if t.kind in _SCALAR_KINDS:
        return True
    if t.kind == "opaque" and t.name == "optional_type" and t.params:
        return is_scalar(t.params[0])
    return False


def _kind(t: CelType) -> str:
    return t.kind


def estimate(root: Node, size_oracle: SizeOracle = dra_size) -> Estimate:
    coster = Coster(size_oracle)
    cost = coster.cost(root)
    built = 0
    for size in coster.growth:
        built = add_u64(built, size)
    return Estimate(cost, built)
