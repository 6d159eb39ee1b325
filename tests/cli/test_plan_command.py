"""`drasim plan`: node counts found by simulation, mixes by cost, pods no pool serves."""
import json
from pathlib import Path

import yaml

from drasim.api import kinds
from drasim.api.loader import Document, load_paths
from drasim.cli.main import main
from drasim.cli.plan import load_candidates
from drasim.controlplane import ControlPlane
from drasim.hardware import generate
from drasim.plan.scaleout import plan

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plan-training"
SNAPSHOT = [str(EXAMPLE / "cluster.yaml"), str(EXAMPLE / "workload.yaml")]

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
"""
TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: gpus-{n}, namespace: default}}
spec:
  spec:
    devices:
      requests: [{{name: g, exactly: {{deviceClassName: {cls}, count: {n}}}}}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  resourceClaims: [{{name: g, resourceClaimTemplateName: gpus-{n}}}]
  containers: [{{name: c, image: i, resources: {{claims: [{{name: g}}]}}}}]
"""
POOLS = """pools:
- {name: gpu-8x, cost: 30, drivers: [{example-gpu: {gpus: 8}}]}
- {name: gpu-4x, cost: 14, drivers: [{example-gpu: {gpus: 4}}]}
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_forty_training_pods_need_forty_eight_gpu_nodes(capsys):
    """The bundled example; then a simulation with that fleet added schedules every pod."""
    assert main(["plan", *SNAPSHOT, "--pool", str(EXAMPLE / "pools.yaml"), "-o", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["baseline_pending"]) == 40
    assert result["best"]["add"] == {"gpu-8x": 40} and result["best"]["cost"] == 1200
    assert result["coverage"]["gpu-4x"]["serves"] == 0
    assert "cannot allocate all claims" in result["coverage"]["gpu-4x"]["cannotServe"]["why"]
    pool = dict(yaml.safe_load((EXAMPLE / "pools.yaml").read_text())["pools"][0], name="added", count=40)
    pool.pop("cost")
    extra = [o for o in generate({"pools": [pool]}) if o["kind"] != "DeviceClass"]
    cp = ControlPlane()
    cp.apply(load_paths(SNAPSHOT) + [Document("added", kinds.BY_KIND[o["kind"]], o) for o in extra])
    cp.settle()
    assert all(p["spec"].get("nodeName") for p in cp.store.list("Pod"))


def test_a_cheaper_mix_of_two_pools(tmp_path):
    """Two 8-GPU and two 4-GPU pods: 2 × gpu-8x + 2 × gpu-4x (88) beats 3 × gpu-8x (90)."""
    docs = [CLASS, TEMPLATE.format(n=8, cls="gpu.example.com"), TEMPLATE.format(n=4, cls="gpu.example.com")]
    docs += [POD.format(name=f"big-{i}", n=8) for i in range(2)] + [POD.format(name=f"small-{i}", n=4) for i in range(2)]
    snapshot = write(tmp_path, "snap.yaml", "---\n".join(docs))
    result = plan(load_paths([snapshot]), load_candidates([write(tmp_path, "pools.yaml", POOLS)]))
    assert result.best["add"] == {"gpu-8x": 2, "gpu-4x": 2} and result.best["cost"] == 88
    singles = {tuple(a["add"].items()): a for a in result.answers if len(a["add"]) == 1}
    assert singles[(("gpu-8x", 3),)]["cost"] == 90 and not singles[(("gpu-8x", 3),)]["pending"]
    assert len(singles[(("gpu-4x", 2),)]["pending"]) == 2   # the 4-GPU pool alone leaves the big pods


def test_pods_no_pool_can_serve_are_named_with_the_reason(tmp_path, capsys):
    """The fpga pod's class exists nowhere: no pool helps it, the plan says why and exits 1
    (some pods stay Pending), while the 8-GPU pod still gets its node."""
    docs = [CLASS, TEMPLATE.format(n=2, cls="fpga.example.com"), POD.format(name="fpga", n=2),
            TEMPLATE.format(n=8, cls="gpu.example.com"), POD.format(name="big", n=8)]
    snapshot = write(tmp_path, "snap.yaml", "---\n".join(docs))
    assert main(["plan", snapshot, "--pool", write(tmp_path, "pools.yaml", POOLS), "-o", "json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["best"]["add"] == {"gpu-8x": 1}
    assert set(result["unservable"]) == {"default/fpga"}
    assert "fpga.example.com" in result["unservable"]["default/fpga"]["gpu-8x"]


def test_nothing_pending_needs_nothing(tmp_path, capsys):
    snapshot = write(tmp_path, "snap.yaml", CLASS)
    assert main(["plan", snapshot, "--pool", write(tmp_path, "pools.yaml", POOLS)]) == 0
    assert "0 pod(s) pending" in capsys.readouterr().out


def test_bad_pool_files_are_clear_errors(tmp_path, capsys):
    snapshot = write(tmp_path, "snap.yaml", CLASS)
    bad = write(tmp_path, "pools.yaml", "pools:\n- {name: a, cost: -1, drivers: [{example-gpu: {}}]}\n")
    assert main(["plan", snapshot, "--pool", bad]) == 1
    assert "pools.yaml: pools[0].cost: must be a number >= 0" in capsys.readouterr().err
    bad = write(tmp_path, "pools2.yaml", "pools:\n- {name: a}\n- {name: b, drivers: [{example-gpu: {gpuz: 1}}]}\n")
    assert main(["plan", snapshot, "--pool", bad]) == 1
    assert "pools2.yaml: pools[1].drivers[0].example-gpu: unknown field 'gpuz'" in capsys.readouterr().err


JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  completions: {count}
  parallelism: {count}
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{{name: g, resourceClaimTemplateName: gpus-{n}}}]
      containers: [{{name: c, image: i, resources: {{claims: [{{name: g}}]}}}}]
"""


def test_pods_with_generated_names_are_the_same_pods_in_every_run(tmp_path):
    """A Job's pods are named by its controller: with candidate nodes added, they are still the
    baseline's pods (the nodes were once generated first, the pods drew other names, and every
    baseline pod counted as served by any pool). Here an 8-GPU pool serves the 8-GPU Job, a
    4-GPU pool does not."""
    docs = [CLASS, TEMPLATE.format(n=8, cls="gpu.example.com"), JOB.format(name="train", count=2, n=8)]
    snapshot = write(tmp_path, "snap.yaml", "---\n".join(docs))
    result = plan(load_paths([snapshot]), load_candidates([write(tmp_path, "pools.yaml", POOLS)]))
    pending = sorted(result.baseline_pending)
    assert len(pending) == 2 and all(p.startswith("default/train-") for p in pending)
    assert result.coverage["gpu-4x"]["serves"] == 0 and result.coverage["gpu-8x"]["serves"] == 2
    assert result.best["add"] == {"gpu-8x": 2} and result.best["pending"] == {}
    assert result.unservable == {}
    assert not any(set(a["add"]) == {"gpu-4x"} for a in result.answers)   # the 4-GPU pool alone is no answer
