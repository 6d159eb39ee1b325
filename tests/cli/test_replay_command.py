"""`drasim replay`: pods arrive and finish on the virtual clock; device-hours and waits by hand."""
import json

import pytest

from drasim.api.loader import load_paths
from drasim.cli.main import main
from drasim.plan.timeline import load_trace, replay, summary

kubelet = pytest.importorskip("drasim.node.kubelet")
if not hasattr(kubelet, "RUN_FOR_ANNOTATION"):
    pytest.skip("the simulated kubelet does not finish pods (drasim.io/run-for)", allow_module_level=True)

CLUSTER = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: job}
spec:
  restartPolicy: Never
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(POD)
    return tmp_path


def run(files, trace_text, name="trace.yaml"):
    (files / name).write_text(trace_text)
    t = replay([load_paths([files / "cluster.yaml"])], load_trace(str(files / name)))
    return t, summary(t)


def test_device_hours_and_waits_by_hand(files):
    """Two GPUs. a: two 1h pods at 0; b: one 30m pod at 10m waits for a GPU until a finishes
    (about 50 minutes), then runs 30 minutes. Device-hours: a 2, b 0.5."""
    t, s = run(files, "jobs:\n"
               "- {name: a, at: 0s, pod: pod.yaml, count: 2, runFor: 1h}\n"
               "- {name: b, at: 10m, pod: pod.yaml, count: 1, runFor: 30m}\n")
    ns = s["namespaces"]["default"]
    assert ns["pods"] == 3 and ns["scheduled"] == 3 and ns["neverScheduled"] == 0
    assert ns["deviceHours"] == pytest.approx(2.5, abs=0.01)
    b = t.pods["default/b-0"]
    assert b.bound - b.created == pytest.approx(50 * 60, abs=10)
    assert b.finished - b.bound == pytest.approx(30 * 60, abs=10)
    assert s["deviceHoursByClass"] == {"gpu.example.com": pytest.approx(2.5, abs=0.01)}
    assert s["utilisation"] == pytest.approx(2.5 / (2 * s["duration"] / 3600), abs=0.01)
    assert s["utilisationByClass"]["gpu.example.com"] == pytest.approx(s["utilisation"], abs=0.01)
    waits = s["timeToScheduleByClass"]["gpu.example.com"]
    assert waits["p99"] == pytest.approx(50 * 60, abs=10) and waits["p50"] < 10


def test_csv_trace_and_a_scheduled_event(files):
    """The CSV form; a NoSchedule rule at 5m on one GPU makes the second job wait for the other."""
    (files / "rule.yaml").write_text("""apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-a, device: gpu-1}
  taint: {key: k, effect: NoSchedule}
""")
    (files / "trace.csv").write_text("name,at,namespace,pod,count,runFor\nfirst,0s,default,pod.yaml,1,1h\n"
                                     "second,10m,default,pod.yaml,1,1h\n")
    trace = load_trace(str(files / "trace.csv"))
    from drasim.plan.timeline import Event
    trace.events.append(Event(300.0, tuple(load_paths([files / "rule.yaml"]))))
    t = replay([load_paths([files / "cluster.yaml"])], trace)
    first, second = t.pods["default/first-0"], t.pods["default/second-0"]
    assert second.bound >= first.finished - 1   # gpu-1 is tainted: second waits for gpu-0


def test_until_stops_the_clock(files):
    t, s = run(files, "jobs:\n- {name: a, at: 0s, pod: pod.yaml, count: 1, runFor: 10h}\n")
    assert t.end - t.start == pytest.approx(10 * 3600, abs=10)
    (files / "trace2.yaml").write_text("jobs:\n- {name: a, at: 0s, pod: pod.yaml, count: 1, runFor: 10h}\n")
    t = replay([load_paths([files / "cluster.yaml"])], load_trace(str(files / "trace2.yaml")), until=3600)
    assert t.end - t.start == pytest.approx(3600, abs=2)
    assert t.pods["default/a-0"].finished is None


def test_cli_json_and_bad_traces(files, capsys):
    (files / "trace.yaml").write_text("jobs:\n- {name: a, at: 0s, pod: pod.yaml, count: 1, runFor: 1h}\n")
    assert main(["replay", str(files / "trace.yaml"), "--cluster", str(files / "cluster.yaml"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["namespaces"]["default"]["deviceHours"] == pytest.approx(1.0, abs=0.01) and out["samples"]
    (files / "bad.yaml").write_text("jobs:\n- {name: a, at: soon, pod: pod.yaml}\n")
    assert main(["replay", str(files / "bad.yaml"), "--cluster", str(files / "cluster.yaml")]) == 1
    assert 'bad.yaml: jobs[0].at: time: invalid duration "soon"' in capsys.readouterr().err
    (files / "bad2.yaml").write_text("jobs:\n- {name: a, pod: missing.yaml}\n")
    assert main(["replay", str(files / "bad2.yaml"), "--cluster", str(files / "cluster.yaml")]) == 1
    assert "missing.yaml" in capsys.readouterr().err


def test_bundled_timeline_example(capsys):
    from pathlib import Path
    ex = Path(__file__).resolve().parents[2] / "examples" / "timeline"
    assert main(["replay", str(ex / "trace.yaml"), "--cluster", str(ex / "cluster.yaml"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["namespaces"]["team-a"]["neverScheduled"] == 0 and out["namespaces"]["team-b"]["neverScheduled"] == 0


def test_bundled_week_on_a_mixed_fleet(capsys):
    """examples/week: 200 jobs over a week on 12 whole-GPU and 4 MIG nodes; every job finishes
    within the week plus its run time, MIG slices and whole GPUs are accounted apart."""
    from pathlib import Path
    ex = Path(__file__).resolve().parents[2] / "examples" / "week"
    t = replay([load_paths([ex / "cluster.yaml"])], load_trace(str(ex / "trace.yaml")))
    s = summary(t)
    assert sum(ns["pods"] for ns in s["namespaces"].values()) == 200
    assert sum(ns["neverScheduled"] for ns in s["namespaces"].values()) == 0
    assert set(s["deviceHoursByClass"]) == {"gpu.nvidia.com", "mig.nvidia.com"}
    assert s["namespaces"]["team-notebooks"]["deviceHours"] == pytest.approx(s["deviceHoursByClass"]["mig.nvidia.com"])
    assert all(rec.finished is not None for rec in t.pods.values())
