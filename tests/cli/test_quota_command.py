"""`drasim quota` and quota admission, on the bundled KEP-5004 example."""
import json
from pathlib import Path

from drasim.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quota-three-keys"
PHASES = [str(EXAMPLE / "cluster.yaml"), str(EXAMPLE / "workload.yaml")]


def test_three_keys_side_by_side(capsys):
    """Five GPUs: 5 under the extended name, 4 under the implicit name and 4 devices (spec §11.6)."""
    assert main(["quota", *PHASES, "-o", "json"]) == 0
    usage = json.loads(capsys.readouterr().out)[0]["usage"]
    assert {k: v["used"] for k, v in usage.items()} == {
        "requests.example.com/gpu": "5",
        "requests.deviceclass.resource.kubernetes.io/team-gpu": "4",
        "team-gpu.deviceclass.resource.k8s.io/devices": "4"}
    assert usage["requests.example.com/gpu"]["hard"] == "6"


def test_quota_status_in_simulate_output(capsys):
    """The quota controller writes status.used for the keys in spec.hard."""
    assert main(["simulate", *PHASES, "-o", "json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    quota = next(o for o in items if o["kind"] == "ResourceQuota")
    assert quota["status"]["used"]["count/resourceclaims.resource.k8s.io"] == "4"
    assert quota["status"]["used"]["requests.example.com/gpu"] == "5"


def test_admission_rejects_a_pod_over_quota(tmp_path, capsys):
    """A pod that would take requests.example.com/gpu past spec.hard is forbidden, as admission says."""
    extra = tmp_path / "more.yaml"
    extra.write_text("""
apiVersion: v1
kind: Pod
metadata: {name: greedy, namespace: research}
spec:
  containers:
  - name: app
    image: registry.example.com/app:1
    resources: {limits: {example.com/gpu: "2"}}
""")
    assert main(["simulate", *PHASES, str(extra)]) == 1
    err = capsys.readouterr().err
    assert 'pods "greedy" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2, ' \
           'used: requests.example.com/gpu=5, limited: requests.example.com/gpu=6' in err


def test_over_quota_phase_is_not_half_applied(tmp_path, capsys):
    """Two pods in one phase, the second over quota: the phase is rejected whole, the first not created."""
    extra = tmp_path / "more.yaml"
    extra.write_text("""
apiVersion: v1
kind: Pod
metadata: {name: fits, namespace: research}
spec:
  containers: [{name: app, image: i, resources: {limits: {example.com/gpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-many, namespace: research}
spec:
  containers: [{name: app, image: i, resources: {limits: {example.com/gpu: "1"}}}]
""")
    from drasim.api.loader import load_paths
    from drasim.controlplane import ControlPlane
    from drasim.errors import InputError
    import pytest
    cp = ControlPlane()
    for phase in PHASES:
        cp.run_phase(load_paths([phase]))
    with pytest.raises(InputError, match='pods "too-many" is forbidden: exceeded quota: gpus'):
        cp.run_phase(load_paths([extra]))
    assert cp.store.get("Pod", "research", "fits") is None


def test_scheduler_claim_create_is_quota_admitted(tmp_path):
    """The claim the scheduler writes for extended resources goes through quota admission: with the
    implicit-key quota used up, PreBind fails and the pod stays Pending with no claim (spec §11.7)."""
    from drasim.api.loader import load_paths
    from drasim.controlplane import ControlPlane
    tight = tmp_path / "tight.yaml"
    tight.write_text("""
apiVersion: v1
kind: ResourceQuota
metadata: {name: devices, namespace: research}
spec:
  hard: {team-gpu.deviceclass.resource.k8s.io/devices: "0"}
---
apiVersion: v1
kind: Pod
metadata: {name: legacy-dra, namespace: research}
spec:
  nodeSelector: {kubernetes.io/hostname: dra-node}
  containers:
  - name: app
    image: registry.example.com/app:1
    resources: {limits: {example.com/gpu: "1"}}
""")
    cp = ControlPlane()
    cp.run_phase(load_paths([EXAMPLE / "cluster.yaml"]))
    cp.run_phase(load_paths([tight]))
    pod = cp.store.get("Pod", "research", "legacy-dra")
    assert pod["spec"].get("nodeName") is None
    assert "extendedResourceClaimStatus" not in pod["status"]
    assert cp.store.list("ResourceClaim", "research") == []
    cond = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert cond["reason"] == "SchedulerError"
    # k8s: createExtendedResourceClaimInAPI wraps the API error; GroupResource names the claim's kind
    assert 'create claim for extended resources research/: resourceclaims.resource.k8s.io ' \
           '"legacy-dra-extended-resources-' in cond["message"]
    assert '" is forbidden: exceeded quota: devices' in cond["message"]
