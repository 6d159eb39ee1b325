"""The function libraries of the DRA CEL environment (spec cel.md §4)."""
from __future__ import annotations

import pytest

from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input

DEVICE = device_input("gpu.example.com", {
    "name": "gpu-0",
    "attributes": {"model": {"string": "a100"}, "cuda": {"version": "12.2.0"}, "index": {"int": 3}},
    "capacity": {"memory": {"value": "64Gi"}, "cores": {"value": "1500m"}},
})


def run(expression: str) -> bool:
    return compile_selector(expression).matches(DEVICE)


@pytest.mark.parametrize("expression", [
    pytest.param('quantity("64Gi") == quantity("65536Mi")', id="equal-by-value"),
    pytest.param('quantity("64G") != quantity("64Gi")', id="decimal-vs-binary"),
    pytest.param('quantity("1") == quantity("1000m")', id="milli"),
    pytest.param('isQuantity("1.3G") && isQuantity("10000k") && !isQuantity("200K") && !isQuantity("Mi")', id="isQuantity"),
    pytest.param('sign(quantity("-1")) == -1 && sign(quantity("0")) == 0 && sign(quantity("5m")) == 1', id="sign"),
    pytest.param('quantity("150Mi").isGreaterThan(quantity("100Mi"))', id="isGreaterThan"),
    pytest.param('!quantity("50Mi").isGreaterThan(quantity("100Mi"))', id="isGreaterThan-false"),
    pytest.param('quantity("50M").isLessThan(quantity("100M"))', id="isLessThan"),
    pytest.param('quantity("200M").compareTo(quantity("0.2G")) == 0', id="compareTo-equal"),
    pytest.param('quantity("50M").compareTo(quantity("50Mi")) == -1', id="compareTo-less"),
    pytest.param('quantity("50Mi").compareTo(quantity("50M")) == 1', id="compareTo-greater"),
    pytest.param('quantity("50k").asInteger() == 50000', id="asInteger"),
    pytest.param('quantity("50000000G").isInteger() && !quantity("1500m").isInteger()', id="isInteger"),
    pytest.param('!quantity("9999999999999999999999999999999999999G").isInteger()', id="isInteger-overflow"),
    pytest.param('quantity("1500m").asApproximateFloat() == 1.5', id="asApproximateFloat"),
    pytest.param('quantity("50k").add(quantity("20k")) == quantity("70k")', id="add-quantity"),
    pytest.param('quantity("50k").add(20) == quantity("50020")', id="add-int"),
    pytest.param('quantity("50k").sub(quantity("20k")) == quantity("30k")', id="sub-quantity"),
    pytest.param('quantity("50k").sub(20000) == quantity("30k")', id="sub-int"),
    pytest.param('quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")', id="chain"),
    pytest.param('device.capacity["gpu.example.com"].cores == quantity("1.5")', id="capacity-fraction"),
    pytest.param('device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Ki"))', id="capacity-member"),
])
def test_quantity(expression):
    """Spec §4.3: the Kubernetes quantity library; `==` compares values."""
    assert run(expression) is True


def test_quantity_as_integer_overflow_fails():
    """Spec §4.3: asInteger errors when the value is not an int64."""
    with pytest.raises(CelRuntimeError, match="cannot convert value to integer"):
        run('quantity("9999999999999999999999999999999999999G").asInteger() > 0')


@pytest.mark.parametrize("expression", [
    pytest.param('semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3', id="parts"),
    pytest.param('semver("1.2.3").compareTo(semver("1.2.3")) == 0', id="compareTo-equal"),
    pytest.param('semver("1.2.3").compareTo(semver("2.0.0")) == -1', id="compareTo-less"),
    pytest.param('semver("1.2.3").compareTo(semver("0.1.2")) == 1', id="compareTo-greater"),
    pytest.param('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', id="prerelease-before-release"),
    pytest.param('semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))', id="numeric-before-alpha"),
    pytest.param('semver("1.0.0+build.1") == semver("1.0.0")', id="build-ignored"),
    pytest.param('semver("v1.2", true) == semver("1.2.0")', id="normalize-v-and-short"),
    pytest.param('semver("01.01.01", true) == semver("1.1.1")', id="normalize-leading-zeros"),
    pytest.param('isSemver("1.0.0") && !isSemver("hello") && !isSemver("v1.0") && isSemver("v1.0", true)', id="isSemver"),
    pytest.param('device.attributes["gpu.example.com"].cuda.isLessThan(semver("12.10.0"))', id="attribute-numeric-order"),
    pytest.param('device.attributes["gpu.example.com"].cuda == semver("12.2.0")', id="attribute-equality"),
])
def test_semver(expression):
    """Spec §4.4: the Kubernetes semver library, version 1."""
    assert run(expression) is True


@pytest.mark.parametrize(("expression", "message"), [
    pytest.param('semver("1.2").major() == 1', "No Major.Minor.Patch elements found", id="short"),
    pytest.param('semver("v1.2.3").major() == 1', 'Invalid character(s) found in major number "v1"', id="v-prefix"),
    pytest.param('semver("1.2-x", true).major() == 1', "short version cannot contain PreRelease/Build meta data",
                 id="normalize-short-prerelease"),
])
def test_semver_errors(expression, message):
    """Spec §4.4: an unparsable version is a runtime error with blang/semver's text."""
    with pytest.raises(CelRuntimeError) as err:
        run(expression)
    assert str(err.value) == message


def test_quantity_and_semver_do_not_mix():
    """Quantity and Semver are distinct types: comparing them does not type-check."""
    with pytest.raises(CelCompileError, match="no matching overload for 'compareTo'"):
        compile_selector('quantity("1").compareTo(semver("1.0.0")) == 0')


@pytest.mark.parametrize("expression", [
    pytest.param('"abc".charAt(1) == "b"', id="charAt"),
    pytest.param('"abcabc".indexOf("c") == 2 && "abcabc".lastIndexOf("c") == 5', id="indexOf"),
    pytest.param('"ABC".lowerAscii() == "abc" && "abc".upperAscii() == "ABC"', id="case"),
    pytest.param('"a-b".replace("-", "_") == "a_b"', id="replace"),
    pytest.param('"a,b".split(",") == ["a", "b"]', id="split"),
    pytest.param('"abc".substring(1, 2) == "b"', id="substring"),
    pytest.param('"  a ".trim() == "a"', id="trim"),
    pytest.param('"%s-%d".format(["a", 1]) == "a-1"', id="format"),
    pytest.param('["a", "b"].join("/") == "a/b"', id="join"),
    pytest.param('strings.quote("a") == "\\"a\\""', id="quote"),
    pytest.param('"a100".startsWith("a") && "a100".endsWith("0") && "a100".contains("10")', id="core"),
    pytest.param('"a100".matches("^a[0-9]+$")', id="matches"),
])
def test_strings(expression):
    """Spec §4.1-§4.2: core string functions and the strings extension v2."""
    assert run(expression) is True


@pytest.mark.parametrize("expression", [
    pytest.param('cel.bind(x, 2, x * x) == 4', id="bind"),
    pytest.param('optional.of(1).hasValue() && !optional.none().hasValue()', id="optional-of-none"),
    pytest.param('{"a": 1}[?"b"].orValue(3) == 3', id="optional-index"),
    pytest.param('device.attributes["gpu.example.com"][?"vendor"].orValue("") == ""', id="optional-index-attribute"),
    pytest.param('device.attributes["nope.example.com"].?model.orValue("none") == "none"', id="optional-unknown-domain"),
    pytest.param('device.attributes[?"nope.example.com"].hasValue()', id="optional-outer-lookup-finds-empty-map"),
    pytest.param('size(device.attributes["nope.example.com"]) == 0', id="unknown-domain-empty-map"),
    pytest.param('!has(device.attributes["nope.example.com"].model)', id="has-in-unknown-domain"),
    pytest.param('"gpu.example.com" in device.attributes && !("x.example.com" in device.attributes)', id="in-outer"),
    pytest.param('"memory" in device.capacity["gpu.example.com"]', id="in-inner"),
    pytest.param('size(device.attributes) == 1', id="size-outer-real-keys"),
    pytest.param('device.attributes.exists_one(d, d == "gpu.example.com")', id="iterate-outer"),
    pytest.param('has(device.driver)', id="has-driver"),
    pytest.param('1 < 2.5 && 3.0 > 2 && 1u <= 1', id="cross-type-numeric"),
    pytest.param('[3, 1, 2].sort() == [1, 2, 3] && lists.range(3) == [0, 1, 2]', id="lists-ext"),
    pytest.param('sets.contains([1, 2], [1]) && sets.intersects([1], [1, 2])', id="sets"),
    pytest.param('{"a": 1}.all(k, v, v > 0) && [5].exists(i, v, i == 0 && v == 5)', id="two-var-comprehensions"),
    pytest.param('[1, 2, 3].isSorted() && [1, 2].sum() == 3 && [2, 1].min() == 1 && [1, 2].max() == 2', id="k8s-lists"),
    pytest.param('"abc123".find("[0-9]+") == "123" && "a1b2".findAll("[0-9]") == ["1", "2"]', id="regex"),
    pytest.param('[1, 2].includes(2) && "a".includes("a") && !"a".includes("b")', id="includes"),
])
def test_language_features(expression):
    """Spec §4.1-§4.5, §3.5: bindings, optionals, has(), `in` and the extension libraries."""
    assert run(expression) is True


def test_includes_list_cap():
    """Spec §4.5: `includes` refuses lists longer than 48 values."""
    with pytest.raises(CelRuntimeError, match="longer than 48 values"):
        run("lists.range(49).includes(1)")


def test_find_is_linear_time():
    """find/findAll use RE2 like Go: a backtracking pattern on a 63-character driver name
    answers at once (Python's re would take 2^63 steps)."""
    import time
    device = device_input("a" * 63, {"name": "x"})
    # CPU seconds of this process: the evaluation's own work, not a shared machine's load
    start = time.process_time()
    assert compile_selector('device.driver.find("(a*)*b") == ""').matches(device) is True
    assert compile_selector('device.driver.findAll("(a|aa)*c").size() == 0').matches(device) is True
    assert time.process_time() - start < 1


def test_find_bad_pattern_has_gos_words():
    """A pattern that only exists at run time: Go regexp's parse error."""
    with pytest.raises(CelRuntimeError, match=r"^error parsing regexp: missing closing \): `gpu\.example\.com\(`$"):
        run('"x".find(device.driver + "(") == ""')
