"""The fast YAML builder gives exactly what PyYAML's SafeConstructor gives with the same
resolver, on manifests and on anything else (then by falling back to it)."""
from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import yamlfast
from drasim.api.loader import KubeYAMLLoader


class Reference(yaml.CSafeLoader):   # the kube resolver, PyYAML's own resolve and constructor
    pass


Reference.yaml_implicit_resolvers = KubeYAMLLoader.yaml_implicit_resolvers
Reference.construct_mapping = KubeYAMLLoader.construct_mapping   # duplicate keys are errors in both
for _tag in ("tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"):   # go-yaml's y/n, floats past float64
    Reference.add_constructor(_tag, KubeYAMLLoader.yaml_constructors[_tag])


def reference(text: str):
    try:
        return list(yaml.load_all(text, Loader=Reference))
    except yaml.YAMLError as e:
        return ("error", type(e).__name__, str(e))


def fast(text: str):
    try:
        return list(yamlfast.load_all(text, KubeYAMLLoader))
    except yaml.YAMLError as e:
        return ("error", type(e).__name__, str(e))


# Scalars YAML 1.1 reads as something other than a string, and near misses.
TRICKY = ["yes", "No", "on", "OFF", "y", "~", "null", "", "0x1F", "0o17", "017", "0b101", "1_000",
          "1:30", "-1:30:00", "+12", ".inf", "-.Inf", ".nan", "1e3", "1.5e-3", "6.8523015e+5",
          "2026-01-01", "2026-01-01T00:00:00Z", "64Gi", "1k", "500m", "=", "<<", "0", "-0", "1.0",
          "true", "True", "TRUE", "tRue", "@x", "a: b", "- x", "#x", "'q'", '"d"']

scalars = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12), st.integers(), st.booleans(),
                    st.none(), st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.sampled_from(TRICKY), st.text(max_size=8), st.integers()), inner, max_size=4)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans(), st.sampled_from([None, "'", '"']))
def test_dumped_values_load_the_same(value, flow, style):
    text = yaml.dump_all([value, {"kind": "x", "v": value}], default_flow_style=flow, default_style=style)
    assert fast(text) == reference(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n'\"#&*!<>[]{},|?%@0123456789.~yesno")), max_size=60))
def test_any_text_same_result_or_same_error(text):
    assert fast(text) == reference(text)


def test_anchors_merge_keys_and_tags_fall_back_with_identical_results():
    text = """
base: &b {cpu: "1", memory: 1Gi}
shared: *b
merged: {<<: *b, cpu: "2"}
set: !!set {a, b}
---
plain: [1, 2.5, yes, ~, 2026-01-01]
"""
    got = fast(text)
    assert got == reference(text)
    assert got[0]["shared"] is got[0]["base"]          # an alias is the same object, as in PyYAML
    assert got[0]["merged"] == {"cpu": "2", "memory": "1Gi"}
    assert got[1]["plain"] == [1, 2.5, True, None, "2026-01-01"]   # timestamps stay strings


def test_single_document_load():
    assert yamlfast.load("a: [1, x]", KubeYAMLLoader) == {"a": [1, "x"]}
    assert yamlfast.load("", KubeYAMLLoader) is None


def test_duplicate_keys_are_an_error_as_in_kubernetes():
    text = "metadata:\n  name: a\n  name: b\n"
    assert fast(text)[0] == "error" and 'key "name" already set in map' in fast(text)[2]
    assert fast(text) == reference(text)
    # a key from a merge may be overridden
    assert fast("base: &b {x: 1}\nm: {<<: *b, x: 2}\n")[0]["m"] == {"x": 2}
