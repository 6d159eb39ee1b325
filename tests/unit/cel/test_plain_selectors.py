"""Plain selectors (conjunctions of `device.driver == "x"` and `device.attributes["d"].n == "v"`)
judged without the CEL interpreter give exactly what the compiled program gives: the same booleans
and the same runtime errors, through CompiledSelector.matches and through the allocator's path
(which does not build the device's CEL values at all)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.allocator.model import DeviceRec
from drasim.allocator.selection import Selection, enhance_runtime_error
from drasim.cel import CelRuntimeError, device_input
from drasim.cel.environment import EnvType
from drasim.cel.plain import plain_terms
from drasim.cel.selector import CompiledSelector, _check, _program, compile_selector, estimated_cost
from drasim.errors import AllocationError

DRIVERS = ["gpu.example.com", "test-driver.cdi.k8s.io", "a"]
DOMAINS = ["gpu.example.com", "a", "other.example"]
NAMES = ["model", "x"]
LITERALS = ["H100", "", "1.2.3", "a"]
versions = st.sampled_from(["1.2.3", "0.0.1-alpha", "1.2", "", "v1.0.0"])
quantities = st.one_of(st.sampled_from(["1", "24480Mi", "1k", "bad", ""]), st.integers(0, 10**6))
values = st.one_of(
    st.builds(lambda v: {"string": v}, st.sampled_from(LITERALS + ["h100", "H100 "])),
    st.builds(lambda v: {"int": v}, st.integers(-2, 2)),
    st.builds(lambda v: {"bool": v}, st.booleans()),
    st.builds(lambda v: {"version": v}, versions),
    st.builds(lambda v: {"strings": v}, st.lists(st.sampled_from(LITERALS), max_size=2)),
    st.just({}),
    # more than one kind set (validation refuses it; device_input takes the first of int, bool, string)
    st.builds(lambda b, v: {"bool": b, "string": v}, st.booleans(), st.sampled_from(LITERALS)),
    st.builds(lambda i, v: {"int": i, "string": v}, st.integers(0, 1), st.sampled_from(LITERALS)),
)
attribute_names = st.one_of(st.sampled_from(NAMES), st.builds(lambda d, n: f"{d}/{n}", st.sampled_from(DOMAINS),
                                                               st.sampled_from(NAMES)))
devices = st.fixed_dictionaries({"name": st.just("d0")}, optional={
    "attributes": st.dictionaries(attribute_names, values, max_size=4),
    "capacity": st.dictionaries(st.sampled_from(["memory", "a/c"]), st.builds(lambda q: {"value": q}, quantities),
                                max_size=2),
})


def _quote(s: str, single: bool) -> str:
    return f"'{s}'" if single else f'"{s}"'


driver_terms = st.builds(
    lambda lit, op, single, flipped: (f"{_quote(lit, single)} {op} device.driver" if flipped
                                      else f"device.driver {op} {_quote(lit, single)}"),
    st.sampled_from(DRIVERS), st.sampled_from(["==", "!="]), st.booleans(), st.booleans())
attribute_terms = st.builds(
    lambda d, n, lit, single: f"device.attributes[{_quote(d, single)}].{n} == {_quote(lit, not single)}",
    st.sampled_from(DOMAINS), st.sampled_from(NAMES), st.sampled_from(LITERALS), st.booleans())
expressions = st.builds(lambda terms, glue: glue.join(terms),
                        st.lists(st.one_of(driver_terms, attribute_terms), min_size=1, max_size=3),
                        st.sampled_from([" && ", "&&", "\n&& "]))


def _outcome(call):
    try:
        return ("ok", call())
    except (CelRuntimeError, AllocationError) as exc:
        return ("error", enhance_runtime_error(str(exc).rsplit("CEL runtime error: ", 1)[-1]))


def _slow(expression: str) -> CompiledSelector:
    return CompiledSelector(expression, _program(expression), estimated_cost(_check(expression, EnvType.STORED)),
                            fast=False)


@settings(max_examples=400, deadline=None)
@given(driver=st.sampled_from(DRIVERS), expression=expressions, device=devices)
def test_plain_selectors_equal_the_program(driver, expression, device):
    assert plain_terms(expression) is not None, expression
    slow = _outcome(lambda: _slow(expression).matches(device_input(driver, device)))
    fast = _outcome(lambda: compile_selector(expression).matches(device_input(driver, device)))
    assert fast == slow
    try:   # the allocator's model parses capacities when built: a bad quantity never gets there
        rec = DeviceRec(driver, "pool", device)
    except ValueError:
        return
    assert _outcome(lambda: Selection._matches(rec, expression, 0, "class c")) == slow


def _both_paths(driver: str, expression: str, device: dict):
    slow = _outcome(lambda: _slow(expression).matches(device_input(driver, device)))
    assert _outcome(lambda: compile_selector(expression).matches(device_input(driver, device))) == slow
    assert _outcome(lambda: Selection._matches(DeviceRec(driver, "pool", device), expression, 0, "class c")) == slow
    return slow


def test_of_two_names_for_one_attribute_the_later_counts():
    expression = 'device.attributes["a"].model == "H100"'
    assert _both_paths("a", expression, {"name": "d", "attributes": {
        "model": {"string": "H100"}, "a/model": {"string": "A100"}}}) == ("ok", False)
    assert _both_paths("a", expression, {"name": "d", "attributes": {
        "a/model": {"string": "A100"}, "model": {"string": "H100"}}}) == ("ok", True)


def test_an_attribute_with_several_kinds_is_its_first_kind():
    expression = 'device.attributes["a"].model == "H100"'
    for first in ({"bool": True}, {"int": 1}):
        outcome = _both_paths("a", expression, {"name": "d", "attributes": {"model": {**first, "string": "H100"}}})
        assert outcome != ("ok", True)


def test_only_plain_conjunctions_are_recognised():
    for expression in ['device.driver == "a" || true', 'device.driver == "a\\""', "device.driver == r'a'",
                       'device.driver.startsWith("a")', 'device.driver == """a"""', "device.driver\v== 'a'",
                       'device . driver == "a"', '!(device.driver == "a")', 'device.driver == "a" &&',
                       '(device.driver == "a")', 'device.attributes["a"].model != "x"',
                       'device.attributes["a"]["model"] == "x"', 'device.attributes["a"].model == 1',
                       '"x" == device.attributes["a"].model', 'device.driver == "a" && true']:
        assert plain_terms(expression) is None, expression
    assert plain_terms(" \tdevice.driver\n== 'a.b'\r") == (("driver", "a.b", True),)
    assert plain_terms('"a" != device.driver && device.attributes["d.e"].m_1 == \'v\'') == (
        ("driver", "a", False), ("attribute", "d.e", "m_1", "v"))
