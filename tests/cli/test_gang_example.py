"""examples/gang-training through `drasim simulate -o json` (the issue's acceptance example)."""
import json
from pathlib import Path

import pytest

from drasim.cli.main import main

EX = Path(__file__).resolve().parents[2] / "examples" / "gang-training"


def run(capsys, *files, gate=True):
    argv = ["simulate", *(str(EX / f) for f in files), "-o", "json"]
    if gate:
        argv.append("--feature-gates=GenericWorkload=true")
    assert main(argv) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    workers = [i for i in items if i["kind"] == "Pod" and i["metadata"]["name"].startswith("train-")]
    claims = [i for i in items if i["kind"] == "ResourceClaim" and i["metadata"]["name"].startswith("train-")]
    return workers, claims


@pytest.mark.parametrize("files, gate, running", [
    (("cluster.yaml", "training.yaml"), True, 0),
    (("cluster.yaml", "training.yaml"), False, 7),
    (("cluster.yaml", "training.yaml", "free-gpu.yaml"), True, 8),
])
def test_eight_workers_all_or_nothing(capsys, files, gate, running):
    workers, claims = run(capsys, *files, gate=gate)
    assert len(workers) == 8
    assert sum(1 for w in workers if w["spec"].get("nodeName")) == running
    assert sum(1 for c in claims if (c.get("status") or {}).get("allocation")) == running   # no GPU held by a partial gang


def test_explain_names_the_gang(capsys):
    """A worker that would fit alone: explain says which group holds it back."""
    assert main(["simulate", str(EX / "cluster.yaml"), str(EX / "training.yaml"), "-o", "json",
                 "--feature-gates=GenericWorkload=true"]) == 0
    worker = next(i["metadata"]["name"] for i in json.loads(capsys.readouterr().out)["items"]
                  if i["kind"] == "Pod" and i["metadata"]["name"].startswith("train-0"))
    assert main(["explain", "--cluster", str(EX / "cluster.yaml"), str(EX / "training.yaml"), f"default/{worker}",
                 "--feature-gates=GenericWorkload=true"]) == 0
    out = capsys.readouterr().out
    assert "gang: PodGroup default/train needs 8 pods placed together; 8 exist, 0 bound" in out
    assert "waiting for minCount pods from a gang to be scheduled" in out
