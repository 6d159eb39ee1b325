"""`drasim sweep`: scenarios expanded, run locally (1 and 2 processes) and on Ray alike,
aggregated, resumable, and a failed scenario recorded without ending the sweep."""
import json

import pytest

from drasim.cli.main import main
from drasim.plan import sweep as sweep_mod
from drasim.plan.sweep import SweepError, aggregate, load_spec, scenario_id
from drasim.plan.sweep_runner import run_sweep

CLUSTER = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: four, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: g, exactly: {deviceClassName: gpu.example.com, count: 4}}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default}}
spec:
  resourceClaims: [{{name: g, resourceClaimTemplateName: four}}]
  containers: [{{name: c, image: i, resources: {{claims: [{{name: g}}]}}}}]
"""
POOLS = "pools:\n- {name: gpu, count: 2, drivers: [{example-gpu: {gpus: 8}}]}\n"


@pytest.fixture
def spec_path(tmp_path):
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "workload.yaml").write_text("---\n".join(POD.format(i=i) for i in range(6)))
    (tmp_path / "pools.yaml").write_text(POOLS)
    path = tmp_path / "sweep.yaml"
    path.write_text("cluster: cluster.yaml\nworkload: [workload.yaml]\npools: pools.yaml\n"
                    "vary:\n  seed: [0, 1]\n  fleet: [0.5, 1.0]\n  arrival: [as-written, shuffled]\n")
    return path


def test_scenarios_are_the_product_of_the_dimensions(spec_path):
    spec = load_spec(str(spec_path))
    scenarios = spec.scenarios()
    assert len(scenarios) == 8
    assert len({scenario_id(s) for s in scenarios}) == 8
    assert all(s["taintFraction"] == 0.0 and s["featureGates"] == {} for s in scenarios)


def test_local_run_measures_each_scenario(spec_path):
    """Six 4-GPU pods: one 8-GPU node (fleet 0.5 of 2) takes two; two nodes take four."""
    records = run_sweep(load_spec(str(spec_path)))
    by = {(r["scenario"]["fleet"], r["scenario"]["seed"], r["scenario"]["arrival"]): r["result"] for r in records}
    assert {k: v["pending"] for k, v in by.items() if k[0] == 0.5} == dict.fromkeys(
        [(0.5, s, a) for s in (0, 1) for a in ("as-written", "shuffled")], 4)
    assert all(v["pending"] == 2 and v["utilisation"] == 1.0 for k, v in by.items() if k[0] == 1.0)
    rows = aggregate(records)
    assert len(rows) == 4 and all(r["runs"] == 2 and r["failed"] == 0 for r in rows)


def test_two_processes_and_one_agree(spec_path):
    spec = load_spec(str(spec_path))
    one = [r["result"] for r in run_sweep(spec)]
    two = [r["result"] for r in run_sweep(spec, workers=2)]
    assert one == two


def test_results_folder_makes_a_sweep_resumable(spec_path, tmp_path, monkeypatch):
    spec = load_spec(str(spec_path))
    results = tmp_path / "results"
    first = run_sweep(spec, results=results)
    assert len(list(results.glob("*.json"))) == 8
    calls = []
    monkeypatch.setattr(sweep_mod, "run_scenario", lambda *a: calls.append(a))
    import drasim.plan.sweep_runner as runner
    monkeypatch.setattr(runner, "run_scenario", lambda *a: calls.append(a))
    again = run_sweep(spec, results=results)
    assert calls == [] and again == first


def test_a_failed_scenario_is_recorded_and_the_sweep_goes_on(spec_path, monkeypatch, capsys):
    import drasim.plan.sweep_runner as runner
    real = runner.run_scenario

    def flaky(spec, scenario):
        if scenario["seed"] == 1 and scenario["fleet"] == 1.0:
            raise ZeroDivisionError("boom")
        return real(spec, scenario)
    monkeypatch.setattr(runner, "run_scenario", flaky)
    records = run_sweep(load_spec(str(spec_path)))
    failed = [r for r in records if "error" in r]
    assert len(failed) == 2 and all(r["error"] == "ZeroDivisionError: boom" for r in failed)
    assert sum(1 for r in records if "result" in r) == 6


def test_cli_json_and_exit_status(spec_path, capsys):
    assert main(["sweep", str(spec_path), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["scenarios"]) == 8 and len(out["groups"]) == 4


@pytest.mark.parametrize("text, message", [
    ("vary: {seed: [0]}\n", "cluster: required"),
    ("cluster: c.yaml\nvary: {seeds: [0]}\n", "unknown dimension 'seeds'"),
    ("cluster: c.yaml\nvary: {taintFraction: [2]}\n", "vary.taintFraction: 2 is not a fraction from 0 to 1"),
    ("cluster: c.yaml\nvary: {arrival: [random]}\n", "is not as-written or shuffled"),
    ("cluster: c.yaml\nworkers: 3\n", "unknown field 'workers'"),
])
def test_bad_specs_are_clear_errors(tmp_path, text, message):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    with pytest.raises(SweepError, match=message):
        load_spec(str(path))


def test_ray_runs_the_same_sweep(spec_path):
    """A local Ray instance (ray.init in the runner) gives the same results as local processes."""
    pytest.importorskip("ray")
    spec = load_spec(str(spec_path))
    on_ray = [r["result"] for r in run_sweep(spec, ray_address="local")]
    assert on_ray == [r["result"] for r in run_sweep(spec)]
