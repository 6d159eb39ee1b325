"""`drasim explain`: a what-if scheduling cycle for one pod, every node, nothing written."""
import json
from pathlib import Path

from drasim.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_pending_pod_reasons_per_node(capsys):
    """The pending 64Gi trainer: the one node is rejected by DynamicResources, with its reason."""
    assert main(["explain", "trainer-2", "--cluster", str(EXAMPLES / "gpu-64gi"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["node"] is None
    assert out["nodes"] == [{"node": "gpu-node-1", "fits": False, "plugin": "DynamicResources",
                             "reason": "cannot allocate all claims", "scores": {}, "total": None}]


def test_bound_pod_is_evaluated_as_if_placed_again(capsys):
    """A bound pod's claim keeps its devices: the node holding them still fits, and nothing changes."""
    cluster = [str(EXAMPLES / "gpu-64gi")]
    assert main(["explain", "default/trainer-0", "--cluster", *cluster, "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["node"] == "gpu-node-1" and out["nodes"][0]["fits"] is True


def test_unknown_pod_is_a_clear_error(capsys):
    """A pod that does not exist: one line, exit 1."""
    assert main(["explain", "nope", "--cluster", str(EXAMPLES / "gpu-64gi")]) == 1
    assert 'pods "nope" not found in namespace "default"' in capsys.readouterr().err


def test_malformed_pod_reference_is_a_clear_error(capsys):
    for ref in ("a/b/c", "default/"):
        assert main(["explain", ref, "--cluster", str(EXAMPLES / "gpu-64gi")]) == 1
        assert "a pod is named NAME or NAMESPACE/NAME" in capsys.readouterr().err


def test_a_workload_name_given_for_a_pod_names_the_pods_made_from_it(tmp_path, capsys):
    """`drasim explain train` for a Job train: not found, and the pods its controller named train-…"""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  completions: 2\n  parallelism: 2\n"
        "  template:\n    spec:\n      restartPolicy: Never\n"
        "      containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: 1}}}]\n")
    cluster = [str(EXAMPLES / "gpu-64gi" / "cluster.yaml"), str(tmp_path / "job.yaml")]
    assert main(["simulate", *cluster, "-o", "json"]) == 0
    pods = sorted(o["metadata"]["name"] for o in json.loads(capsys.readouterr().out)["items"] if o["kind"] == "Pod")
    assert main(["explain", "train", "--cluster", *cluster]) == 1
    err = capsys.readouterr().err
    assert err == (f'error: pods "train" not found in namespace "default"; pods whose names start with "train-": '
                   f"{', '.join(pods)}\n")
    assert main(["explain", pods[0], "--cluster", *cluster]) == 0
