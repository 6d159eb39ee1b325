"""Bad input: one clear line naming file, object and field; exit 1; never a traceback; nothing applied."""
import json
import textwrap

import pytest

from drasim.cli.main import main

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
"""


def run(tmp_path, capsys, *docs: str):
    paths = []
    for i, text in enumerate(docs):
        p = tmp_path / f"{i:02d}.yaml"
        p.write_text(textwrap.dedent(text))
        paths.append(str(p))
    code = main(["simulate", *paths, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("manifest", "needles"), [
    pytest.param("kind: [unclosed", ["invalid YAML at line"], id="yaml-syntax"),
    pytest.param("- just\n- a list\n", ["must be a mapping"], id="not-a-mapping"),
    pytest.param("apiVersion: v1\nmetadata: {name: x}\n", ["Object 'Kind' is missing"], id="no-kind"),
    pytest.param("apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: x}\n",
                 ['no matches for kind "DeviceClass" in version "resource.k8s.io/v1beta1"', "not served"],
                 id="unserved-version"),
    pytest.param("apiVersion: device.k8s.io/v1alpha1\nkind: DeviceTaintRule\nmetadata: {name: x}\n",
                 ['no matches for kind "DeviceTaintRule" in version "device.k8s.io/v1alpha1"'], id="unknown-group"),
    pytest.param("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: x}\n", ['no matches for kind "Widget"'],
                 id="unknown-kind"),
    pytest.param("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: r}
        spec:
          deviceSelector: {deviceClassName: gpu}
          taint: {key: k, effect: NoExecute}
        """, ['unknown field "spec.deviceSelector.deviceClassName"', "strict decoding error"], id="unknown-field"),
    pytest.param("""
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - {name: c, image: i, resources: {requests: {cpu: lots}}}
        """, ['Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression',
              '(spec.containers[0].resources.requests.cpu: "lots")'], id="pod-quantity-decode"),
    pytest.param("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: s}
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: p, generation: 1, resourceSliceCount: 1}
          devices:
          - {name: d, capacity: {memory: {value: 80 GiB}}}
        """, ['ResourceSlice in version "v1" cannot be handled as a ResourceSlice: quantities must match',
              '(spec.devices[0].capacity.memory.value: "80 GiB")'], id="slice-quantity-decode"),
    pytest.param("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu}
        spec:
          selectors:
          - cel: {expression: 'device.driver == '}
        """, ['DeviceClass.resource.k8s.io "gpu" is invalid', "spec.selectors[0].cel.expression", "Syntax error"],
                 id="cel-syntax"),
    pytest.param("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: Bad_Name}
        spec: {}
        """, ['DeviceClass.resource.k8s.io "Bad_Name" is invalid', "metadata.name"], id="bad-name"),
])
def test_bad_input_is_one_clear_error(tmp_path, capsys, manifest, needles):
    """Every class of bad input exits 1 with the file and a Kubernetes-style message, no traceback."""
    code, out, err = run(tmp_path, capsys, manifest)
    assert code == 1
    assert "Traceback" not in err and out == ""
    assert err.startswith("error: ") and str(tmp_path) in err
    for needle in needles:
        assert needle in err


def test_missing_file(capsys):
    """A path that does not exist is an error, not a traceback."""
    assert main(["simulate", "/nonexistent/x.yaml"]) == 1
    assert "no such file or directory" in capsys.readouterr().err


def test_invalid_object_rejects_whole_phase(tmp_path, capsys):
    """A phase with one invalid object is not half applied: the valid node before it is not created either."""
    bad = NODE + """
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
"""
    code, out, err = run(tmp_path, capsys, bad)
    assert code == 1
    assert "spec.devices.requests[0]" in err and "exactly one of `exactly` or `firstAvailable` is required" in err


def test_valid_phase_outputs_list(tmp_path, capsys):
    """Valid input exits 0 and prints a List with every object (the system namespaces too)."""
    code, out, err = run(tmp_path, capsys, NODE)
    assert code == 0, err
    state = json.loads(out)
    assert state["kind"] == "List" and [o["kind"] for o in state["items"]] == ["Namespace"] * 4 + ["Node"]
    assert [o["metadata"]["name"] for o in state["items"][:4]] == ["default", "kube-node-lease", "kube-public",
                                                                   "kube-system"]


def test_unquoted_timestamps_stay_strings(tmp_path, capsys):
    """YAML timestamps are read as Kubernetes reads them: strings (never a crash in the JSON output)."""
    code, out, err = run(tmp_path, capsys, """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu, creationTimestamp: 2026-03-01T00:00:00Z}
        spec:
          selectors:
          - cel: {expression: 'device.driver == "x"'}
        """)
    assert code == 0, err
    items = [o for o in json.loads(out)["items"] if o["kind"] == "DeviceClass"]
    assert items[0]["metadata"]["creationTimestamp"] == "2026-03-01T00:00:00Z"


def test_yaml_values_json_cannot_hold_are_errors(tmp_path, capsys):
    """!!binary and similar values are refused with the field path; non-string keys become strings."""
    code, out, err = run(tmp_path, capsys, "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nspec: {x: !!binary aGVsbG8=}\n")
    assert code == 1 and "spec.x: unsupported value of type bytes" in err and "Traceback" not in err


def test_snapshot_kinds_not_simulated_are_skipped_with_a_warning(tmp_path, capsys):
    """A `kubectl get all -o yaml` snapshot holds ConfigMaps and Services: skipped, each one named
    (file#document, kind, namespace/name), the rest simulated."""
    code, out, err = run(tmp_path, capsys, NODE + """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: default}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: api, namespace: default}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
""")
    assert code == 0
    path = tmp_path / "00.yaml"
    assert err.splitlines() == [f"warning: {path}#2: v1 ConfigMap default/web is not simulated; skipped",
                                f"warning: {path}#3: v1 ConfigMap default/api is not simulated; skipped",
                                f"warning: {path}#4: v1 Service default/web is not simulated; skipped"]
    assert [o["kind"] for o in json.loads(out)["items"] if o["kind"] != "Namespace"] == ["Node"]


BOMB = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n" + "".join(
    f"  {name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip([None, "a", "b", "c", "d", "e", "f", "g"], "abcdefgh"))


@pytest.mark.parametrize(("manifest", "needle"), [
    pytest.param(BOMB, "document contains excessive aliasing", id="billion-laughs"),
    pytest.param("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: &x {self: *x}\n",
                 "data.self: an alias refers to a node that contains it", id="self-reference"),
])
def test_alias_abuse_is_refused_quickly(tmp_path, capsys, manifest, needle):
    """Aliases that expand past the text (a YAML bomb) or into themselves are input errors, found
    before anything is expanded in memory (go-yaml: "excessive aliasing")."""
    code, out, err = run(tmp_path, capsys, manifest)
    assert code == 1 and needle in err and "Traceback" not in err and len(err) < 500


def test_deep_json_is_an_error_not_a_crash(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["simulate", str(p)]) == 1
    assert capsys.readouterr().err == (f"error: {p}: invalid JSON at line 1 column 10001: "
                                       "invalid character '[' exceeded max nesting depth\n")   # Go's words


def test_table_output_prints_messages_verbatim(tmp_path, capsys):
    """Messages with brackets (CEL keys, regexes) are text, not rich markup."""
    code, out, err = run(tmp_path, capsys, NODE, """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu}
        spec:
          selectors:
          - cel: {expression: 'device.attributes["x"]["[/x]"] == "a"'}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: s}
        spec:
          driver: x
          nodeName: node-1
          pool: {name: p, generation: 1, resourceSliceCount: 1}
          devices: [{name: d}]
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: c}
        spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers: [{name: c, image: i, resources: {claims: [{name: r}]}}]
          resourceClaims: [{name: r, resourceClaimName: c}]
        """)
    assert code == 0
    code = main(["simulate", *sorted(str(p) for p in tmp_path.glob("*.yaml")), "-o", "table"])
    out, err = capsys.readouterr()
    assert code == 0 and "no such key: [/x]" in out.replace("\n", " ").replace("│", " ")


def test_a_phase_with_nothing_to_apply_is_an_error(tmp_path, capsys):
    """As `kubectl apply` says: an empty file or folder is a mistake, not an empty phase."""
    (tmp_path / "empty").mkdir()
    assert main(["simulate", str(tmp_path / "empty")]) == 1
    assert "no objects passed to apply" in capsys.readouterr().err
    code, out, err = run(tmp_path, capsys, NODE, "---\n")
    assert code == 1 and "01.yaml: no objects passed to apply" in err and out == ""


def test_what_a_helm_chart_also_installs_is_skipped_with_a_warning(tmp_path, capsys):
    """CRDs, webhook configurations and admission policies are built-in v1.37 kinds: skipped with
    a warning like Services, not refused as unknown (a CRD was `no matches for kind`)."""
    code, out, err = run(tmp_path, capsys, """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec: {group: example.com}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: chart-webhook}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: chart-policy}
---
apiVersion: v1
kind: Namespace
metadata: {name: chart}
""")
    assert code == 0, err
    path = tmp_path / "00.yaml"
    assert err.splitlines() == [
        f"warning: {path}#1: apiextensions.k8s.io/v1 CustomResourceDefinition foos.example.com is not simulated; skipped",
        f"warning: {path}#2: admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration chart-webhook is not "
        "simulated; skipped",
        f"warning: {path}#3: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy chart-policy is not "
        "simulated; skipped"]
