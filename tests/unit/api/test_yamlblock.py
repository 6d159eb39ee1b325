"""The line reader for kubectl's block YAML gives exactly the full path's values, or steps aside.

Full path: libyaml composes, yamlfast builds, loader._as_json makes keys strings. Whenever
yamlblock.load returns documents, the full path must read the same text without error and give
the same documents — equal values of equal types (1, 1.0, True differ; so do 0.0 and -0.0) in
the same key order. Checked on generated values dumped in many styles, on their mutations and on
odd texts; and the reader must actually be used for the regular shape (not vacuous).
"""
import math

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import loader, yamlblock, yamlfast
from drasim.api.loader import KubeYAMLLoader
from drasim.cli import render


def typed(value):
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def full_path(text: str):
    return [loader._as_json(d) for d in yamlfast.load_all(text, KubeYAMLLoader)]


def check(text: str) -> bool:
    """Whether the line reader took the text; when it did, it equals the full path."""
    got = yamlblock.load(text, KubeYAMLLoader)
    if got is None:
        return False
    assert typed(got) == typed(full_path(text)), text
    return True


TRICKY = ["yes", "No", "on", "OFF", "y", "n", "~", "null", "Null", "", "0x1F", "0o17", "017", "0b101", "1_000",
          "1:30", "-1:30:00", "+12", ".inf", "-.Inf", ".nan", "1e3", "1.5e-3", "6.8523015e+5", "1e400",
          "2026-01-01", "2026-01-01T00:00:00Z", "64Gi", "1k", "500m", "=", "<<", "0", "-0", "1.0", "-", "--", "---",
          "true", "True", "TRUE", "tRue", "@x", "a: b", "a:b", "- x", "-x", "#x", "a #b", "a#b", "'q'", '"d"',
          "it's", "x:", ":x", "?x", "? x", "[a]", "{a: 1}", "a,b", "*a", "&a", "!a", "|", ">", "%x", "`x`",
          "a  b", " a", "a ", "1 2", "...", "a\\b", 'a"b', "0.", ".5", "1e", "9" * 30, "-9223372036854775809"]
KEYS = TRICKY + ["name", "kubernetes.io/hostname", "example.com/gpu", "a.b-c_d", "1", "3", "true", "y", "null",
                 "1.5", "0x10", "a b", "key"]
scalars = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12),
                    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=90),
                    st.lists(st.sampled_from(["word", "a", "1", "x.y", "yes", "-", "#", "a:", "'q", "~", "- b"]),
                             min_size=2, max_size=30).map(" ".join),   # long sentences: folded by the dumper
                    st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False), st.floats())
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8), st.integers(), st.booleans()),
                    inner, max_size=5)), max_leaves=30)
documents = st.one_of(st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=5),
                      st.lists(values, min_size=1, max_size=4))


def dumps(value, dumper, width: int, indent: int, sort: bool) -> str:
    return yaml.dump(value, Dumper=dumper, default_flow_style=False, width=width, indent=indent, sort_keys=sort)


dumpers = st.sampled_from([yaml.SafeDumper, getattr(yaml, "CSafeDumper", yaml.SafeDumper)])


@settings(max_examples=500, deadline=None)
@given(documents, dumpers, st.sampled_from([20, 40, 80, 200]), st.sampled_from([2, 3, 4]), st.booleans())
def test_dumped_documents_read_alike(value, dumper, width, indent, sort):
    check(dumps(value, dumper, width, indent, sort))


edits = st.sampled_from(["", " ", "  ", "\n", "#", " #", ":", ": ", "-", "- ", "'", "''", '"', "\\", "{", "[]",
                         "&a ", "*a", "!!str ", "|", ">", "\t", "\r", "---\n", "...", "<<: ", "? ", "é", "\x00",
                         "a: b\n", "  - x\n", "x"])


@settings(max_examples=800, deadline=None)
@given(documents, dumpers, st.sampled_from([20, 80]), st.integers(0, 100_000), edits, st.integers(0, 3))
def test_mutated_documents_read_alike(value, dumper, width, at, insert, cut):
    text = dumps(value, dumper, width, 2, False)
    at %= len(text) + 1
    check(text[:at] + insert + text[at + cut:])


@settings(max_examples=300, deadline=None)
@given(documents, st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(["dup", "swap", "indent", "dedent", "comment", "join"]))
def test_lines_moved_read_alike(value, i, j, how):
    lines = dumps(value, yaml.SafeDumper, 40, 2, False).split("\n")
    i, j = i % len(lines), j % len(lines)
    if how == "dup":
        lines.insert(j, lines[i])
    elif how == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif how == "indent":
        lines[i] = "  " + lines[i]
    elif how == "comment":
        lines[i] += " #c"
    elif how == "join":
        lines[i:i + 2] = [" ".join(lines[i:i + 2])]
    else:
        lines[i] = lines[i][2:]
    check("\n".join(lines))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n'\"#&*!<>[]{},|?%@0123456789.~yesno")), max_size=80))
def test_odd_texts_read_alike(text):
    check(text)


def test_the_regular_shape_is_read_here():
    """kubectl-like output (drasim's own, and the fleet benchmark's writer) takes this reader."""
    objects = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "labels": {"app": "x", "num": str(i)},
                "annotations": {"long": "word " * 40, "json": '{"a": ["b", "c"], "d": {"e": 1}}' * 5}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"limits": {"cpu": "1"}}}],
                         "tolerations": [], "nodeSelector": {}, "priority": 0, "enableServiceLinks": True},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
               for i in range(3)]
    assert check(render.render_yaml(objects))
    assert check(dumps(objects, getattr(yaml, "CSafeDumper", yaml.SafeDumper), 80, 2, False))
    assert check("a:\n- 1\n- x\nb:\n  c: []\n  d: {}\n  e:\n")
    folded = check_value("a: one two\n  three\nb:\n- 'x ''y''\n  z'\n- 1\n  2\n")
    assert folded == {"a": "one two three", "b": ["x 'y' z", "1 2"]}


def check_value(text: str):
    assert check(text)
    return yamlblock.load(text, KubeYAMLLoader)[0]


def test_what_it_does_not_read_is_left_to_the_full_path():
    for text in ("a: 1 # comment\n", "a: |\n  x\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: [1]\n", "a:\tb\n",
                 "a: 1\na: 2\n", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: é\n", "a: 1\n\nb: 2\n", "a: 'x\n",
                 'a: "x\\ty"\n', "<<: {}\n", "a: 1\r\n", "1.5: x\n", "# c\na: 1\n", "a: 1\n# c\n",
                 "a: 1\n  # c\n", "a: b \n", "a: 'b \n  c'\n", "a: 'b\n  c \n  d'\n", "a: 'b\n   \n  c'\n",
                 "---\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n", "a: 1\n\n", "- a\n-\n", "a:\n  - b\n \n"):
        assert yamlblock.load(text, KubeYAMLLoader) is None, text


def test_an_empty_collection_is_not_continued():
    """`- []` then a deeper line: libyaml refuses it; found by the mutation test."""
    for text in ("- []\n  x\n", "a: {}\n  b\n"):
        assert yamlblock.load(text, KubeYAMLLoader) is None, text


def test_a_full_memory_of_lines_is_cleared_not_frozen(monkeypatch):
    """Past its size the line memory starts afresh (values stay right either way)."""
    monkeypatch.setattr(yamlblock, "_REMEMBERED", 8)
    objects = [{"kind": "Pod", "metadata": {"name": f"p{i}", "uid": f"u-{i}"}, "spec": {"x": [1, "a", True]}}
               for i in range(20)]
    assert check(render.render_yaml(objects))
