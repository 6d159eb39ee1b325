"""Token-level rewriting that gives cel-cpp Kubernetes' unknown-domain semantics (spec §3.5)."""
from __future__ import annotations

import pytest

from drasim.cel.source import literal_calls, macro_receivers, rewrite_domain_lookups


@pytest.mark.parametrize(("expression", "want"), [
    pytest.param('device.attributes["d"].x', 'device.attributes[?("d")].orValue({}).x', id="index"),
    pytest.param("device.capacity.d.x", 'device.capacity[?"d"].orValue({}).x', id="select"),
    pytest.param('device.attributes[?"d"]', 'optional.of(device.attributes[?("d")].orValue({}))', id="optional-index"),
    pytest.param("device.attributes.?d", 'optional.of(device.attributes[?"d"].orValue({}))', id="optional-select"),
    pytest.param("has(device.attributes.d)", "true", id="has-outer"),
    pytest.param('has(device.attributes["d"].x)', 'has(device.attributes[?("d")].orValue({}).x)', id="has-inner"),
    pytest.param('"d" in device.attributes', '"d" in device.attributes', id="in-untouched"),
    pytest.param("device.attributes.exists(k, k == 1)", "device.attributes.exists(k, k == 1)", id="method-untouched"),
    pytest.param('"device.attributes[1]"', '"device.attributes[1]"', id="string-untouched"),
    pytest.param("x.device.attributes.d", "x.device.attributes.d", id="not-the-variable"),
    pytest.param('device.attributes[device.attributes["a"].b]',
                 'device.attributes[?(device.attributes[?("a")].orValue({}).b)].orValue({})', id="nested"),
    pytest.param('device . attributes // c\n ["d"]', 'device.attributes[?("d")].orValue({})', id="blanks-and-comments"),
    pytest.param("1 in [1] && device.driver == r'x'", "1 in [1] && device.driver == r'x'", id="no-lookup"),
])
def test_rewrite(expression, want):
    """Lookups on the outer maps become total; everything else is kept as written."""
    assert rewrite_domain_lookups(expression) == want


def test_literal_calls():
    """Regex, duration and timestamp calls with a literal argument are found with their offsets."""
    calls = literal_calls('x.matches("[") && matches(y, "(") && duration("1s") && timestamp(t) && x.matches(y)')
    assert [(c.function, c.literal, c.offset) for c in calls] == [
        ("matches", '"["', 10), ("matches", '"("', 29), ("duration", '"1s"', 46)]


@pytest.mark.parametrize(("expression", "want"), [
    pytest.param('device.attributes["d"].m.exists(x, x == "a")', ['device.attributes["d"].m'], id="attribute"),
    pytest.param("a.b(c).d[1].all(x, true) && y.map(z, z)", ["a.b(c).d[1]", "y"], id="chains"),
    pytest.param("(x + y).all(z, true)", ["(x + y)"], id="parenthesized"),
    pytest.param("1 in [1].map(x, x)", ["[1]"], id="after-in"),
])
def test_macro_receivers(expression, want):
    """The ranges of comprehension macros are found as source text."""
    assert macro_receivers(expression) == want
