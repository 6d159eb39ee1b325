"""Arbitrary input never crashes the CEL layer."""
from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input, validate_selector

FRAGMENTS = ['device', '.', 'attributes', 'capacity', 'driver', '["d"]', '[?', ']', '(', ')', '.?', 'has(',
             'quantity("1Gi")', 'semver("1.0.0")', '==', '&&', '||', '!', '1', '"x"', 'cel.bind(', ',', 'x',
             '.all(', '.exists(', 'matches(', '"["', 'duration(', '{', '}', ':', '?', 'r"', "'", '//', '\n', ' ']

expressions = st.one_of(
    st.text(max_size=60),
    st.text(st.characters(blacklist_categories=()), max_size=20),  # lone surrogates too
    st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join),
)


@settings(max_examples=600, deadline=None)
@given(expressions)
@example("\ud800")  # lone surrogate
@example("(" * 40 + ")" * 40)  # parser recursion limit
def test_random_text_only_raises_compile_errors(expression):
    """validate_selector returns field errors and compile_selector raises only CelCompileError."""
    result = validate_selector(expression)
    assert isinstance(result, list)
    assert all(kind in ("Invalid", "Forbidden", "TooLong") for kind, _ in result)
    try:
        compile_selector(expression)
    except CelCompileError:
        pass


DEVICE = device_input("d.example.com", {"name": "d", "attributes": {"m": {"string": "a"}, "v": {"version": "1.0.0"}},
                                        "capacity": {"c": {"value": "1Gi"}}})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join))
def test_evaluation_only_raises_runtime_errors(expression):
    """A compiled selector answers True/False or raises CelRuntimeError, whatever it says."""
    try:
        selector = compile_selector(expression)
    except CelCompileError:
        return
    try:
        assert selector.matches(DEVICE) in (True, False)
    except CelRuntimeError:
        pass
