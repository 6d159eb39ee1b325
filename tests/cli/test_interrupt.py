"""Ctrl-C (SIGINT) ends any command with status 130 and no traceback; bench keeps what finished."""
import json
import signal
import subprocess
import time

import pytest

from tests.cli import clusters
from tests.cli.clusters import command
from tests.unit.bench.test_runner import TEMPLATES, TINY


def interrupt_after(proc: subprocess.Popen, marker: str, timeout: float = 60) -> tuple[str, str]:
    """Wait for `marker` on stderr (the command is under way), then send SIGINT; return (stdout, stderr)."""
    seen = []
    deadline = time.monotonic() + timeout
    for line in proc.stderr:
        seen.append(line)
        if marker in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=timeout)
    return out, "".join(seen) + err


def test_simulate_ctrl_c(tmp_path):
    """A simulation of thousands of pods, interrupted while it settles: 130, nothing but a clean exit."""
    (tmp_path / "cluster.yaml").write_text(clusters.cluster(300, gpus=4))
    marker = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: marker, namespace: default}\n---\n"
    (tmp_path / "pods.yaml").write_text(marker + clusters.pods(6000))
    proc = subprocess.Popen(command("simulate", str(tmp_path / "cluster.yaml"), str(tmp_path / "pods.yaml")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The skip warning is printed once everything is read, just before the phases run.
    out, err = interrupt_after(proc, "ConfigMap default/marker is not simulated")
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.endswith("drasim: interrupted\n") and out == ""


@pytest.fixture
def two_workloads(tmp_path):
    (tmp_path / "templates").mkdir()
    for name, text in TEMPLATES.items():
        (tmp_path / "templates" / name).write_text(text)
    config = TINY.replace("  - name: unlabelled\n    params: {nodes: 1, pods: 1}",
                          "  - name: huge\n    labels: [performance]\n    params: {nodes: 400, pods: 20000, devices: 50}")
    assert "huge" in config
    (tmp_path / "performance-config.yaml").write_text(config)
    return tmp_path / "performance-config.yaml"


def test_bench_ctrl_c_prints_finished_workloads(two_workloads):
    """bench interrupted during its second workload: the first one's record is printed, status 130."""
    proc = subprocess.Popen(command("bench", str(two_workloads), "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupt_after(proc, "finished Tiny/small/test")
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert [r["name"] for r in json.loads(out)] == ["Tiny/small/test"]
    assert "interrupted after 1 finished workload(s)" in err
