"""ControlPlane.apply(owned=True): documents handed over are admitted without the defensive
copy — the same stored objects as with it; without `owned`, the documents are left as read."""
import copy

import pytest

from drasim.api.loader import load_paths
from drasim.cli import render
from drasim.controlplane import ControlPlane
from tests.scenarios.test_examples import EXAMPLES, settle

EXAMPLE_PHASES = [["gpu-64gi/cluster.yaml", "gpu-64gi/workload.yaml"],
                  [f"deployment-gpu/{f}" for f in ("00-cluster.yaml", "01-deployment.yaml", "02-scale-up.yaml", "03-delete.yaml")],
                  ["gang-training/cluster.yaml", "gang-training/training.yaml", "gang-training/free-gpu.yaml"]]


def run(paths, owned: bool) -> tuple[ControlPlane, list]:
    cp = ControlPlane()
    phases = [load_paths([EXAMPLES / p]) for p in paths]
    for docs in phases:
        cp.run_phase(docs, owned=owned)
    return cp, phases


@pytest.mark.parametrize("paths", EXAMPLE_PHASES, ids=lambda p: p[0])
def test_owned_documents_give_the_same_cluster(paths):
    plain, _ = run(paths, owned=False)
    owned, _ = run(paths, owned=True)
    assert render.render_json(owned.objects(include_events=True)) == render.render_json(plain.objects(include_events=True))


@pytest.mark.parametrize("paths", EXAMPLE_PHASES, ids=lambda p: p[0])
def test_documents_not_handed_over_are_left_as_read(paths):
    cp = ControlPlane()
    phases = [load_paths([EXAMPLES / p]) for p in paths]
    read = copy.deepcopy([[d.obj for d in docs] for docs in phases])
    for docs in phases:
        cp.run_phase(docs)
    cp.run_phase(phases[0])   # again: an update of every object, from the same documents
    assert [[d.obj for d in docs] for docs in phases] == read


def test_a_snapshot_applied_owned_replays_as_before(tmp_path):
    first = settle(EXAMPLES / "gpu-64gi" / "cluster.yaml", EXAMPLES / "gpu-64gi" / "workload.yaml")
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(render.render_json(first.objects()))
    second, third = ControlPlane(), ControlPlane()
    second.run_phase(load_paths([snapshot]), owned=True)
    third.run_phase(load_paths([snapshot]))
    assert render.render_json(second.objects()) == render.render_json(third.objects())
