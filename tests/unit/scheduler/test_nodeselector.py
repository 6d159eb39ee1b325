"""Node selector / affinity term matching (k8s: component-helpers nodeaffinity, labels.Requirement)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from drasim.api.nodeselector import (
    compile_node_selector, compile_preferred_terms, node_selector_matches, parse_go_int64, required_node_affinity)
from plugin_builders import expr, node, pod, term

N = node("node-a", labels={"zone": "a", "gpus": "4", "weird": "04", "empty": ""})


@pytest.mark.parametrize(("terms", "want"), [
    pytest.param([term(expr("zone", "In", "a", "b"))], True, id="in"),
    pytest.param([term(expr("zone", "In", "b"))], False, id="in-miss"),
    pytest.param([term(expr("missing", "In", "a"))], False, id="in-absent-label"),
    pytest.param([term(expr("zone", "NotIn", "b"))], True, id="notin"),
    pytest.param([term(expr("missing", "NotIn", "a"))], True, id="notin-absent-label"),
    pytest.param([term(expr("zone", "Exists"))], True, id="exists"),
    pytest.param([term(expr("empty", "Exists"))], True, id="exists-empty-value"),
    pytest.param([term(expr("zone", "DoesNotExist"))], False, id="doesnotexist"),
    pytest.param([term(expr("gpus", "Gt", "3"))], True, id="gt"),
    pytest.param([term(expr("gpus", "Gt", "4"))], False, id="gt-equal"),
    pytest.param([term(expr("gpus", "Lt", "5"))], True, id="lt"),
    pytest.param([term(expr("weird", "Gt", "3"))], True, id="gt-label-leading-zero-parses"),
    pytest.param([term(expr("zone", "Gt", "1"))], False, id="gt-non-integer-label"),
    pytest.param([term(expr("missing", "Lt", "1"))], False, id="lt-absent-label"),
    pytest.param([term(expr("zone", "In", "a"), expr("gpus", "Lt", "2"))], False, id="expressions-anded"),
    pytest.param([term(expr("zone", "In", "b")), term(expr("gpus", "Gt", "1"))], True, id="terms-ored"),
    pytest.param([term()], False, id="empty-term-selects-nothing"),
    pytest.param([], False, id="no-terms"),
    pytest.param([term(fields=[expr("metadata.name", "In", "node-a")])], True, id="field-name-in"),
    pytest.param([term(fields=[expr("metadata.name", "NotIn", "node-a")])], False, id="field-name-notin"),
    pytest.param([term(fields=[expr("metadata.name", "In", "node-a", "node-b")])], False, id="field-two-values-invalid"),
    pytest.param([term(expr("zone", "Bogus", "a")), term(expr("zone", "In", "a"))], True, id="bad-term-ignored-lazily"),
    pytest.param([term(expr("zone", "In"))], False, id="in-without-values-invalid"),
    pytest.param([term(expr("zone", "Exists", "a"))], False, id="exists-with-values-invalid"),
    pytest.param([term(expr("gpus", "Gt", "1.5"))], False, id="gt-non-integer-operand-invalid"),
])
def test_node_selector(terms, want):
    """Terms are ORed, requirements ANDed; empty and unparsable terms never match."""
    assert compile_node_selector({"nodeSelectorTerms": terms}).matches(N) is want


def test_parse_errors_are_reported():
    """A term that does not parse is reported, and strict matching raises on it."""
    sel = {"nodeSelectorTerms": [term(expr("zone", "Bogus", "a"))]}
    assert compile_node_selector(sel).parse_errors == ("'Bogus' is not a valid node selector operator",)
    with pytest.raises(ValueError, match="not a valid node selector operator"):
        node_selector_matches(sel, N)
    assert node_selector_matches({"nodeSelectorTerms": [term(expr("zone", "In", "a"))]}, N) is True


def test_preferred_terms_sum_matching_weights():
    """Score is the sum of weights of matching terms; weight-0 and empty terms are dropped."""
    prefs = [{"weight": 5, "preference": term(expr("zone", "In", "a"))},
             {"weight": 7, "preference": term(expr("zone", "In", "b"))},
             {"weight": 0, "preference": term(expr("zone", "Exists"))},
             {"weight": 3, "preference": term()},
             {"weight": 2, "preference": term(expr("gpus", "Exists"))}]
    terms, errors = compile_preferred_terms(prefs)
    assert errors == () and terms.score(N) == 7


@pytest.mark.parametrize(("selector", "required", "want"), [
    pytest.param(None, None, True, id="nothing"),
    pytest.param({"zone": "a"}, None, True, id="selector-match"),
    pytest.param({"zone": "b"}, None, False, id="selector-miss"),
    pytest.param({"empty": ""}, None, True, id="selector-empty-value-present"),
    pytest.param({"nolabel": ""}, None, False, id="selector-empty-value-absent"),
    pytest.param({"zone": "a"}, {"nodeSelectorTerms": [term(expr("gpus", "Lt", "2"))]}, False, id="and-of-both"),
    pytest.param(None, {"nodeSelectorTerms": []}, False, id="required-without-terms"),
])
def test_required_node_affinity(selector, required, want):
    """nodeSelector and required affinity must both match."""
    p = pod(node_selector=selector, affinity=None if required is None else
            {"requiredDuringSchedulingIgnoredDuringExecution": required})
    assert required_node_affinity(p).matches(N) is want


@given(st.text(max_size=25))
def test_parse_go_int64_matches_go(text):
    """Only an optional sign and ASCII digits within int64 parse, as strconv.ParseInt(s, 10, 64)."""
    got = parse_go_int64(text)
    ok = (len(text) > 0 and all(c in "0123456789" for c in text.lstrip("+-")) and len(text.lstrip("+-")) > 0
          and len(text) - len(text.lstrip("+-")) <= 1 and -(2**63) <= int(text) < 2**63)
    assert (got is not None) == ok
    if ok:
        assert got == int(text)
