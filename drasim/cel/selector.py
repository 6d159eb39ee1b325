"""Compiling, validating and evaluating DRA CEL selectors.

k8s: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (CompileCELExpression,
DeviceMatches), cache.go; pkg/apis/resource/validation/validation.go; spec cel.md §2, §5, §6.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from drasim.cel import source
from drasim.cel.checked import checked_ast
from drasim.cel.cost import Estimate, estimate
from drasim.cel.cost_sizes import CEL_SELECTOR_EXPRESSION_MAX_COST
from drasim.cel.device import DeviceInput
from drasim.cel.environment import EnvType, environment, literal_env
from drasim.cel.plain import input_lookup, judge, plain_terms
from drasim.cel.errors import (COST_LIMIT_EXCEEDED, ITERATION_RANGE, CelCompileError, CelRuntimeError,
                               cel_go_type, compile_message, not_bool_message, not_iterable_message,
                               result_type_name, runtime_message)

# k8s: staging/src/k8s.io/api/resource/v1/types.go CELSelectorExpressionMaxLength
MAX_EXPRESSION_LENGTH = 10 * 1024
# drasim's memory guard (docs/cel.md): what one evaluation may build in total. At 0.1 cost
# units per character, one traversal of that much already costs the whole 1 000 000 budget.
MAX_BUILT_SIZE = 10_000_000
_ACCEPTED_RESULTS = ("BOOL", "DYN")
_ERROR = cel.Type.ERROR


def _check(expression: str, env_type: EnvType) -> Any:
    """Type-check in NEW or STORED and return the checked expression; raise CelCompileError
    with the API server's detail."""
    if not _is_utf8(expression):  # a lone surrogate: JSON/YAML cannot carry one to Kubernetes
        raise CelCompileError("compilation failed: ERROR: <input>:1:1: Syntax error: invalid UTF-8")
    try:
        checked = environment(env_type).compile(expression)
    except RuntimeError as err:
        raise CelCompileError("compilation failed: " + compile_message(str(err))) from None
    returned = str(checked.return_type())
    if returned not in _ACCEPTED_RESULTS:
        raise CelCompileError(f"must evaluate to bool or the unknown type, not {cel_go_type(returned)}")
    _check_literals(expression)
    return checked


def estimated_cost(checked: Any) -> Estimate:
    """The API server's worst-case estimate (k8s: compile.go CompileCELExpression's
    env.EstimateCost with the DRA size estimator); drasim/cel/cost.py. A failure is
    CompileCELExpression's internal error "cost estimation failed: …"."""
    try:
        return estimate(checked_ast(checked.serialize()))
    except Exception as err:  # noqa: BLE001 - a gap in the estimator must not crash the caller
        raise CelCompileError(f"cost estimation failed: {err}") from None


def _memory_unsafe(found: Estimate) -> bool:
    """drasim's memory guard (docs/cel.md): cel-cpp has no cost tracker and keeps every
    temporary of an evaluation, so a selector that may build more than MAX_BUILT_SIZE
    characters or list items in one evaluation is not run."""
    return found.built > MAX_BUILT_SIZE


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


_LITERAL_PROBES = {"matches": "''.matches({})", "duration": "duration({})", "timestamp": "timestamp({})"}


def _check_literals(expression: str) -> None:
    """cel-go's literal validators (BASE): a bad regex, duration or timestamp literal."""
    problems = []
    for call in source.literal_calls(expression):
        probe = literal_env().compile(_LITERAL_PROBES[call.function].format(call.literal))
        if probe.eval().type() != _ERROR:
            continue
        line, column, text = source.position(expression, call.offset)
        problems.append(f"ERROR: <input>:{line}:{column}: invalid {call.function} argument\n"
                        f" | {text}\n | {'.' * (column - 1)}^")
    if problems:
        raise CelCompileError("compilation failed: " + "\n".join(problems))


def _program(expression: str) -> Any:
    """The runnable program: unknown domains rewritten to empty maps (source.py)."""
    env = environment(EnvType.RUNTIME)
    rewritten = source.rewrite_domain_lookups(expression)
    try:
        return env.compile(rewritten)
    except RuntimeError:
        pass
    try:  # the rewrite failed to compile: run the expression as written
        return env.compile(expression)
    except RuntimeError as err:
        raise CelCompileError("compilation failed: " + compile_message(str(err))) from None


class CompiledSelector:
    """One compiled selector; `matches` judges one device.

    `max_cost` is the estimated worst case. A selector the memory guard refuses is never
    run: every evaluation fails the way cel-go's cost tracker stops one (k8s: compile.go
    passes cel.CostLimit(CELSelectorExpressionMaxCost) to the program). cel-cpp's own
    budget of 10 000 comprehension iterations per evaluation stops long loops the same way."""

    __slots__ = ("expression", "_program", "max_cost", "_refused", "_built", "plain")

    def __init__(self, expression: str, program: Any, cost: Estimate | None = None, *, fast: bool = True) -> None:
        self.expression = expression
        # plain comparisons are judged without the interpreter when they can be (plain.py)
        self.plain = plain_terms(expression) if fast else None
        self._program = program
        self.max_cost = cost.cost[1] if cost is not None else 0
        self._refused = cost is not None and _memory_unsafe(cost)
        self._built = cost.built if cost is not None else 0

    def __repr__(self) -> str:
        return f"CompiledSelector({self.expression!r})"

    @property
    def refused(self) -> bool:
        """The memory guard refuses to run it (every evaluation fails)."""
        return self._refused

    def matches(self, device: DeviceInput) -> bool:
        """True when the device satisfies the expression; CelRuntimeError when evaluation fails."""
        if device.error is not None:
            raise CelRuntimeError(device.error)
        if self._refused:
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        if self.plain is not None:
            verdict = judge(self.plain, device.driver, input_lookup(device.variables["device"]["attributes"]))
            if verdict is not None:
                return verdict
        try:
            result = self._program.eval(device.activation(self._built))
        except RuntimeError as err:  # cel-cpp raises only for its iteration budget
            raise CelRuntimeError(runtime_message(str(err))) from None
        value = result.value()
        if value is True or value is False:
            return value
        kind = result.type()
        if kind == _ERROR:
            if ITERATION_RANGE in str(value):
                raise CelRuntimeError(_not_iterable(self.expression, device) or runtime_message(str(value)))
            raise CelRuntimeError(runtime_message(str(value)))
        raise CelRuntimeError(not_bool_message(result_type_name(str(kind))))


def _not_iterable(expression: str, device: DeviceInput) -> str | None:
    """cel-cpp does not say what it failed to iterate over; find the first comprehension
    range (that can be evaluated on its own) which is not a list or map."""
    env = environment(EnvType.RUNTIME)
    for receiver in source.macro_receivers(expression):
        try:
            probe = env.compile(f"type({source.rewrite_domain_lookups(receiver)})")
        except RuntimeError:  # uses a comprehension or bind variable
            continue
        result = probe.eval(device.activation())
        if result.type() == _ERROR:
            continue
        name = str(result.value())
        if not name.startswith(("LIST", "MAP")):
            return not_iterable_message(name)
    return None


@lru_cache(maxsize=4096)
def compile_selector(expression: str) -> CompiledSelector:
    """Compile for kube-scheduler (StoredExpressions), cached by text; failures are not
    cached (k8s: cel/cache.go). Raises CelCompileError."""
    checked = _check(expression, EnvType.STORED)
    return CompiledSelector(expression, _program(expression), estimated_cost(checked))


def validate_selector(expression: str, list_types: bool = False) -> list[tuple[str, str]]:
    """The API server's checks at create/update (NewExpressions): [] when valid, else
    [(error_type, detail)] with error_type "Invalid", "Forbidden" or "TooLong". *list_types*:
    the DRAListTypeAttributes gate, which adds `includes` (k8s: validation.go validateCELExpression)."""
    return list(_validation(expression, list_types))


@lru_cache(maxsize=4096)
def _validation(expression: str, list_types: bool) -> tuple[tuple[str, str], ...]:
    """validate_selector, cached by text: claims made from one template repeat it."""
    return tuple(_validate(expression, EnvType.NEW_LIST if list_types else EnvType.NEW))


def _validate(expression: str, env_type: EnvType) -> list[tuple[str, str]]:
    if len(expression.encode("utf-8", "surrogatepass")) > MAX_EXPRESSION_LENGTH:
        return [("TooLong", f"may not be more than {MAX_EXPRESSION_LENGTH} bytes")]
    try:
        checked = _check(expression, env_type)
    except CelCompileError as err:
        return [("Invalid", str(err))]
    try:
        found = estimated_cost(checked)
    except CelCompileError as err:
        return [("Internal", str(err))]
    # k8s: validation.go validateCELExpression — MaxCost > CELSelectorExpressionMaxCost.
    if found.cost[1] > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return [("Forbidden", "too complex, exceeds cost limit")]
    return []


__all__ = ["CompiledSelector", "compile_selector", "validate_selector", "COST_LIMIT_EXCEEDED"]
