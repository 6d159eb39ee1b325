"""Nesting as deep as Kubernetes reads it (go-yaml, encoding/json: 10,000 levels), and no deeper."""
import json

from hypothesis import given, settings, strategies as st

from drasim.api import nesting
from drasim.api.loader import load_file
from drasim.cli.main import main
from drasim.store import clone

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(max_size=5),
              st.floats(allow_nan=False, allow_infinity=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_readers_and_writers_agree_with_the_json_module(value):
    text = json.dumps(value)
    assert nesting.loads_deep(text) == json.loads(text)
    assert nesting.dumps_indented(value) == json.dumps(value, indent=2)
    assert nesting.clone_deep(value) == value


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deep_values_need_no_recursion():
    """Readers, clone and the JSON writer work 10,000 levels deep at Python's default limit."""
    text = nested(nesting.MAX_DEPTH)
    value = nesting.loads_deep(text)
    assert nesting.depth(value) == nesting.MAX_DEPTH
    copy = clone(value)
    assert copy is not value and nesting.depth(copy) == nesting.MAX_DEPTH
    assert nesting.dumps_indented(copy).count("[") == nesting.MAX_DEPTH


def test_one_level_more_is_gos_error_with_where():
    try:
        nesting.loads_deep(nested(nesting.MAX_DEPTH + 1))
    except nesting.TooDeep as e:
        assert str(e) == "invalid character '[' exceeded max nesting depth" and e.offset == nesting.MAX_DEPTH
    else:
        raise AssertionError("accepted")


def device_class(params: str) -> str:
    return ('{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},'
            '"spec":{"config":[{"opaque":{"driver":"gpu.example.com","parameters":{"x":' + params + '}}}]}}')


# Opaque parameters may hold 10 KiB (resource/v1 OpaqueParametersMaxLength): {"x":[[…]]} fits
# 5,117 levels of arrays, the deepest a valid object can be; the whole document is 6 deeper.
DEEPEST_VALID = 5_100


def test_deepest_valid_opaque_parameters_run(tmp_path, capsys):
    for suffix in (".json", ".yaml"):   # YAML's flow style is JSON
        p = tmp_path / f"deep{suffix}"
        p.write_text(device_class(nested(DEEPEST_VALID)))
        assert main(["simulate", str(p), "-o", "json"]) == 0, capsys.readouterr().err
        out = nesting.loads_deep(capsys.readouterr().out)
        [dc] = [o for o in out["items"] if o["kind"] == "DeviceClass"]
        assert nesting.depth(dc["spec"]["config"][0]["opaque"]["parameters"]) == DEEPEST_VALID + 1


def test_deep_yaml_loads_without_the_cli(tmp_path):
    """The loader itself (library use, default recursion limit) reads 9,000 levels."""
    p = tmp_path / "deep.yaml"
    p.write_text(device_class(nested(9_000)))
    [doc] = load_file(p)
    assert nesting.depth(doc.obj) == 9_000 + 6


def test_beyond_the_limit_the_readers_errors(tmp_path, capsys):
    cases = {
        ".yaml": "invalid YAML at line 1 column 10001: exceeded max depth of 10000",        # go-yaml
        ".json": "invalid JSON at line 1 column 10001: invalid character '[' exceeded max nesting depth",
    }
    for suffix, message in cases.items():
        p = tmp_path / f"too-deep{suffix}"
        p.write_text(nested(nesting.MAX_DEPTH + 1))
        assert main(["simulate", str(p)]) == 1
        assert capsys.readouterr().err == f"error: {p}: {message}\n"
    # Within the readers' limit but over it in total: the document's own levels count too (Go).
    p = tmp_path / "total.json"
    p.write_text(device_class(nested(nesting.MAX_DEPTH - 3)))
    assert main(["simulate", str(p)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {p}: invalid JSON at line 1 column ") and err.endswith(
        "invalid character '[' exceeded max nesting depth\n")


def test_json_constants_go_does_not_read_are_errors(tmp_path, capsys):
    p = tmp_path / "nan.json"
    p.write_text('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "x": NaN}')
    assert main(["simulate", str(p)]) == 1
    assert capsys.readouterr().err == f"error: {p}: invalid JSON: invalid character 'N' looking for beginning of value\n"
