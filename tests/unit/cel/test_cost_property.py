"""Open-ended selectors that build strings and lists: validation and evaluation always end
quickly with an answer or a clear error, never MemoryError or a traceback."""
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.cel import CelRuntimeError, compile_selector, device_input, validate_selector
from drasim.cel.checked import checked_ast
from drasim.cel.cost import estimate
from drasim.cel.environment import EnvType, environment

DEVICE = device_input("gpu.example.com", {"name": "g0", "attributes": {"model": {"string": "a100"}}})

_BASE = st.one_of(
    st.integers(0, 40).map(lambda n: '"' + "a" * n + '"'),
    st.just("device.driver"),
    st.just('device.attributes["gpu.example.com"].model'),
)


def _grow(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(inner, st.integers(1, 300)).map(lambda t: f'{t[0]}.replace("a", "{"a" * t[1]}")'),
        inner.map(lambda s: f"cel.bind(v, {s}, v + v)"),
        inner.map(lambda s: f"[{s}, {s}, {s}].join(',')"),
        inner.map(lambda s: f"{s}.upperAscii()"),
        st.tuples(inner, st.integers(1, 12000)).map(
            lambda t: f"(lists.range({t[1]}).map(i, {t[0]}).size() > 0 ? {t[0]} : {t[0]})"),
        st.tuples(inner, st.integers(1, 12000)).map(
            lambda t: f"(lists.range({t[1]}).filter(i, {t[0]} != '').size() > 0 ? {t[0]} : '')"),
        inner.map(lambda s: f"'%s-%s'.format([{s}, {s}])"),
        inner.map(lambda s: f"{s}.split('').join('')"),
    )


STRINGS = st.recursive(_BASE, _grow, max_leaves=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STRINGS)
def test_building_selectors_end_quickly(text):
    """Whatever the API server's estimate, evaluation answers or fails with a CEL runtime
    error, within a few seconds."""
    expression = f"{text}.size() >= 0"
    # CPU seconds of this process: the evaluation's own work, not a shared machine's load
    start = time.process_time()
    found = validate_selector(expression)
    assert found == [] or found[0][0] in ("Forbidden", "Invalid", "TooLong")
    if len(expression) <= 10 * 1024 and (found == [] or found[0][0] == "Forbidden"):
        try:
            assert compile_selector(expression).matches(DEVICE) is True
        except CelRuntimeError as err:
            assert "actual cost limit exceeded" in str(err)
    assert time.process_time() - start < 5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=60), st.integers(0, 3))
def test_all_over_a_literal_list(items, pluses):
    """all(x, p) over a list literal costs 10 + 1 + n * (3 + cost(p)): p = `x + 1 + ... > 0`
    costs pluses + 2 (x, each +, the comparison)."""
    body = " + ".join(["x"] + ["1"] * pluses) + " > 0"
    expression = f"[{', '.join(map(str, items))}].all(x, {body})"
    checked = environment(EnvType.NEW).compile(expression)
    assert estimate(checked_ast(checked.serialize())).cost[1] == 11 + len(items) * (3 + pluses + 2)
