"""The bundled examples, end to end, with the outcome v1.37 reaches."""
import json
from pathlib import Path

import pytest

from drasim.api.loader import load_paths
from drasim.cli.main import main
from drasim.controlplane import ControlPlane

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def settle(*phases: Path) -> ControlPlane:
    cp = ControlPlane()
    for phase in phases:
        cp.run_phase(load_paths([phase]))
    return cp


def devices(claim: dict) -> list[str]:
    return [f"{r['driver']}/{r['pool']}/{r['device']}"
            for r in claim["status"]["allocation"]["devices"]["results"]]


def claim_of(cp: ControlPlane, pod: dict, entry: str | None = None) -> dict:
    ns = pod["metadata"]["namespace"]
    if entry is None:
        name = pod["status"]["extendedResourceClaimStatus"]["resourceClaimName"]
    else:
        name = next(s["resourceClaimName"] for s in pod["status"]["resourceClaimStatuses"] if s["name"] == entry)
    return cp.store.get("ResourceClaim", ns, name)


def test_gpu_64gi_picks_only_64gi_devices():
    """The seed: a template selecting memory == quantity("64Gi") gets the 64Gi GPUs, never the 80Gi ones."""
    cp = settle(EXAMPLES / "gpu-64gi" / "cluster.yaml", EXAMPLES / "gpu-64gi" / "workload.yaml")
    pods = {p["metadata"]["name"]: p for p in cp.store.list("Pod")}
    got = sorted(devices(claim_of(cp, pods[n], "gpu"))[0] for n in ("trainer-0", "trainer-1"))
    assert got == ["driver.example.com/gpu-node-1/gpu-1", "driver.example.com/gpu-node-1/gpu-3"]
    assert pods["trainer-2"]["spec"].get("nodeName") is None
    cond = next(c for c in pods["trainer-2"]["status"]["conditions"] if c["type"] == "PodScheduled")
    # As kube-scheduler words it: Filter reasons, then DynamicResources' and DefaultPreemption's PostFilter.
    assert cond["message"] == ("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
                               "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


@pytest.mark.parametrize(("example", "resource", "count"), [
    pytest.param("extended-resource-explicit", "example.com/gpu", 1, id="explicit"),
    pytest.param("extended-resource-implicit", "deviceclass.resource.kubernetes.io/gpu.example.com", 2, id="implicit"),
])
def test_extended_resource_examples(example, resource, count):
    """An unchanged pod asking for an extended resource gets a scheduler-written claim (KEP-5004)."""
    cp = settle(EXAMPLES / example / "cluster.yaml", EXAMPLES / example / "workload.yaml")
    pod = cp.store.get("Pod", "default", "demo")
    assert pod["spec"]["nodeName"] == "gpu-node-1" and pod["status"]["phase"] == "Running"
    status = pod["status"]["extendedResourceClaimStatus"]
    assert status["requestMappings"] == [
        {"containerName": "demo", "resourceName": resource, "requestName": "container-0-request-0"}]
    claim = claim_of(cp, pod)
    assert claim["metadata"]["name"].startswith("demo-extended-resources-")
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert claim["metadata"]["ownerReferences"][0]["uid"] == pod["metadata"]["uid"]
    assert [r["name"] for r in claim["spec"]["devices"]["requests"]] == ["container-0-request-0"]
    assert len(devices(claim)) == count
    cdi = json.loads(pod["metadata"]["annotations"]["dra.drasim.io/cdi-devices"])
    assert len(cdi["demo"]) == count


def test_taint_maintenance_procedure():
    """None dry run reports; switching to NoExecute evicts the intolerant pod; the rule ends Completed."""
    d = EXAMPLES / "taint-maintenance"
    cp = settle(d / "00-cluster.yaml", d / "01-dry-run.yaml")
    rule = cp.store.get("DeviceTaintRule", None, "node-1-maintenance")
    cond = rule["status"]["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"]) == ("EvictionInProgress", "False", "NoEffect")
    assert cond["message"].startswith("3 published devices selected. 2 allocated devices selected. "
                                      "1 pod would be evicted in 1 namespace if the effect was NoExecute.")
    assert {p["metadata"]["name"] for p in cp.store.list("Pod")} == {"worker", "forever"}

    cp.run_phase(load_paths([d / "02-no-execute.yaml"]))
    assert {p["metadata"]["name"] for p in cp.store.list("Pod")} == {"forever"}
    cond = cp.store.get("DeviceTaintRule", None, "node-1-maintenance")["status"]["conditions"][0]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "Completed", "1 pod evicted since starting the controller.")
    assert "device_taint_eviction_controller_pod_deletions_total 1.0" in cp.metrics.exposition()
    # The evicted pod's template claim is deallocated and deleted with it.
    assert [c["metadata"]["name"].startswith("forever-") for c in cp.store.list("ResourceClaim")] == [True]


def test_taint_dryrun_command(capsys):
    """drasim taint-dryrun answers which pods go, and whether they could land elsewhere now."""
    d = EXAMPLES / "taint-maintenance"
    code = main(["taint-dryrun", str(d / "02-no-execute.yaml"), "--cluster", str(d / "00-cluster.yaml"),
                 "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [p["pod"] for p in out["evictedPods"]] == ["default/worker"]
    assert [p["pod"] for p in out["toleratingPods"]] == ["default/forever"]
    # Every GPU of the node is tainted: the re-created worker cannot get one.
    assert out["rescheduled"][0]["node"] is None
    assert "cannot allocate all claims" in out["rescheduled"][0]["reason"]


def test_simulation_is_deterministic(capsys):
    """The same input gives byte-identical output."""
    args = ["simulate", str(EXAMPLES / "gpu-64gi"), "-o", "json"]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(("rule", "needle"), [
    pytest.param("spec: {taint: {key: example.com/k, effect: Bogus}}",
                 'spec.taint.effect: Unsupported value: "Bogus"', id="bad-effect"),
    pytest.param("spec: []", 'DeviceTaintRule in version "v1" cannot be handled as a DeviceTaintRule: json: cannot '
                 "unmarshal array into Go struct field DeviceTaintRule.spec of type v1.DeviceTaintRuleSpec",
                 id="spec-not-object"),
])
def test_taint_dryrun_validates_the_rule(tmp_path, capsys, rule, needle):
    """The rule is admitted like any create before the dry run, whatever it would evict."""
    p = tmp_path / "rule.yaml"
    p.write_text(f"apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {{name: r}}\n{rule}\n")
    code = main(["taint-dryrun", str(p), "--cluster", str(EXAMPLES / "taint-maintenance" / "00-cluster.yaml")])
    err = capsys.readouterr().err
    assert code == 1 and needle in err and "Traceback" not in err
