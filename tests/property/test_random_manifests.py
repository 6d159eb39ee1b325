"""Property: random manifests never crash the loader or the control plane — a clear error or a result."""
from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.api import kinds
from drasim.api.loader import Document, load_file
from drasim.controlplane import ControlPlane
from drasim.errors import InputError

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.sampled_from(
    ["", "gpu", "a100", "64Gi", "1", "ExactCount", "All", "NoExecute", "Exists", "device.driver == 'x'",
     "node-1", "gpu.example.com", "true", "example.com/gpu"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(
        ["name", "devices", "requests", "exactly", "firstAvailable", "deviceClassName", "count", "allocationMode",
         "selectors", "cel", "expression", "driver", "pool", "nodeName", "allNodes", "attributes", "capacity",
         "value", "string", "int", "taints", "tolerations", "key", "effect", "operator", "containers",
         "resources", "limits", "resourceClaims", "resourceClaimName", "resourceClaimTemplateName", "spec",
         "generation", "resourceSliceCount", "constraints", "matchAttribute", "extendedResourceName",
         "deviceSelector", "taint", "allocatable", "hard"]), inner, max_size=4)), max_leaves=25)


@st.composite
def manifests(draw):
    kind = draw(st.sampled_from(kinds.INPUT_KINDS))
    obj = {"apiVersion": kind.api_version, "kind": kind.kind,
           "metadata": {"name": draw(st.sampled_from(["a", "b", "node-1", "Bad_Name", ""]))}}
    if kind.namespaced:
        obj["metadata"]["namespace"] = "default"
    for field in ("spec", "status"):
        if draw(st.booleans()):
            obj[field] = draw(json_values)
    return Document(f"random.yaml#{draw(st.integers(1, 9))}", kind, obj)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(manifests(), min_size=1, max_size=4), min_size=1, max_size=3))
def test_random_phases_never_crash(phases):
    """Each phase is either rejected with an InputError or applied and settled."""
    cp = ControlPlane()
    for docs in phases:
        try:
            cp.run_phase(docs)
        except InputError:
            pass


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_crashes_the_loader(tmp_path_factory, text):
    """Arbitrary file content is read or rejected with a ManifestError."""
    path = tmp_path_factory.mktemp("m") / "x.yaml"
    path.write_text(text)
    try:
        load_file(path)
    except InputError:
        pass


yaml_scalars = st.sampled_from(["2026-03-01", "2026-03-01T00:00:00Z", "!!binary aGVsbG8=", "yes", "~", "0x1F", "1e3",
                                "'quoted'", "[1, 2]", "{a: b}", "&a x", "*a", "!!set {a}", "12:30:00", ".inf", "-"])
yaml_keys = st.sampled_from(["name", "namespace", "labels", "spec", "status", "creationTimestamp", "1", "true",
                             "nodeName", "devices", "allocatable", "capacity"])


@st.composite
def yaml_documents(draw):
    kind = draw(st.sampled_from(kinds.INPUT_KINDS))
    lines = [f"apiVersion: {kind.api_version}", f"kind: {kind.kind}", "metadata:", "  name: a"]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"  {draw(yaml_keys)}: {draw(yaml_scalars)}")
    for _ in range(draw(st.integers(0, 3))):
        lines.append(f"{draw(st.sampled_from(['spec', 'status']))}:")
        lines.append(f"  {draw(yaml_keys)}: {draw(yaml_scalars)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(yaml_documents(), min_size=1, max_size=3))
def test_random_yaml_through_the_cli(tmp_path, documents):
    """Odd YAML (timestamps, tags, anchors, non-string keys) gives output or one clear error line."""
    import contextlib
    import io

    from drasim.cli.main import main

    path = tmp_path / "m.yaml"
    path.write_text("---\n".join(documents))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["simulate", str(path), "-o", "json"])
    assert code in (0, 1)
    if code == 1:
        assert err.getvalue().startswith("error: ") and "Traceback" not in err.getvalue()
