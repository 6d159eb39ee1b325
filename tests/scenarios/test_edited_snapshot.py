"""An edited snapshot is refused in the API server's words, with the fast readers and the
validation memo in the path: one line naming the file, the object and the field; exit 1.

The snapshot is the settled gpu-64gi example written as JSON and as kubectl-style YAML (read
by the line reader, yamlblock); one pod is edited after pods of the same spec were admitted
(so the memo holds their clean checks), and the message must be the memo-off one."""
import copy

import pytest

from drasim.api import yamlblock
from drasim.api.loader import KubeYAMLLoader
from drasim.api.validation import memo
from drasim.cli import render
from drasim.cli.main import main
from tests.scenarios.test_examples import EXAMPLES, settle


def snapshot_with_a_bad_pod(tmp_path, form: str):
    cp = settle(EXAMPLES / "gpu-64gi" / "cluster.yaml", EXAMPLES / "gpu-64gi" / "workload.yaml")
    objects = cp.objects()
    pods = [o for o in objects if o["kind"] == "Pod"]
    bad = pods[-1]
    bad["spec"]["containers"][0]["name"] = "Not_A_Label"
    path = tmp_path / f"snapshot.{form}"
    path.write_text(render.render_json(objects) if form == "json" else render.render_yaml(objects))
    return path, bad["metadata"]["name"], len(pods)


def refusal(path, capsys, memo_on: bool) -> tuple[int, str]:
    saved = memo.ENABLED
    memo.ENABLED = memo_on
    memo.clear()
    try:
        code = main(["simulate", str(path), "-o", "json"])
    finally:
        memo.ENABLED = saved
        memo.clear()
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_an_edited_pod_is_refused_naming_file_object_and_field(tmp_path, capsys, form):
    path, name, pods = snapshot_with_a_bad_pod(tmp_path, form)
    assert pods > 1   # pods of the same spec come before the edited one
    if form == "yaml":
        assert yamlblock.load(path.read_text(), KubeYAMLLoader) is not None   # the line reader read it
    code, err = refusal(path, capsys, memo_on=True)
    assert code == 1 and (code, err) == refusal(path, capsys, memo_on=False)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    line = lines[0]
    assert str(path) in line and f'Pod "{name}" is invalid' in line
    assert 'spec.containers[0].name: Invalid value: "Not_A_Label"' in line


def _drop_device(claim):
    del claim["status"]["allocation"]["devices"]["results"][0]["device"]


def _bad_pool(slice_):
    slice_["spec"]["pool"]["name"] = "Bad_Pool!"


def _bad_capacity(node):
    node["status"]["capacity"]["cpu"] = "-1"


def _bad_node_name(pod):
    pod["spec"]["nodeName"] = "Bad_Node"


def _bad_label_value(pod):
    pod["metadata"]["labels"] = {"app": "x" * 64}


@pytest.mark.parametrize("kind, edit, field", [
    ("ResourceClaim", _drop_device, "status.allocation.devices.results[0].device: Required value"),
    ("ResourceSlice", _bad_pool, "spec.pool.name: Invalid value"),
    ("Node", _bad_capacity, "status.capacity.cpu: Invalid value"),
    ("Pod", _bad_node_name, 'spec.nodeName: Invalid value: "Bad_Node"'),
    ("Pod", _bad_label_value, "metadata.labels: Invalid value"),
], ids=["claim-status", "slice-pool", "node-capacity", "pod-node-name", "pod-label-value"])
def test_other_edits_are_refused_after_clean_objects_of_their_kind(tmp_path, capsys, kind, edit, field):
    """The checks the fast paths skip or remember (a created pod's status shape after decoding,
    a slice's device list, a node's capacity, names and label values read off the patterns)
    still refuse the last object of its kind when edited, after the others were admitted clean."""
    cp = settle(EXAMPLES / "gpu-64gi" / "cluster.yaml", EXAMPLES / "gpu-64gi" / "workload.yaml")
    objects = cp.objects()
    of_kind = [o for o in objects if o["kind"] == kind and (kind != "ResourceClaim" or (o.get("status") or {}).get("allocation"))]
    bad = of_kind[-1]
    if len(of_kind) == 1:   # one node, one slice: a clean twin admitted first
        twin = copy.deepcopy(bad)
        twin["metadata"]["name"] += "-twin"
        twin["metadata"].pop("uid", None)
        objects.insert(objects.index(bad), twin)
    edit(bad)
    path = tmp_path / "snapshot.json"
    path.write_text(render.render_json(objects))
    code, err = refusal(path, capsys, memo_on=True)
    assert code == 1 and (code, err) == refusal(path, capsys, memo_on=False)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    assert str(path) in lines[0] and f'"{bad["metadata"]["name"]}" is invalid' in lines[0] and field in lines[0], lines[0]
