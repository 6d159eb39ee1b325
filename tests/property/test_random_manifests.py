"""Property: random manifests never crash the loader or the control plane — a clear error or a result."""
import textwrap

import yaml
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
