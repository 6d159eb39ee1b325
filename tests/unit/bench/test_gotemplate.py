"""The Go text/template subset used by scheduler_perf templates."""
import re
from pathlib import Path

import pytest
import yaml

from drasim.api.schema import unknown_fields
from drasim.bench.convert import to_v1
from drasim.bench.gofuncs import go_float
from drasim.bench.gotemplate import GoTemplateError, parse


def render(src: str, **env) -> str:
    return parse(src, "t").execute(env)


@pytest.mark.parametrize(("src", "env", "want"), [
    pytest.param("name: n-{{.Index}}", {"Index": 3}, "name: n-3", id="field"),
    pytest.param("{{ .Count }}/{{ .Index }}", {"Index": 1, "Count": 5}, "5/1", id="spaces-inside-braces"),
    pytest.param("{{.numDevices}}", {"numDevices": 10.0}, "10", id="float64-prints-like-go"),
    pytest.param("{{.missing}}", {}, "<no value>", id="missing-key"),
    pytest.param("{{$x := 7}}[{{$x}}]", {}, "[7]", id="variable-declaration-prints-nothing"),
    pytest.param("{{$x := 1}}{{$x = 2}}{{$x}}", {}, "2", id="variable-assignment"),
    pytest.param("{{or .a 1}}", {}, "1", id="or-missing-default"),
    pytest.param("{{or .a 1}}", {"a": 4}, "4", id="or-set"),
    pytest.param("{{or .a 1}}", {"a": 0}, "1", id="or-zero-is-false"),
    pytest.param("{{and 1 0 .x.y}}", {}, "0", id="and-short-circuits"),
    pytest.param("{{(or .n 2) | Int}}", {"n": "3"}, "3", id="pipeline-paren-Int-of-string"),
    pytest.param("{{range 3}}<{{.}}>{{end}}", {}, "<0><1><2>", id="range-int"),
    pytest.param("{{range $i := 2}}{{$i}}{{end}}", {}, "01", id="range-int-variable"),
    pytest.param("{{range .l}}{{.}},{{end}}", {"l": ["a", "b"]}, "a,b,", id="range-list-dot"),
    pytest.param("{{range $i, $e := .l}}{{$i}}={{$e}} {{end}}", {"l": ["a", "b"]}, "0=a 1=b ", id="range-index-elem"),
    pytest.param("{{range .l}}x{{else}}empty{{end}}", {"l": []}, "empty", id="range-else"),
    pytest.param("{{range 2}}{{$.Index}}{{end}}", {"Index": 9}, "99", id="dollar-is-root"),
    pytest.param("{{if ge 3 2}}yes{{else}}no{{end}}", {}, "yes", id="if-ge"),
    pytest.param("{{if ge 1 2}}a{{else if eq 1 1}}b{{else}}c{{end}}", {}, "b", id="else-if"),
    pytest.param("{{if .x}}set{{end}}|", {"x": None}, "|", id="if-nil"),
    pytest.param("a  {{- 1 -}}  b", {}, "a1b", id="trim-markers"),
    pytest.param("{{/* comment */}}x", {}, "x", id="comment"),
    pytest.param('{{"a && b \\"q\\""}}', {}, 'a && b "q"', id="no-html-escaping"),
    pytest.param("{{AddInt 1 2.9 3}}", {}, "6", id="AddInt-float-then-truncate"),
    pytest.param("{{SubtractInt 10 2.5}}", {}, "7", id="SubtractInt"),
    pytest.param("{{MultiplyInt 2.5 3}}", {}, "7", id="MultiplyInt"),
    pytest.param("{{DivideInt .Index 5}}", {"Index": 14}, "2", id="DivideInt"),
    pytest.param("{{DivideInt -7 2}}", {}, "-3", id="DivideInt-truncates-toward-zero"),
    pytest.param("{{AddFloat 1 0.5}}", {}, "1.5", id="AddFloat"),
    pytest.param("{{SubtractFloat 1 0.25}}", {}, "0.75", id="SubtractFloat"),
    pytest.param("{{MultiplyFloat 1000 1000}}", {}, "1e+06", id="MultiplyFloat-prints-%v"),
    pytest.param("{{DivideFloat 1 4}}", {}, "0.25", id="DivideFloat"),
    pytest.param("{{Mod .Index .PodGroupCount}}", {"Index": 7, "PodGroupCount": 4.0}, "3", id="Mod"),
    pytest.param("{{Mod -7 4}}", {}, "-3", id="Mod-sign-of-dividend"),
    pytest.param("{{Mod 5 \"2\"}}", {}, "1", id="Mod-string-param"),
    pytest.param("{{Int 3.9}}", {}, "3", id="Int"),
    pytest.param("{{JSON .v}}", {"v": None}, "null", id="JSON-nil"),
    pytest.param("{{(or .v nil) | JSON}}", {"v": [{"cel": {"expression": "a >= 1 && b"}}]},
                 '[{"cel":{"expression":"a \\u003e= 1 \\u0026\\u0026 b"}}]', id="JSON-list-like-go"),
    pytest.param("{{JSON .v}}", {"v": {"b": 2.0, "a": "x"}}, '{"a":"x","b":2}', id="JSON-sorted-keys"),
    pytest.param("{{len .l}} {{index .l 1}}", {"l": [1, 2]}, "2 2", id="len-index"),
])
def test_render(src, env, want):
    """Each construct renders as Go's text/template with scheduler_perf's functions would."""
    assert render(src, **env) == want


@pytest.mark.parametrize(("src", "message"), [
    pytest.param("{{Nope 1}}", 'function "Nope" not defined', id="unknown-function"),
    pytest.param("{{if 1}}x", "unexpected EOF", id="unclosed-if"),
    pytest.param("{{end}}", "unexpected {{end}}", id="stray-end"),
    pytest.param("{{$y}}", 'undefined variable "$y"', id="undefined-variable"),
    pytest.param("{{DivideInt 1 0}}", "division by zero", id="divide-by-zero"),
    pytest.param("{{Mod 1 0}}", "integer divide by zero", id="mod-by-zero"),
    pytest.param("{{AddInt true}}", "cannot cast true to float64", id="bad-cast"),
    pytest.param("{{.a.b}}", "nil pointer evaluating", id="field-of-missing"),
    pytest.param("{{1 2}}", "can't give argument to non-function", id="args-to-value"),
])
def test_errors(src, message):
    """Bad templates fail with text/template's message, naming the template and line."""
    with pytest.raises(GoTemplateError, match=re.escape(message)) as exc:
        render(src)
    assert "template: t:1" in str(exc.value)


@pytest.mark.parametrize("src", ["{{Mod .a.b 2}}", "{{and .a.b 1}}", "{{or 0 (Mod .a.b 2)}}", "x\n{{and 1 (Mod .a.b 2)}}"])
def test_an_arguments_error_is_reported_as_it_is(src):
    """Go's evalArg reports an argument's own error (not as `error calling <fn>`), on the
    action's line, also inside and/or (lazy) and parenthesized pipelines."""
    with pytest.raises(GoTemplateError) as exc:
        render(src)
    line = src.count("\n") + 1
    assert str(exc.value) == f"template: t:{line}: nil pointer evaluating interface {{}}.b"


def test_claim_template_with_default_params_decodes_as_v1():
    """resourceclaimtemplate.yaml: numRequests requests, selectors and constraints via JSON (null when unset)."""
    src = """{{$numRequests := (or .numRequests 1) | Int}}
{{$selectors := (or .selectors nil) | JSON}}
{{$constraints := (or .constraints nil) | JSON}}

spec:
  devices:
    constraints: {{$constraints}}
    requests:{{range $numRequests}}
    - name: req-{{.}}
      exactly:
        selectors: {{$selectors}}{{end}}
"""
    got = yaml.safe_load(render(src, numRequests=2, selectors=None, constraints=[{"matchAttribute": "x/y"}]))
    assert got == {"spec": {"devices": {"constraints": [{"matchAttribute": "x/y"}], "requests": [
        {"name": "req-0", "exactly": {"selectors": None}}, {"name": "req-1", "exactly": {"selectors": None}}]}}}


@pytest.mark.parametrize(("value", "want"), [
    (10.0, "10"), (2.5, "2.5"), (123456.0, "123456"), (1234567.0, "1.234567e+06"),
    (0.0001, "0.0001"), (0.00001, "1e-05"), (-3.0, "-3"),
])
def test_go_float(value, want):
    """Floats print as Go's %v (shortest 'g', exponent from 1e6 or below 1e-4)."""
    assert go_float(value) == want


SHARED = Path("/work/shared/benchmarks/scheduler_perf")
TEMPLATES = sorted(SHARED.glob("**/templates/*.yaml")) if SHARED.is_dir() else []


@pytest.mark.skipif(not TEMPLATES, reason="shared scheduler_perf templates not available")
@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(SHARED)))
def test_every_shared_template_renders_and_decodes(path):
    """Every copied template renders (Index, Count, PodGroupCount, no other params) to one YAML
    object, which converts to resource.k8s.io/v1 when it is an older DRA version."""
    text = parse(path.read_text(), path.name).execute({"Index": 3, "Count": 5, "PodGroupCount": 4})
    obj = yaml.safe_load(text)
    assert isinstance(obj, dict) and obj["kind"]
    converted, _ = to_v1(obj, path.name)
    if converted["apiVersion"].startswith("resource.k8s.io/") and converted["kind"] != "ResourceSlicePatch":
        assert converted["apiVersion"] == "resource.k8s.io/v1"
        # Known: compatibilityGroups (DRADeviceCompatibilityGroups, not in drasim's v1 schema) and
        # `controller` in the unreferenced another-resourceclaimtemplate.yaml (README §7.6).
        allowed = ("compatibilityGroups", ".controller")
        assert all(any(a in f for a in allowed) for f in unknown_fields(converted["kind"], converted))


def test_package_exports():
    """drasim.bench lists its public names in __all__, and each exists."""
    import drasim.bench as bench
    assert all(hasattr(bench, name) for name in bench.__all__)
