"""Tables for people: terminal width, summary of large clusters, evicted and held pods, the
device view, and what a failing later phase shows."""
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from drasim.cli import view
from drasim.cli.main import main
from tests.cli import clusters

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TAINT = EXAMPLES / "taint-maintenance"
TAINT_PHASES = [str(TAINT / f) for f in ("00-cluster.yaml", "01-dry-run.yaml", "02-no-execute.yaml")]


def write(tmp_path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def column_text(out: str, title: str, col: int) -> list[str]:
    """The cells of column `col` of the table titled `title`, each cell's folded lines joined
    (a row starts where the first column is not blank)."""
    lines = out.split("\n")
    start = lines.index(title) + 3
    cells: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        parts = [p.strip() for p in line.split("│")]
        if parts[0]:
            cells.append("")
        cells[-1] += parts[col] if col < len(parts) else ""
    return cells


@pytest.fixture
def crowded(tmp_path):
    """2 nodes × 2 GPUs, 60 pods: 4 run; most wait for a GPU, some also ask for too much cpu."""
    text = clusters.cluster(2, gpus=2, pool="a100-pool")
    work = clusters.pods(55) + clusters.pods(5, prefix="big", cpu="64")
    return [write(tmp_path, "cluster.yaml", text), write(tmp_path, "pods.yaml", work)]


def test_width_80_no_line_longer(crowded, capsys, monkeypatch):
    """COLUMNS=80: no line of any table is wider, and a folded reason is whole, not cut."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "simulate", *crowded, "-o", "wide", "--show", "all")
    assert code == 0, err
    assert max(map(len, out.splitlines())) <= 80
    code, js, _ = run(capsys, "simulate", *crowded, "-o", "json")
    pending = {f"{p['metadata']['namespace']}/{p['metadata']['name']}": view.condition(p, "PodScheduled")
               for p in json.loads(js)["items"] if p["kind"] == "Pod" and not p["spec"].get("nodeName")}
    shown = column_text(out, "Pending pods", 1)
    want = [f"{c['reason']}: {c['message']}".replace(" ", "") for c in pending.values()]
    assert [cell.replace(" ", "") for cell in shown] == want


@pytest.mark.parametrize("argv", [
    pytest.param(["explain", "trainer-2", "--cluster", str(EXAMPLES / "gpu-64gi")], id="explain"),
    pytest.param(["quota", str(EXAMPLES / "quota-three-keys")], id="quota"),
    pytest.param(["taint-dryrun", str(TAINT / "02-no-execute.yaml"), "--cluster", str(TAINT / "00-cluster.yaml")],
                 id="taint-dryrun"),
])
def test_width_80_other_commands(capsys, monkeypatch, argv):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert max(map(len, out.splitlines())) <= 80


def test_large_cluster_summary_groups_pending_reasons(crowded, capsys):
    """Above 50 pods: pods by phase, devices per node pool and class, identical reasons counted."""
    code, js, _ = run(capsys, "simulate", *crowded, "-o", "json")
    pods = [p for p in json.loads(js)["items"] if p["kind"] == "Pod"]
    reasons = Counter(f"{view.condition(p, 'PodScheduled')['reason']}: {view.condition(p, 'PodScheduled')['message']}"
                      for p in pods if not p["spec"].get("nodeName"))
    assert len(reasons) >= 2            # the fixture has two kinds of pending pod
    code, out, err = run(capsys, "simulate", *crowded)
    assert code == 0, err
    flat = re.sub(r"\s+", " ", out)
    running = sum(1 for p in pods if p["spec"].get("nodeName"))
    assert flat.startswith(f"60 pods ({running} Running, {60 - running} Pending); 2 nodes;")
    for reason, n in reasons.items():
        assert f"{n} pods: {reason}" in flat
    assert re.search(r"a100-pool +│ gpu.example.com +│ 2 +│ 4/4 +│ gpu: 4\n", out)
    assert "Pods\n" not in out          # no row per pod unless asked
    code, out, _ = run(capsys, "simulate", *crowded, "--show", "pods")
    assert out.startswith("Pods\n") and "default   │ p-54" in out


def test_small_cluster_has_every_table(capsys):
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "gpu-64gi"))
    assert code == 0
    assert [t for t in ("Pods", "Pending pods", "ResourceClaims") if f"\n{t}\n" in "\n" + out] == \
        ["Pods", "Pending pods", "ResourceClaims"]


def test_show_rejects_unknown_tables(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", str(EXAMPLES / "gpu-64gi"), "--show", "pods,bogus"])
    assert "bogus: choose from summary" in capsys.readouterr().err


def test_evicted_pods_are_listed(capsys):
    """The pod the device taint eviction controller deleted is listed as Evicted with the reason
    and the device it had; -o json, the List contract, leaves it out."""
    code, out, _ = run(capsys, "simulate", *TAINT_PHASES, "--show", "pods,pending")
    assert code == 0
    assert re.search(r"default +│ worker +│ node-1 │ Evicted │ worker-gpu-\w+: gpu.example.com/node-1/gpu-0", out)
    assert "default/worker │ node-1 │ DeletionByDeviceTaintManager: Device Taint manager: deleting due to NoExecute" \
        in out
    code, js, _ = run(capsys, "simulate", *TAINT_PHASES, "-o", "json")
    assert "worker" not in {o["metadata"]["name"] for o in json.loads(js)["items"] if o["kind"] == "Pod"}


def test_held_pods_are_pending_with_a_reason(tmp_path, capsys):
    """A pod whose claim does not exist has no node: it is in the Pending table, with whatever
    reason the control plane left (condition, event) or "waiting to be scheduled"."""
    missing = clusters.gpu_pod("orphan").replace("resourceClaimTemplateName: one-gpu", "resourceClaimName: nope")
    phases = [write(tmp_path, "c.yaml", clusters.cluster(1)), write(tmp_path, "p.yaml", missing)]
    code, out, err = run(capsys, "simulate", *phases, "--show", "pending")
    assert code == 0, err
    [reason] = column_text(out, "Pending pods", 1)
    assert column_text(out, "Pending pods", 0) == ["default/orphan"] and reason


@pytest.mark.parametrize(("conditions", "events", "want"), [
    pytest.param([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}],
                 [{"type": "Warning", "reason": "FailedScheduling", "message": "older", "lastTimestamp": "1"}],
                 "Unschedulable: 0/1 nodes", id="condition-first"),
    pytest.param([], [{"type": "Warning", "reason": "A", "message": "old", "lastTimestamp": "2026-01-01T00:00:01Z"},
                      {"type": "Warning", "reason": "B", "message": "new", "lastTimestamp": "2026-01-01T00:00:02Z"},
                      {"type": "Normal", "reason": "C", "message": "normal", "lastTimestamp": "2026-01-01T00:00:03Z"}],
                 "B: new", id="newest-warning-event"),
    pytest.param([], [], view.WAITING, id="nothing-yet"),
])
def test_pending_reason_sources(conditions, events, want):
    pod = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": {},
           "status": {"conditions": conditions}}
    evs = [dict(e, kind="Event", metadata={"name": f"e{i}", "namespace": "default"},
                involvedObject={"kind": "Pod", "name": "p", "namespace": "default", "uid": "u"})
           for i, e in enumerate(events)]
    [row] = view.pod_rows(view.Cluster.of([pod, *evs]))
    assert (row.phase, row.reason) == ("Pending", want)


def test_device_view(tmp_path, capsys):
    """--show devices: per node, each device, the claim and pod it serves, and its taints (the
    slice's and the DeviceTaintRules')."""
    code, out, err = run(capsys, "simulate", *TAINT_PHASES[:2], "--show", "devices,nodes", "-o", "wide")
    assert code == 0, err
    columns = [column_text(out, "Devices", i) for i in range(8)]
    rows = {r[1]: r for r in zip(*columns)}
    assert set(rows) == {"gpu.example.com/node-1/gpu-0", "gpu.example.com/node-1/gpu-1", "gpu.example.com/node-1/gpu-2"}
    claims = {rows[d][2] for d in rows}
    assert "(free)" in claims and any(c.startswith("default/worker-gpu-") for c in claims)
    assert all(rows[d][5] == "example.com/maintenance=firmware:None (rule node-1-maintenance)" for d in rows)
    worker = next(r for r in rows.values() if r[2].startswith("default/worker-gpu-"))
    assert worker[3] == "default/worker" and worker[7] == "gpu.example.com"
    assert re.search(r"node-1 │ \(no node pool label\) │ 2 +│ 2/3", out)


def test_failing_later_phase_shows_last_good_state(tmp_path, capsys):
    """Phase 2 is refused: the table shows the state after phase 1, then the error (exit 1);
    json prints nothing, so no script mistakes it for the answer."""
    good = write(tmp_path, "1.yaml", clusters.cluster(1) + clusters.pods(1))
    bad = write(tmp_path, "2.yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Bad_Name}\n")
    code, out, err = run(capsys, "simulate", good, bad)
    assert code == 1
    header, tables = out.split("\n\n", 1)
    assert " ".join(header.split()) == f"State after phase 1 ({good}); phase 2 ({bad}) was not applied:"
    assert tables.startswith("Pods\n")
    assert "│ p-0  │ node-0 │ Running │" in out
    assert err.startswith("error: ") and 'DeviceClass.resource.k8s.io "Bad_Name" is invalid' in err
    for fmt in ("json", "yaml"):
        assert run(capsys, "simulate", good, bad, "-o", fmt)[:2] == (1, "")


def test_explain_cluster_then_pod(tmp_path, capsys):
    """`explain --cluster a.yaml b.yaml POD`: the last value that is not a file is the pod."""
    gpu = EXAMPLES / "gpu-64gi"
    code, out, err = run(capsys, "explain", "--cluster", str(gpu / "cluster.yaml"), str(gpu / "workload.yaml"),
                         "trainer-2", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["pod"] == "default/trainer-2"
    code, out2, _ = run(capsys, "explain", "-o", "json", "-f", str(gpu / "cluster.yaml"), "trainer-2",
                        "-f", str(gpu / "workload.yaml"))
    assert code == 0 and out2 == out
    with pytest.raises(SystemExit):
        main(["explain", "--cluster", str(gpu / "cluster.yaml"), str(gpu / "workload.yaml")])
    assert "required: POD" in capsys.readouterr().err


def test_taint_dryrun_cluster_then_rule(capsys):
    code, out, err = run(capsys, "taint-dryrun", "--cluster", TAINT_PHASES[0], TAINT_PHASES[2], "-o", "json")
    assert code == 0, err
    assert json.loads(out)["rule"] == "node-1-maintenance"
    assert run(capsys, "taint-dryrun", TAINT_PHASES[2], "--cluster", TAINT_PHASES[0], "-o", "json")[1] == out



def test_device_view_shows_consumed_capacity_of_a_shared_device(capsys):
    """One device shared by two claims (DRAConsumableCapacity): a row per claim with what it consumes."""
    case = Path(__file__).resolve().parents[1] / "conformance" / "cases" / "alloc-consumable-capacity-share"
    code, out, err = run(capsys, "simulate", *sorted(str(p) for p in case.glob("0*.yaml")), "--show", "devices")
    assert code == 0, err
    columns = [column_text(out, "Devices", i) for i in range(5)]
    shared = [(claim, pods, consumed) for _, dev, claim, pods, consumed in zip(*columns)
              if dev == "nic.example.com/node-1/nic-0"]
    assert shared == [("default/bw-a", "default/pod-a", "bandwidth=4"), ("default/bw-b", "default/pod-b", "bandwidth=4")]
