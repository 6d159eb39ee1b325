"""Bad input the API server's decoder refuses: wrong JSON types at any depth, unknown fields,
numbers Go cannot hold. One line naming file, object and field in the API server's words; exit 1;
nothing applied. And the inputs Go does accept run."""
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
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
"""
CANNOT = '{kind} in version "v1" cannot be handled as a {kind}: '


def run(tmp_path, capsys, *docs: str):
    paths = []
    for i, text in enumerate(docs):
        p = tmp_path / f"{i:02d}.yaml"
        p.write_text(textwrap.dedent(text))
        paths.append(str(p))
    code = main(["simulate", *paths, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def _pod(spec: str) -> str:
    return POD + "spec:\n  containers: [{name: c, image: i}]\n" + textwrap.indent(textwrap.dedent(spec), "  ")


TYPE_ERRORS = [
    # item 1: the crashes seen, now decode errors
    pytest.param(SLICE + "  devices: 1.5\n", "ResourceSlice",
                 "json: cannot unmarshal number into Go struct field ResourceSliceSpec.spec.devices of type []v1.Device",
                 id="slice-devices-float"),
    pytest.param(SLICE + "  devices: 1\n", "ResourceSlice",
                 "json: cannot unmarshal number into Go struct field ResourceSliceSpec.spec.devices of type []v1.Device",
                 id="slice-devices-int"),
    pytest.param("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\n"
                 "spec: {spec: {devices: {requests: 5}}}\n", "ResourceClaimTemplate",
                 "json: cannot unmarshal number into Go struct field DeviceClaim.spec.spec.devices.requests of type "
                 "[]v1.DeviceRequest", id="template-requests-int"),
    pytest.param(_pod("nodeSelector: [a]\n"), "Pod",
                 "json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of type map[string]string",
                 id="pod-nodeselector-list"),
    pytest.param(_pod("nodeSelector: zone-a\n"), "Pod",
                 "json: cannot unmarshal string into Go struct field PodSpec.spec.nodeSelector of type map[string]string",
                 id="pod-nodeselector-string"),
    pytest.param(_pod("nodeSelector: 3\n"), "Pod",
                 "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeSelector of type map[string]string",
                 id="pod-nodeselector-int"),
    pytest.param(_pod("tolerations: 5\n"), "Pod",
                 "json: cannot unmarshal number into Go struct field PodSpec.spec.tolerations of type []v1.Toleration",
                 id="pod-tolerations-int"),
    pytest.param(POD + "spec:\n  containers: [{name: c, image: i, ports: [{containerPort: http}]}]\n", "Pod",
                 "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort "
                 "of type int32 (spec.containers[0].ports[0].containerPort)", id="deep-list-field"),
    pytest.param(NODE + "  nodeInfo: {kubeletVersion: 1.37}\n", "Node",
                 "json: cannot unmarshal number into Go struct field NodeSystemInfo.status.nodeInfo.kubeletVersion of "
                 "type string", id="node-status"),
    # item 6 (part): a namespace of the wrong type is a decode error, not "default"
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: 0}\nspec:\n  containers: [{name: c, image: i}]\n",
                 "Pod", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string",
                 id="namespace-int"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: [p]\n", "Pod",
                 "json: cannot unmarshal array into Go struct field Pod.metadata of type v1.ObjectMeta", id="metadata-list"),
    # item 3: numbers as Go reads them
    pytest.param("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                 "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, count: 1180591620717411303424}}]}}\n",
                 "ResourceClaim", "json: cannot unmarshal number 1.1805916207174113e+21 into Go struct field "
                 "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64 "
                 "(spec.devices.requests[0].exactly.count)", id="count-beyond-int64"),
    pytest.param(SLICE + "  devices: [{name: d, attributes: {cores: {int: 1180591620717411303424}}}]\n", "ResourceSlice",
                 "json: cannot unmarshal number 1.1805916207174113e+21 into Go struct field "
                 "DeviceAttribute.spec.devices.attributes.int of type int64 (spec.devices[0].attributes.cores.int)",
                 id="int-attribute-beyond-int64"),
    pytest.param("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                 "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, count: 2.5}}]}}\n",
                 "ResourceClaim", "json: cannot unmarshal number 2.5 into Go struct field "
                 "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64", id="count-fraction"),
    # a type error wins over unknown fields (serializer/json: strict errors only when decoding succeeded)
    pytest.param(_pod("bogus: 1\ntolerations: 5\n"), "Pod",
                 "json: cannot unmarshal number into Go struct field PodSpec.spec.tolerations", id="type-error-wins"),
    # an UnmarshalJSON error ends decoding: it wins over a type error met before it
    pytest.param(POD + "spec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: lots}}}]\n  hostNetwork: 1\n",
                 "Pod", "quantities must match the regular expression", id="quantity-error-ends-decoding"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: yesterday}\n"
                 "spec:\n  containers: [{name: c, image: i}]\n", "Pod",
                 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006" '
                 "(metadata.creationTimestamp)", id="bad-time"),
]


@pytest.mark.parametrize(("manifest", "kind", "message"), TYPE_ERRORS)
def test_wrong_types_are_decode_errors(tmp_path, capsys, manifest, kind, message):
    code, out, err = run(tmp_path, capsys, NODE, manifest)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(f"error: {tmp_path}/01.yaml#1: " + CANNOT.format(kind=kind))
    assert message in err


@pytest.mark.parametrize(("manifest", "message"), [
    pytest.param("apiVersion: [v1]\nkind: Pod\nmetadata: {name: p}\n", "Object 'apiVersion' is missing", id="apiversion-list"),
    pytest.param("apiVersion: {v: 1}\nkind: Pod\nmetadata: {name: p}\n", "Object 'apiVersion' is missing", id="apiversion-map"),
    pytest.param("apiVersion: v1\nkind: [Pod]\nmetadata: {name: p}\n", "Object 'Kind' is missing", id="kind-list"),
    pytest.param("apiVersion: v1\nkind: {Pod: 1}\nmetadata: {name: p}\n", "Object 'Kind' is missing", id="kind-map"),
])
def test_type_and_version_of_the_wrong_type(tmp_path, capsys, manifest, message):
    """kubectl reads apiVersion and kind as strings; anything else is missing (unstructured GetKind)."""
    code, out, err = run(tmp_path, capsys, manifest)
    assert code == 1 and "Traceback" not in err and message in err and str(tmp_path) in err


@pytest.mark.parametrize(("manifest", "kind", "fields"), [
    pytest.param(POD + "spec:\n  containers: [{name: c, image: i, resources: {claims: [{name: g, requst: r}]}}]\n"
                 "  resourceClaims: [{name: g, resourceClaimName: c}]\n", "Pod",
                 'unknown field "spec.containers[0].resources.claims[0].requst"', id="pod-container"),
    pytest.param(POD + "spec:\n  containers: [{name: c, image: i}]\nstatus: {phase: Pending, podIp: 10.0.0.1}\n", "Pod",
                 'unknown field "status.podIp"', id="pod-status"),
    pytest.param(NODE + "  capacityy: {cpu: '8'}\n", "Node", 'unknown field "status.capacityy"', id="node-status"),
    pytest.param("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\nspec: {finalizer: [kubernetes]}\n", "Namespace",
                 'unknown field "spec.finalizer"', id="namespace-spec"),
    pytest.param(_pod("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                      "[{matchExpressions: [{key: k, operator: In, value: [v]}]}]}}}\n"), "Pod",
                 'unknown field "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.'
                 'nodeSelectorTerms[0].matchExpressions[0].value"', id="pod-affinity"),
])
def test_unknown_fields_at_every_depth(tmp_path, capsys, manifest, kind, fields):
    code, out, err = run(tmp_path, capsys, NODE, manifest)
    assert code == 1 and out == "" and "Traceback" not in err
    assert CANNOT.format(kind=kind) + "strict decoding error: " + fields in err


@pytest.mark.parametrize(("manifest", "message"), [
    pytest.param("apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nspec: {taints: [{key: k, effect: NoRun}]}\n",
                 'Node "n2" is invalid: spec.taints[0].effect: Unsupported value: "NoRun": supported values: '
                 '"NoSchedule", "PreferNoSchedule", "NoExecute"', id="taint-effect"),
    pytest.param(_pod("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                      "[{matchExpressions: [{key: k, operator: Like, values: [v]}]}]}}}\n"),
                 'Pod "p" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.'
                 'nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Like": not a valid selector '
                 "operator", id="node-affinity-operator"),
    pytest.param(_pod("tolerations: [{key: k, operator: Maybe}]\n"),
                 'Pod "p" is invalid: spec.tolerations[0].operator: Unsupported value: "Maybe": supported values: '
                 '"Equal", "Exists"', id="toleration-operator"),
    pytest.param("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\nspec: {finalizers: [bogus]}\n",
                 'Namespace "ns1" is invalid: spec.finalizers: Invalid value: "bogus": name is neither a standard '
                 "finalizer name nor is it fully qualified", id="namespace-finalizer"),
])
def test_enumerations_checked_where_the_api_server_checks_them(tmp_path, capsys, manifest, message):
    code, out, err = run(tmp_path, capsys, NODE, manifest)
    assert code == 1 and out == "" and "Traceback" not in err and err.count("\n") == 1
    assert message in err


def test_whole_float_decodes_into_an_int_field(tmp_path, capsys):
    """YAML `2e0` is a float to go-yaml; kubectl sends it as 2 and the count is 2."""
    code, out, err = run(tmp_path, capsys, NODE, """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: c}
        spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, allocationMode: ExactCount, count: 2e0}}]}}
        """)
    assert code == 0, err
    claim = next(o for o in json.loads(out)["items"] if o["kind"] == "ResourceClaim")
    count = claim["spec"]["devices"]["requests"][0]["exactly"]["count"]
    assert count == 2 and isinstance(count, int)


def test_huge_quantity_exponent_is_accepted_compared_and_printed(tmp_path, capsys):
    """ParseQuantity accepts 1e1000000; CEL compares it, the output prints it (no int-to-str limit)."""
    code, out, err = run(tmp_path, capsys, NODE, """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: g}
        spec:
          selectors:
          - cel: {expression: 'device.capacity["gpu.example.com"].mem.compareTo(quantity("1Gi")) > 0'}
        """, SLICE + "  devices:\n  - {name: big, capacity: {mem: {value: 1e1000000}}}\n"
                     "  - {name: small, capacity: {mem: {value: 1Mi}}}\n", """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: c}
        spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}}]}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers: [{name: c, image: i, resources: {claims: [{name: g}]}}]
          resourceClaims: [{name: g, resourceClaimName: c}]
        """)
    assert code == 0, err
    claim = next(o for o in json.loads(out)["items"] if o["kind"] == "ResourceClaim")
    assert [r["device"] for r in claim["status"]["allocation"]["devices"]["results"]] == ["big"]


def test_snapshot_pod_with_full_status_runs(tmp_path, capsys):
    """Every PodSpec and PodStatus field v1.37 defines decodes (a `kubectl get -o yaml` pod)."""
    code, out, err = run(tmp_path, capsys, NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: default, uid: 0b0e, creationTimestamp: "2026-01-01T00:00:00Z"}
        spec:
          nodeName: node-1
          containers:
          - name: c
            image: i
            imagePullPolicy: IfNotPresent
            ports: [{containerPort: 80, protocol: TCP}]
            env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
            livenessProbe: {httpGet: {path: /, port: http}, periodSeconds: 10}
            resources: {requests: {cpu: 100m}}
            securityContext: {runAsUser: 1000, capabilities: {drop: [ALL]}}
            volumeMounts: [{name: v, mountPath: /v}]
          volumes: [{name: v, emptyDir: {sizeLimit: 1Gi}}]
          tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
          topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]
        status:
          phase: Running
          conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:00:01Z"}]
          containerStatuses:
          - name: c
            ready: true
            restartCount: 0
            image: i
            imageID: ""
            state: {running: {startedAt: "2026-01-01T00:00:01Z"}}
          podIP: 10.0.0.5
          podIPs: [{ip: 10.0.0.5}]
          startTime: "2026-01-01T00:00:00Z"
        """)
    assert code == 0, err


def test_plain_scalars_are_typed_as_go_yaml_types_them(tmp_path, capsys):
    """kubectl's YAML reader (go-yaml v2): `1:30` is a string (no base 60), `y` a bool, 0o17 an int."""
    code, out, err = run(tmp_path, capsys, NODE, POD + """
spec:
  containers:
  - name: c
    image: i
    env: [{name: AT, value: 1:30}]
    securityContext: {privileged: y}
    ports: [{containerPort: 0o17}]
""")
    assert code == 0, err
    pod = next(o for o in json.loads(out)["items"] if o["kind"] == "Pod")
    container = pod["spec"]["containers"][0]
    assert container["env"][0]["value"] == "1:30" and container["securityContext"]["privileged"] is True
    assert container["ports"][0]["containerPort"] == 15


def test_norway_is_a_bool_to_kubectl(tmp_path, capsys):
    """A label value `NO` is false to go-yaml, so the API server refuses it as a string field's value."""
    code, out, err = run(tmp_path, capsys, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {country: NO}}\n"
                                           "spec:\n  containers: [{name: c, image: i}]\n")
    assert code == 1 and "Traceback" not in err
    assert ("json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string "
            "(metadata.labels.country)") in err
