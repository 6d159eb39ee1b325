"""The driver-literal fast path (`device.driver == "x"` judged without the CEL interpreter) gives
exactly what the compiled program gives: the same booleans and the same runtime errors."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.allocator.model import DeviceRec
from drasim.allocator.selection import Selection
from drasim.cel import CelRuntimeError, device_input
from drasim.cel.selector import CompiledSelector, _program, compile_selector, driver_literal, estimated_cost, _check
from drasim.cel.environment import EnvType
from drasim.errors import AllocationError

DRIVERS = ["gpu.example.com", "test-driver.cdi.k8s.io", "a", "x.y"]
versions = st.sampled_from(["1.2.3", "0.0.1-alpha", "1.2", "01.2.3", "", "v1.0.0", "1.0.0+b..c"])
quantities = st.one_of(st.sampled_from(["1", "24480Mi", "1k", "bad", "1.5Gi", "", "1e3"]), st.integers(0, 10**6))
scalar_attrs = st.one_of(
    st.builds(lambda v: {"int": v}, st.integers(-5, 5)),
    st.builds(lambda v: {"bool": v}, st.booleans()),
    st.builds(lambda v: {"string": v}, st.text(max_size=5)),
    st.builds(lambda v: {"version": v}, versions),
    st.builds(lambda v: {"versions": v}, st.lists(versions, max_size=2)),
    st.builds(lambda v: {"strings": v}, st.lists(st.text(max_size=3), max_size=2)),
    st.just({}),
)
devices = st.fixed_dictionaries({"name": st.just("d0")}, optional={
    "attributes": st.dictionaries(st.sampled_from(["model", "dom.example/x", "driverVersion", "b"]), scalar_attrs, max_size=3),
    "capacity": st.dictionaries(st.sampled_from(["memory", "dom.example/c"]),
                                st.builds(lambda q: {"value": q}, quantities), max_size=2),
})
forms = st.sampled_from(['device.driver == "{}"', "device.driver != '{}'", '"{}" == device.driver',
                         "  '{}'!=device.driver\n", 'device.driver=="{}"'])


def _outcome(call):
    try:
        return ("ok", call())
    except (CelRuntimeError, AllocationError) as exc:
        return ("error", str(exc).rsplit("CEL runtime error: ", 1)[-1])


def _slow(expression: str) -> CompiledSelector:
    return CompiledSelector(expression, _program(expression), estimated_cost(_check(expression, EnvType.STORED)),
                            fast=False)


@settings(max_examples=300, deadline=None)
@given(driver=st.sampled_from(DRIVERS), literal=st.sampled_from(DRIVERS), form=forms, device=devices)
def test_fast_path_equals_the_program(driver, literal, form, device):
    expression = form.format(literal)
    assert driver_literal(expression) is not None
    slow = _outcome(lambda: _slow(expression).matches(device_input(driver, device)))
    fast = _outcome(lambda: compile_selector(expression).matches(device_input(driver, device)))
    assert fast == slow
    # the allocator's path, which skips building the device's CEL values (its model parses
    # capacities when it is built: a slice with a bad quantity never gets there)
    try:
        rec = DeviceRec(driver, "pool", device)
    except ValueError:
        return
    allocator = _outcome(lambda: Selection._matches(rec, expression, 0, "class c"))
    if slow[0] == "error":
        from drasim.allocator.selection import enhance_runtime_error
        slow = ("error", enhance_runtime_error(slow[1]))
    assert allocator == slow


def test_only_the_plain_comparison_is_recognised():
    for expression in ['device.driver == "a" || true', 'device.driver == "a\\""', "device.driver == r'a'",
                       'device.driver.startsWith("a")', 'device.driver == """a"""', "device.driver\v== 'a'",
                       'device . driver == "a"', '!(device.driver == "a")']:
        assert driver_literal(expression) is None, expression
    assert driver_literal(" \tdevice.driver\n== 'a.b'\r") == ("a.b", True)
    assert driver_literal('"a" != device.driver') == ("a", False)
