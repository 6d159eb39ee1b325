"""An edited snapshot is refused in the API server's words, with the fast readers and the
validation memo in the path: one line naming the file, the object and the field; exit 1.

The snapshot is the settled gpu-64gi example written as JSON and as kubectl-style YAML (read
by the line reader, yamlblock); one pod is edited after pods of the same spec were admitted
(so the memo holds their clean checks), and the message must be the memo-off one."""
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
