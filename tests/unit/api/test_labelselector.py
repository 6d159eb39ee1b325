"""metav1.LabelSelector compilation and matching (k8s: LabelSelectorAsSelector, labels.Requirement)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from drasim.api.labelselector import EVERYTHING, NOTHING, LabelSelectorError, compile_label_selector


def expr(key, op, *values):
    out = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


@pytest.mark.parametrize(("selector", "labels", "want"), [
    pytest.param(None, {"a": "1"}, False, id="nil-selects-nothing"),
    pytest.param(None, {}, False, id="nil-selects-nothing-empty-labels"),
    pytest.param({}, {}, True, id="empty-selects-everything"),
    pytest.param({"matchLabels": {}, "matchExpressions": []}, {"a": "1"}, True, id="empty-lists-select-everything"),
    pytest.param({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True, id="match-labels"),
    pytest.param({"matchLabels": {"a": "1"}}, {"a": "2"}, False, id="match-labels-other-value"),
    pytest.param({"matchLabels": {"a": "1"}}, {}, False, id="match-labels-missing"),
    pytest.param({"matchExpressions": [expr("a", "In", "1", "2")]}, {"a": "2"}, True, id="in"),
    pytest.param({"matchExpressions": [expr("a", "In", "1")]}, {}, False, id="in-missing-key"),
    pytest.param({"matchExpressions": [expr("a", "NotIn", "1")]}, {}, True, id="notin-missing-key"),
    pytest.param({"matchExpressions": [expr("a", "NotIn", "1")]}, {"a": "1"}, False, id="notin-value"),
    pytest.param({"matchExpressions": [expr("a", "NotIn", "1")]}, {"a": "3"}, True, id="notin-other-value"),
    pytest.param({"matchExpressions": [expr("a", "Exists")]}, {"a": ""}, True, id="exists-empty-value"),
    pytest.param({"matchExpressions": [expr("a", "Exists")]}, {"b": "1"}, False, id="exists-missing"),
    pytest.param({"matchExpressions": [expr("a", "DoesNotExist")]}, {"b": "1"}, True, id="does-not-exist"),
    pytest.param({"matchExpressions": [expr("a", "DoesNotExist")]}, {"a": "1"}, False, id="does-not-exist-present"),
    pytest.param({"matchLabels": {"a": "1"}, "matchExpressions": [expr("b", "Exists")]}, {"a": "1"}, False,
                 id="labels-and-expressions-anded"),
])
def test_matches(selector, labels, want):
    """matchLabels and matchExpressions are ANDed; nil selects nothing and {} everything."""
    assert compile_label_selector(selector).matches(labels) is want


@pytest.mark.parametrize(("selector", "message"), [
    pytest.param({"matchExpressions": [expr("a", "Gt", "1")]}, '"Gt" is not a valid label selector operator',
                 id="gt-not-a-label-selector-operator"),
    pytest.param({"matchExpressions": [expr("a", "In")]}, "values set can't be empty", id="in-without-values"),
    pytest.param({"matchExpressions": [expr("a", "Exists", "x")]}, "values set must be empty", id="exists-with-values"),
])
def test_invalid(selector, message):
    """Selectors LabelSelectorAsSelector refuses raise with its message."""
    with pytest.raises(LabelSelectorError, match=message):
        compile_label_selector(selector)


def test_empty_and_nothing():
    """Selector.Empty(): Everything has no requirements; Nothing is not empty."""
    assert EVERYTHING.empty and not NOTHING.empty
    assert compile_label_selector({}) == EVERYTHING and compile_label_selector(None) == NOTHING
    assert not compile_label_selector({"matchLabels": {"a": "b"}}).empty


@pytest.mark.parametrize(("selector", "extra", "labels", "want"), [
    pytest.param({"matchLabels": {"app": "x"}}, {"hash": "1"}, {"app": "x", "hash": "1"}, True, id="merged-match"),
    pytest.param({"matchLabels": {"app": "x"}}, {"hash": "1"}, {"app": "x", "hash": "2"}, False, id="merged-narrows"),
    pytest.param({}, {"hash": "1"}, {"hash": "1"}, True, id="everything-becomes-match-labels"),
    pytest.param({}, {"hash": "1"}, {"hash": "2"}, False, id="everything-narrowed"),
    pytest.param(None, {"hash": "1"}, {"hash": "1"}, False, id="nothing-stays-nothing"),
])
def test_with_match_labels(selector, extra, labels, want):
    """matchLabelKeys merge: key In (value) ANDed; Nothing() is never widened."""
    assert compile_label_selector(selector).with_match_labels(extra).matches(labels) is want


_keys = st.sampled_from(["a", "b", "c"])
_values = st.sampled_from(["1", "2", "3"])


@given(st.dictionaries(_keys, _values), st.dictionaries(_keys, _values))
def test_match_labels_is_subset_check(match_labels, labels):
    """A matchLabels-only selector matches exactly the label sets containing all its pairs."""
    want = all(labels.get(k) == v for k, v in match_labels.items())
    assert compile_label_selector({"matchLabels": match_labels}).matches(labels) is want


@given(_keys, st.lists(_values, min_size=1, max_size=3), st.dictionaries(_keys, _values))
def test_in_and_notin_are_complements(key, values, labels):
    """For any label set, exactly one of `key In v` and `key NotIn v` matches."""
    in_ = compile_label_selector({"matchExpressions": [expr(key, "In", *values)]}).matches(labels)
    not_in = compile_label_selector({"matchExpressions": [expr(key, "NotIn", *values)]}).matches(labels)
    assert in_ != not_in
