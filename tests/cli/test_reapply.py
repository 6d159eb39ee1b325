"""A manifest applied again in a later phase, as `kubectl apply` of an object that exists: unchanged,
it changes nothing (a pod keeps its node and its one extended-resource claim); a pod's image may
change; any other change to a pod's spec is refused in ValidatePodUpdate's words, one line, exit 1;
a field removed from a Deployment's manifest is removed."""
import json
import textwrap
from pathlib import Path

from drasim.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extended-resource-explicit"


def simulate(capsys, *paths):
    code = main(["simulate", *map(str, paths), "-o", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def of_kind(state, kind):
    return [o for o in state["items"] if o["kind"] == kind]


def test_the_same_pod_applied_twice_keeps_its_node_and_its_one_claim(capsys):
    workload = EXAMPLE / "workload.yaml"
    code, once, err = simulate(capsys, EXAMPLE / "cluster.yaml", workload)
    assert code == 0, err
    code, twice, err = simulate(capsys, EXAMPLE / "cluster.yaml", workload, workload)
    assert code == 0, err
    claims = of_kind(twice, "ResourceClaim")
    assert len(claims) == 1 and len(claims[0]["status"]["reservedFor"]) == 1
    [pod], [pod_once] = of_kind(twice, "Pod"), of_kind(once, "Pod")
    assert pod["spec"]["nodeName"] == pod_once["spec"]["nodeName"] == "gpu-node-1"
    assert pod["status"]["extendedResourceClaimStatus"]["resourceClaimName"] == claims[0]["metadata"]["name"]


def test_a_new_image_is_applied(tmp_path, capsys):
    changed = tmp_path / "image.yaml"
    changed.write_text((EXAMPLE / "workload.yaml").read_text().replace("pause:3.10", "pause:3.9"))
    code, state, err = simulate(capsys, EXAMPLE / "cluster.yaml", EXAMPLE / "workload.yaml", changed)
    assert code == 0, err
    [pod] = of_kind(state, "Pod")
    assert pod["spec"]["containers"][0]["image"] == "registry.k8s.io/pause:3.9"
    assert len(of_kind(state, "ResourceClaim")) == 1


def test_another_change_to_a_pod_spec_is_refused_in_one_line(tmp_path, capsys):
    changed = tmp_path / "more.yaml"
    changed.write_text((EXAMPLE / "workload.yaml").read_text().replace("example.com/gpu: 1", "example.com/gpu: 2"))
    code, state, err = simulate(capsys, EXAMPLE / "cluster.yaml", EXAMPLE / "workload.yaml", changed)
    assert code == 1 and state is None and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f'error: {changed}#1: Pod "demo" is invalid: spec: Forbidden: pod updates may not change '
                          "fields other than `spec.containers[*].image`,")
    assert "spec.containers[0].resources.limits.example.com/gpu: 1 → 2;" in err


def test_a_field_removed_from_a_deployment_manifest_is_removed(tmp_path, capsys):
    first = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          replicas: 1
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              nodeSelector: {pool: none}
              containers: [{name: c, image: nginx}]
        """)
    (tmp_path / "1.yaml").write_text(first)
    (tmp_path / "2.yaml").write_text(first.replace("      nodeSelector: {pool: none}\n", ""))
    code, state, err = simulate(capsys, EXAMPLE / "cluster.yaml", tmp_path / "1.yaml", tmp_path / "2.yaml")
    assert code == 0, err
    pods = of_kind(state, "Pod")
    assert [p["spec"].get("nodeName") for p in pods] == ["gpu-node-1"]
