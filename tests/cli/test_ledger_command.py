"""`drasim ledger`: what each namespace's device counts bought, on the bundled examples."""
import csv
import io
import json
from pathlib import Path

import pytest

from drasim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MIG = [str(ROOT / "examples" / "ledger-mig" / f) for f in ("cluster.yaml", "workload.yaml")]
QUOTA = [str(ROOT / "examples" / "quota-three-keys" / f) for f in ("cluster.yaml", "workload.yaml")]
SHARED_NIC = sorted(str(p) for p in (ROOT / "tests" / "conformance" / "cases" / "alloc-consumable-capacity-share")
                    .glob("0*.yaml"))


def ledger_json(capsys, phases):
    assert main(["ledger", *phases, "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return {b["namespace"]: b for b in out["namespaces"]}, out["notes"]


def test_a_mig_slice_and_a_whole_gpu_both_count_one_but_differ(capsys):
    books, notes = ledger_json(capsys, MIG)
    a, b = books["team-a"], books["team-b"]
    assert a["quota"]["gpus"] == b["quota"]["gpus"] == {"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "1 / 2"}
    assert a["hardware"] == [{"kind": "whole", "model": "NVIDIA H100 80GB HBM3", "devices": 1}]
    assert b["hardware"] == [{"kind": "partition", "model": "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "devices": 1}]
    assert (a["memoryGiB"], b["memoryGiB"]) == (80.0, 10.0)
    # The partition takes 14 of 98 multiprocessors and 10Gi of 80Gi: its largest share is 1/7.
    assert a["wholeDeviceEquivalents"] == 1.0
    assert b["wholeDeviceEquivalents"] == pytest.approx(14 / 98, abs=1e-4)
    assert b["entries"][0]["numa"] == "1"
    assert len(notes) == 1 and "buys different hardware" in notes[0] and "team-a" in notes[0] and "team-b" in notes[0]


def test_device_plugin_devices_are_counted_without_hardware(capsys):
    """KEP-5004's five GPUs: one from the device plugin (hardware unknown to DRA), four DRA devices."""
    books, _ = ledger_json(capsys, QUOTA)
    research = books["research"]
    assert research["devices"] == 5
    kinds = sorted(e["kind"] for e in research["entries"])
    assert kinds == ["device-plugin", "whole", "whole", "whole", "whole"]
    assert research["quota"]["gpus"]["requests.example.com/gpu"] == "5 / 6"


def test_a_shared_device_counts_the_share_it_consumed(capsys):
    """Consumable capacity: a claim that consumed 4 of a NIC's 10 bandwidth is 0.4 of it."""
    books, _ = ledger_json(capsys, SHARED_NIC)
    shares = sorted((e["claim"], e["kind"], e["share"]) for e in books["default"]["entries"])
    assert shares == [("bw-a", "shared", 0.4), ("bw-b", "shared", 0.4)]


def test_csv_for_chargeback(capsys):
    assert main(["ledger", *MIG, "-o", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["namespace"], r["kind"], r["memory_bytes"]) for r in rows] == [
        ("team-a", "whole", str(80 * 1024 ** 3)), ("team-b", "partition", str(10 * 1024 ** 3))]
    assert rows[0]["device_class"] == "gpu.nvidia.com"


def test_table_says_one_count_buys_different_hardware(capsys):
    assert main(["ledger", *MIG]) == 0
    out = capsys.readouterr().out
    assert "whole-device equivalents".upper() in out
    assert "note: one count under gpu.nvidia.com.deviceclass.resource.k8s.io/devices buys different hardware" in out


def test_ledger_over_a_replayed_trace(capsys):
    """--trace: device-hours and GiB-hours per namespace over the timeline, next to the end state."""
    week = ROOT / "examples" / "week"
    assert main(["ledger", str(week / "cluster.yaml"), "--trace", str(week / "trace.yaml"), "-o", "json"]) == 0
    books = {b["namespace"]: b for b in json.loads(capsys.readouterr().out)["namespaces"]}
    notebooks, train = books["team-notebooks"]["overTime"], books["team-train"]["overTime"]
    # A MIG slice has 10Gi, a whole H100 80Gi: the same "1" per device-hour buys 8x the memory.
    assert notebooks["memoryGiBHours"] == pytest.approx(10 * notebooks["deviceHours"])
    assert train["memoryGiBHours"] == pytest.approx(80 * train["deviceHours"])
