"""DRA CEL selectors: the examples of spec cel.md §7 and the rules behind them."""
from __future__ import annotations

import pytest

from drasim.cel import (CelCompileError, CelRuntimeError, compile_selector, device_input,
                        validate_selector)

DRIVER = "gpu.example.com"
HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
        "with has() for optional fields")

# The device of spec §7.
GPU = device_input(DRIVER, {
    "name": "gpu-0",
    "attributes": {"model": {"string": "a100"}, "cuda": {"version": "12.2.0"}, "index": {"int": 3},
                   "resource.kubernetes.io/numaNode": {"int": 1}},
    "capacity": {"memory": {"value": "64Gi"}},
})
A = 'device.attributes["gpu.example.com"]'
C = 'device.capacity["gpu.example.com"]'


def run(expression: str, device=GPU) -> bool:
    return compile_selector(expression).matches(device)


@pytest.mark.parametrize(("expression", "want"), [
    pytest.param('device.driver == "gpu.example.com"', True, id="driver"),
    pytest.param(f'{A}.model == "a100"', True, id="attribute-select"),
    pytest.param(f'{A}["model"] == "a100"', True, id="attribute-index"),
    pytest.param(f'{C}.memory == quantity("64Gi")', True, id="quantity-equal"),
    pytest.param(f'{C}.memory == quantity("65536Mi")', True, id="quantity-value-equality"),
    pytest.param(f'{C}.memory == quantity("64G")', False, id="quantity-64G-is-not-64Gi"),
    pytest.param(f'{C}.memory.compareTo(quantity("40Gi")) >= 0', True, id="quantity-compareTo"),
    pytest.param(f'{A}.cuda.isGreaterThan(semver("12.0.0"))', True, id="semver-attribute"),
    pytest.param('device.attributes["resource.kubernetes.io"].numaNode == 1', True, id="qualified-name"),
    pytest.param(f'{A}.index > 2 && device.allowMultipleAllocations == false', True, id="allowMultipleAllocations-unset"),
    pytest.param('"other.example.com" in device.attributes', False, id="unknown-domain-not-in"),
    pytest.param(f'has({A}.vendor)', False, id="has-unknown-key"),
    pytest.param(f'{A}.?vendor.orValue("x") == "x"', True, id="optional-chaining"),
    pytest.param(f'cel.bind(g, {A}, g.model == "a100" && g.index == 3)', True, id="cel-bind"),
    pytest.param(f'{A}.model.includes("a100")', True, id="includes-in-scheduler"),
])
def test_examples_evaluate(expression, want):
    """Spec §7: what kube-scheduler's evaluation yields for each example."""
    assert run(expression) is want


@pytest.mark.parametrize(("expression", "message"), [
    pytest.param(f'{A}.vendor == "nv"', "no such key: vendor" + HINT, id="unknown-key"),
    pytest.param('device.attributes["other.example.com"].model == "a100"', "no such key: model" + HINT,
                 id="unknown-domain-then-key"),
    pytest.param(f'{A}.model > 5', "no such overload", id="string-greater-int"),
    pytest.param(f'{A}.model', "CEL result of type string could not be converted to bool: "
                 "type conversion error from 'string' to 'bool'", id="non-bool-result"),
    pytest.param(f'{C}.memory', "CEL result of type kubernetes.Quantity could not be converted to bool: "
                 "type conversion error from 'kubernetes.Quantity' to 'bool'", id="quantity-result"),
    pytest.param('quantity("abc").isInteger()', "quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", id="invalid-quantity"),
    pytest.param('1 / (size(device.driver) - 15) == 1', "division by zero", id="division-by-zero"),
])
def test_runtime_errors(expression, message):
    """Spec §6.2, §3.6, §5.2: the text after "CEL runtime error: " in kube-scheduler's message."""
    with pytest.raises(CelRuntimeError) as err:
        run(expression)
    assert str(err.value) == message


@pytest.mark.parametrize(("expression", "message"), [
    pytest.param(f'{A}.model.exists(x, x == "a")', "got 'types.String', expected iterable type", id="string"),
    pytest.param(f'{A}.index.all(x, true)', "got 'types.Int', expected iterable type", id="int"),
    pytest.param(f'cel.bind(g, {A}, g.cuda.all(x, true))', "no such overload", id="unknown-range-type"),
])
def test_iterating_a_scalar_fails_at_run_time(expression, message):
    """Spec §7: `.exists` on a scalar attribute compiles in the scheduler and fails when run,
    with cel-go's text when the range can be evaluated on its own."""
    with pytest.raises(CelRuntimeError) as err:
        run(expression)
    assert str(err.value) == message


@pytest.mark.parametrize(("expression", "fragment"), [
    pytest.param('device.vendor == "nv"', "undefined field 'vendor'", id="undefined-field"),
    pytest.param(f'{A}.model == ', "Syntax error", id="syntax"),
    pytest.param('model == "a100"', "undeclared reference to 'model' (in container '')", id="undeclared"),
    pytest.param('device.driver', "must evaluate to bool or the unknown type, not string", id="string-result"),
    pytest.param('1', "must evaluate to bool or the unknown type, not int", id="int-result"),
    pytest.param(f'{A}.model.matches("[")', "invalid matches argument", id="regex-literal"),
    pytest.param('duration("1x") > duration("1s")', "invalid duration argument", id="duration-literal"),
    pytest.param('"a" == 1', "found no matching overload for '_==_' applied to '(string, int)'", id="type-mismatch"),
    pytest.param(f'{C}.memory.compareTo(quantity("1")) == quantity("1")',
                 "found no matching overload for '_==_' applied to '(int, kubernetes.Quantity)'", id="quantity-types"),
    pytest.param('device.attributes == 1', "applied to '(map(string, map(string, dyn)), int)'", id="cel-go-type-format"),
])
def test_compile_errors(expression, fragment):
    """Spec §6.1, §3.7, §5.1: compile errors carry cel-go's text, in scheduler and API server alike."""
    with pytest.raises(CelCompileError) as err:
        compile_selector(expression)
    assert fragment in str(err.value)
    [(kind, detail)] = validate_selector(expression)
    assert kind == "Invalid"
    assert detail == str(err.value)


def test_compile_error_detail_format():
    """Spec §6.1: "compilation failed: ERROR: <input>:<line>:<col>: <message>" plus cel-go's snippet."""
    [(_, detail)] = validate_selector('device.vendor == "nv"')
    assert detail == ("compilation failed: ERROR: <input>:1:7: undefined field 'vendor'\n"
                      ' | device.vendor == "nv"\n'
                      " | ......^")


@pytest.mark.parametrize("expression", [
    pytest.param(f'{A}.model.includes("a100")', id="includes"),
])
def test_new_expressions_lack_includes(expression):
    """Spec §4.5: `includes` is undeclared for the API server (DRAListTypeAttributes off)."""
    [(kind, detail)] = validate_selector(expression)
    assert kind == "Invalid"
    assert "undeclared reference to 'includes'" in detail


@pytest.mark.parametrize("expression", [
    pytest.param('device.driver == "x"', id="driver"),
    pytest.param(f'{A}.model == "a100"', id="attribute-is-dyn"),
    pytest.param('device.allowMultipleAllocations', id="allowMultipleAllocations"),
    pytest.param(f'{A}.model.exists(x, true)', id="dyn-is-iterable"),
])
def test_valid_expressions(expression):
    """A valid expression yields no field errors."""
    assert validate_selector(expression) == []


def test_too_long():
    """Spec §5.3: more than 10240 bytes is TooLong and not compiled."""
    expression = "true && " * 1280 + "true"
    assert len(expression) > 10240
    assert validate_selector(expression) == [("TooLong", "may not be more than 10240 bytes")]


def test_cost_limit_nested_comprehensions():
    """Spec §5.4: three nested comprehensions over the 32 attribute domains are estimated at
    104 643, four at about 3.3 million (over the 1 000 000 limit)."""
    three = 'device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, true)))'
    four = 'device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, device.attributes.all(d, true))))'
    assert validate_selector(three) == []
    assert validate_selector(four) == [("Forbidden", "too complex, exceeds cost limit")]


def test_runtime_cost_guard():
    """Spec §5.5: an evaluation that runs away (10^6 iterations) is stopped with
    "actual cost limit exceeded" (cel-cpp's iteration budget)."""
    with pytest.raises(CelRuntimeError, match="actual cost limit exceeded"):
        run('lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))')


def test_compile_is_cached_by_text():
    """Spec §2.3: the same expression text gives the same compiled object."""
    expression = 'device.driver == "cached.example.com"'
    assert compile_selector(expression) is compile_selector(expression)
    assert compile_selector(expression) is not compile_selector(expression + " ")
