"""labelSelector= and fieldSelector= as apimachinery reads them (labels.Parse, fields.ParseSelector): grammar, value sets,
Gt/Lt, escapes, and the error text kube-apiserver answers a typo with (pkg/labels, pkg/fields)."""
import pytest
from hypothesis import given, strategies as st

from drasim.server.labelparse import SelectorSyntaxError, parse


def reqs(text):
    return [(r.key, r.operator, r.values) for r in parse(text)]


def test_the_grammar():
    assert reqs("app in (a, b),tier!=web,!legacy,env") == [
        ("app", "in", ("a", "b")), ("env", "exists", ()), ("legacy", "!", ()), ("tier", "!=", ("web",))]
    assert reqs("x in (foo,,baz),y,z notin ()") == [("x", "in", ("", "baz", "foo")), ("y", "exists", ()),
                                                     ("z", "notin", ("",))]
    assert reqs("a in (in),b notin (notin)") == [("a", "in", ("in",)), ("b", "notin", ("notin",))]
    assert reqs("a=,b==c") == [("a", "=", ("",)), ("b", "==", ("c",))]
    assert reqs("n>5,m<3") == [("m", "lt", ("3",)), ("n", "gt", ("5",))]
    assert reqs("  ") == []


@pytest.mark.parametrize("text, message", [
    ("app in (x", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("a in x", "unable to parse requirement: found 'x' expected: '('"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ("a,", "found '', expected: identifier after ','"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("a!", "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ("n>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
            "the value must be an integer"),
    ("n>1_0", "unable to parse requirement: values[0]: Invalid value: \"1_0\": for 'Gt', 'Lt' operators, "
              "the value must be an integer"),   # strconv.ParseInt(v, 10, 64): no digit separators
    ("a%=b", 'unable to parse requirement: <nil>: Invalid value: "a%": name part must consist of'),
    ("a=@", 'unable to parse requirement: values[0][a]: Invalid value: "@": a valid label must be'),
])
def test_errors_read_as_labels_parse_writes_them(text, message):
    with pytest.raises(SelectorSyntaxError) as e:
        parse(text)
    assert str(e.value).startswith(message)


def test_matching():
    [gt] = parse("n>5")
    assert gt.matches({"n": "6"}) and not gt.matches({"n": "5"}) and not gt.matches({"n": "x"}) and not gt.matches({})
    # Label values compared as strconv.ParseInt reads them: "1_0" (a valid label value) is no number,
    # nor is one past int64.
    assert not gt.matches({"n": "1_0"}) and not gt.matches({"n": str(2**63)}) and gt.matches({"n": "+7"})
    [notin] = parse("a notin (x)")
    assert notin.matches({}) and notin.matches({"a": "y"}) and not notin.matches({"a": "x"})
    [absent] = parse("!a")
    assert absent.matches({"b": "1"}) and not absent.matches({"a": ""})


_KEY = st.from_regex(r"[a-z]([a-z0-9.-]{0,6}[a-z0-9])?", fullmatch=True)
_VALUE = st.from_regex(r"([A-Za-z0-9]([A-Za-z0-9_.-]{0,6}[A-Za-z0-9])?)?", fullmatch=True)


@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=4))
def test_a_written_out_label_set_selects_itself(labels):
    """`k1=v1,k2 in (v2),k3` for any valid labels: parses, and matches exactly the sets holding them."""
    parts = [f"{k}={v}" if i % 2 == 0 else f"{k} in ({v})" for i, (k, v) in enumerate(sorted(labels.items()))]
    requirements = parse(",".join(parts))
    assert all(r.matches(labels) for r in requirements)
    changed = {k: v + "x" for k, v in labels.items()}
    assert not all(r.matches(changed) for r in requirements)


@pytest.mark.parametrize("text, message", [
    ("metadata.name=a=b", "invalid field selector: unescaped character in value: 61"),   # %v of a Go rune
    ("metadata.name=a\\x", "invalid field selector: invalid escape sequence: \\x"),
    ("x", "invalid selector: 'x'; can't understand 'x'"),
    ("spec.nodeName = n1", "field label not supported: spec.nodeName "),
])
def test_field_selector_errors_read_as_fields_parse_selector_writes_them(text, message):
    from drasim.server.selectors import parse_field_selector
    from drasim.server.status import ApiError
    with pytest.raises(ApiError) as e:
        parse_field_selector("Pod", text)
    assert e.value.message == message


def test_field_selector_escapes_and_empty_terms():
    from drasim.server.selectors import matches, parse_field_selector
    pod = {"metadata": {"name": "a,b", "namespace": "ns"}, "spec": {"nodeName": "n1"}}
    assert matches(pod, None, parse_field_selector("Pod", "metadata.name=a\\,b,spec.nodeName==n1,"))
    assert not matches(pod, None, parse_field_selector("Pod", "spec.nodeName!=n1"))
