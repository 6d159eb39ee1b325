"""`drasim simulate --metrics`: the v1.37 DRA metrics in Prometheus text format."""
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from drasim.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quota-three-keys"


def samples(path: Path) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(path.read_text()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_dra_metrics(tmp_path, capsys):
    """Claim creates are counted for template and extended-resource claims; the claims gauge has a source."""
    metrics = tmp_path / "metrics.txt"
    assert main(["simulate", str(EXAMPLE / "cluster.yaml"), str(EXAMPLE / "workload.yaml"),
                 "-o", "json", "--metrics", str(metrics)]) == 0
    got = samples(metrics)
    assert got[("dynamic_resource_allocation_resourceclaim_creates_total",
                (("admin_access", "false"), ("status", "success")))] == 3
    claims = "dynamic_resource_allocation_resource_claims"
    assert got[(claims, (("admin_access", "false"), ("allocated", "true"), ("source", "extended_resource")))] == 2
    assert got[(claims, (("admin_access", "false"), ("allocated", "true"), ("source", "resource_claim_template")))] == 1
    assert got[(claims, (("admin_access", "false"), ("allocated", "true"), ("source", "")))] == 1
    assert got[("scheduler_pending_pods", (("queue", "unschedulable"),))] == 0
    assert got[("scheduler_schedule_attempts_total", (("profile", "default-scheduler"), ("result", "scheduled")))] == 5
    assert not any(name.endswith("_created") for name, _ in got)
