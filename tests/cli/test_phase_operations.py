"""`drasim simulate` with PhaseOperations phases: bad operations are one line and exit 1, nothing
applied; good ones leave only real objects in the -o json List."""
import json
import textwrap
from pathlib import Path

import pytest

from drasim.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "deployment-gpu"
OPS = "apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\n"


def run(tmp_path, capsys, *phases):
    paths = []
    for i, phase in enumerate(phases):
        if isinstance(phase, Path):
            paths.append(str(phase))
            continue
        p = tmp_path / f"{i:02d}.yaml"
        p.write_text(textwrap.dedent(phase))
        paths.append(str(p))
    code = main(["simulate", *paths, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("ops, needle", [
    ("delete: [{kind: Deployment, name: demo, cascade: sideways}]",
     'delete[0].cascade: Unsupported value: "sideways": supported values: "background", "foreground", "orphan"'),
    ("scale: [{kind: Deployment, name: demo}]", "scale[0].replicas: Required value"),
    ("scale: [{kind: Deployment, name: demo, replicas: -1}]",
     'Scale.autoscaling "demo" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    ("scale: [{kind: Pod, name: demo, replicas: 1}]", "pods has no scale subresource"),
    ("delete: [{kind: Deployment, name: other}]", 'deployments.apps "other" not found'),
    ("remove: []", 'strict decoding error: unknown field "remove"'),
])
def test_bad_operations_are_one_line_and_change_nothing(tmp_path, capsys, ops, needle):
    code, out, err = run(tmp_path, capsys, EXAMPLE / "00-cluster.yaml", EXAMPLE / "01-deployment.yaml",
                         OPS + ops + "\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: late}\n")
    assert code == 1 and out == ""
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_example_phases_print_only_real_objects(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys, *sorted(EXAMPLE.glob("*.yaml")))
    assert code == 0, err
    state = json.loads(out)
    assert state["kind"] == "List"
    kinds = {o["kind"] for o in state["items"]}
    assert "PhaseOperations" not in kinds and "Pod" not in kinds and "Deployment" not in kinds
