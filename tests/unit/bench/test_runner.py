"""End to end: a tiny config through the runner, and the shared config's `fast` workload."""
from pathlib import Path

import pytest

from drasim.bench import Selection, load_config, run_config

TINY = """
- name: Tiny
  featureGates:
    DRAPrioritizedList: true
    SchedulerQueueingHints: true
  workloadTemplate:
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-dra-test-driver.yaml
    countParam: $nodes
  - opcode: createAny
    templatePath: templates/slice.yaml
    countParam: $nodes
    templateParams:
      numDevices: $devices|3
  - opcode: createAny
    templatePath: templates/class.yaml
  - opcode: createAny
    templatePath: templates/claimtemplate.yaml
    namespace: test
  - opcode: createPods
    namespace: test
    countParam: $pods
    podTemplatePath: templates/pod.yaml
    collectMetrics: true
  workloads:
  - name: small
    labels: [performance]
    threshold: {dra: 1}
    params: {nodes: 2, pods: 6}
  - name: unlabelled
    params: {nodes: 1, pods: 1}
"""

TEMPLATES = {
    "node-with-dra-test-driver.yaml": """apiVersion: v1
kind: Node
metadata:
  name: scheduler-perf-dra-{{ .Index }}
status:
  capacity: {pods: "110", cpu: "4", memory: 32Gi}
  conditions: [{type: Ready, status: "True"}]
""",
    "slice.yaml": """{{$n := or .numDevices 10}}
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: slice-{{.Index}}
spec:
  driver: test-driver.cdi.k8s.io
  nodeName: scheduler-perf-dra-{{.Index}}
  pool: {name: pool-{{.Index}}, generation: 1, resourceSliceCount: 1}
  devices:{{range ($n | Int)}}
  - name: dev-{{.}}{{end}}
""",
    "class.yaml": """apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata:
  name: test-class
spec:
  selectors:
  - cel:
      expression: device.driver == "test-driver.cdi.k8s.io"
""",
    "claimtemplate.yaml": """apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: test-claim-template
spec:
  spec:
    devices:
      requests:
      - name: req-0
        deviceClassName: test-class
""",
    "pod.yaml": """apiVersion: v1
kind: Pod
metadata:
  generateName: test-dra-
spec:
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10.1
    resources:
      claims: [{name: resource}]
  resourceClaims:
  - name: resource
    resourceClaimTemplateName: test-claim-template
""",
}


@pytest.fixture
def tiny_config(tmp_path: Path) -> Path:
    (tmp_path / "templates").mkdir()
    for name, text in TEMPLATES.items():
        (tmp_path / "templates" / name).write_text(text)
    path = tmp_path / "performance-config.yaml"
    path.write_text(TINY)
    return path


def test_tiny_config_end_to_end(tiny_config):
    """Two DRA nodes × 3 devices, 6 pods with a claim template each: all 6 are bound; one record."""
    records = run_config(load_config(tiny_config))
    assert len(records) == 1   # `unlabelled` does not pass the default `performance` filter
    r = records[0]
    assert (r["name"], r["status"], r["error"]) == ("Tiny/small/test", "ok", None)
    m = r["metrics"]
    assert m["PodsScheduled"] == 6 and m["PodsUnschedulable"] == 0
    assert m["OverallThroughput"] > 0 and m["SchedulingDuration"] > 0
    assert (r["threshold"], r["topic"]) == (1.0, "dra")
    # Far too short for two 1 s ticks: no SchedulingThroughput; OverallThroughput is the figure.
    assert m["SchedulingThroughput"] is None and m["ThroughputSamples"] == 0
    assert m["Throughput"] == {"value": m["OverallThroughput"], "from": "OverallThroughput"}
    assert r["passed"] is True
    assert any("too short for two of scheduler_perf's 1 s ticks" in n for n in r["notes"])
    assert "SchedulerQueueingHints" in r["notes"][0]
    assert any("converted from resource.k8s.io/v1beta1" in n for n in r["notes"])


def test_every_pod_and_claim_takes_the_whole_write_path(tiny_config):
    """Like scheduler_perf's API server: each pod the op creates and each claim the resourceclaim
    controller makes from a template is decoded, defaulted, validated and admitted."""
    [r] = run_config(load_config(tiny_config))
    m = r["metrics"]
    assert m["Created"] == {"Pod": 6, "ResourceClaim": 6}
    assert m["Admitted"] == m["Created"]


def test_a_claim_the_controller_makes_is_validated():
    """A template whose claim the API server would refuse yields no claim and an Event."""
    from drasim.controlplane import ControlPlane, Options

    cp = ControlPlane(Options())
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "t", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}}}})
    # Stored behind the write path's back: a template whose claim spec is invalid.
    template = cp.store.get("ResourceClaimTemplate", "default", "t")
    spec = {"devices": {"requests": [{"name": "R!", "exactly": {"deviceClassName": "c"}}]}}
    cp.store.update(dict(template, spec={"spec": spec}))
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "g"}]}}],
                        "resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}]}})
    cp.settle()
    assert cp.store.list("ResourceClaim") == []
    assert cp.admitted["ResourceClaim"] == 0
    [event] = [e for e in cp.store.list("Event") if e.get("reason") == "FailedResourceClaimCreation"]
    assert 'is invalid: spec.devices.requests[0].name: Invalid value: "R!"' in event["message"]


def test_named_workload_runs_regardless_of_labels(tiny_config):
    """--workload TESTCASE/WORKLOAD runs even an unlabelled workload."""
    records = run_config(load_config(tiny_config), Selection(("Tiny/unlabelled",)))
    assert [(r["name"], r["metrics"]["PodsScheduled"]) for r in records] == [("Tiny/unlabelled/test", 1)]


def test_unknown_workload_is_an_error(tiny_config):
    """Naming a workload the config lacks lists the known ones."""
    from drasim.bench import ConfigError
    with pytest.raises(ConfigError, match="known: Tiny/small, Tiny/unlabelled"):
        run_config(load_config(tiny_config), Selection(("Tiny/nope",)))


def test_more_pods_than_devices_fails_cleanly(tiny_config):
    """A burst that can never finish fails the workload with a message, not a traceback."""
    text = tiny_config.read_text().replace("params: {nodes: 1, pods: 1}", "params: {nodes: 1, pods: 4}")
    tiny_config.write_text(text)
    [r] = run_config(load_config(tiny_config), Selection(("Tiny/unlabelled",)))
    assert r["status"] == "failed" and "op 4 (createPods)" in r["error"]
    assert r["metrics"]["PodsUnschedulable"] == 1


SHARED = Path("/work/shared/benchmarks/scheduler_perf/dra/performance-config.yaml")


@pytest.mark.skipif(not SHARED.is_file(), reason="shared scheduler_perf configs not available")
def test_shared_fast_workload():
    """The real config's SchedulingWithResourceClaimTemplate/fast: 10 pods bound on 1 DRA node."""
    [r] = run_config(load_config(SHARED), Selection(("SchedulingWithResourceClaimTemplate/fast",)))
    assert (r["status"], r["error"]) == ("ok", None)
    assert r["metrics"]["PodsScheduled"] == 10 and r["metrics"]["PodsUnschedulable"] == 0


def test_steady_state_barrier_and_sleep(tiny_config):
    """Steady state replaces each bound pod (pods scheduled exceed count); skipWaitToCompletion
    with a later barrier and a virtual-time sleep also run."""
    text = tiny_config.read_text().replace("""  - opcode: createPods
    namespace: test
    countParam: $pods
    podTemplatePath: templates/pod.yaml
    collectMetrics: true""", """  - opcode: createPods
    namespace: warm
    count: 1
    podTemplatePath: templates/pod.yaml
    skipWaitToCompletion: true
  - opcode: barrier
  - opcode: sleep
    duration: 5s
  - opcode: createAny
    templatePath: templates/claimtemplate.yaml
    namespace: warm2
  - opcode: createPods
    namespace: test
    countParam: $pods
    steadyState: true
    duration: 300ms
    podTemplatePath: templates/pod.yaml
    collectMetrics: true""").replace("""  - opcode: createAny
    templatePath: templates/claimtemplate.yaml
    namespace: test
""", """  - opcode: createAny
    templatePath: templates/claimtemplate.yaml
    namespace: test
  - opcode: createAny
    templatePath: templates/claimtemplate.yaml
    namespace: warm
""")
    tiny_config.write_text(text)
    [r] = run_config(load_config(tiny_config), Selection(("Tiny/small",)))
    assert (r["status"], r["error"]) == ("ok", None)
    assert r["metrics"]["PodsScheduled"] > 6
    assert r["metrics"]["SchedulingDuration"] >= 0.3


@pytest.mark.parametrize(("text", "needle"), [
    pytest.param("- name: T\n  workloads: [fast]\n", "workloads[0] must be an object with a name", id="workload-not-object"),
    pytest.param("- name: T\n  workloads: {name: w}\n", "workloads must be a list", id="workloads-not-list"),
    pytest.param("- name: T\n  workloads: [{name: w, params: [1]}]\n", "params must be a mapping", id="params-list"),
    pytest.param("- name: T\n  workloads: [{name: w, labels: performance}]\n", "labels must be a list of strings",
                 id="labels-string"),
    pytest.param("- name: T\n  workloads: [{name: w, threshold: fast}]\n", "threshold must be a number",
                 id="threshold-string"),
    pytest.param("a: 1\n---\nb: 2\n", "invalid YAML at line", id="two-documents"),
])
def test_malformed_configs_are_config_errors(tmp_path, text, needle):
    from drasim.bench.config import ConfigError
    p = tmp_path / "performance-config.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        load_config(p)


@pytest.mark.parametrize(("params", "message"), [
    ("{nodes: 1000000000000, pods: 1}",
     "op 0: createNodes: countParam $nodes is 1000000000000: drasim bench creates at most 1000000 objects per op"),
    ("{nodes: 1, pods: .inf}", "op 4: parameter pods: expected a number, got inf"),
    ("{nodes: -1, pods: 1}", "op 0: createNodes: countParam $nodes must be >= 0, got -1"),
])
def test_absurd_counts_are_refused_before_anything_runs(tiny_config, capsys, params, message):
    """A count that could never finish (or is no count) is an error naming op and field, at once."""
    from drasim.cli.main import main
    text = tiny_config.read_text().replace("params: {nodes: 1, pods: 1}", f"params: {params}")
    tiny_config.write_text(text)
    code = main(["bench", str(tiny_config), "--workload", "Tiny/unlabelled", "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err
    import json
    [record] = json.loads(out)
    assert (record["status"], record["error"]) == ("error", message)
