"""Nodes a PreFilter result leaves out are reported under the plugins that narrowed the cycle
(k8s schedule_one.go findNodesThatFitPod: `node(s) didn't satisfy plugin(s) [NodeAffinity]` for a
daemon pod pinned to its node), in the pending reason and in drasim explain."""
import json
import textwrap

from drasim.cli.main import main

CLUSTER = textwrap.dedent("""\
    apiVersion: v1
    kind: Node
    metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent}
    spec:
      selector: {matchLabels: {app: agent}}
      template:
        metadata: {labels: {app: agent}}
        spec:
          containers: [{name: a, image: agent, resources: {limits: {nvidia.com/gpu: 1}}}]
    """)


def test_a_daemon_pod_names_node_affinity_for_the_other_nodes(tmp_path, capsys):
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    assert main(["simulate", str(path), "-o", "json"]) == 0
    pods = [o for o in json.loads(capsys.readouterr().out)["items"] if o["kind"] == "Pod"]
    assert len(pods) == 2
    for pod in pods:
        [cond] = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert cond["message"].startswith("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, "
                                          "1 node(s) didn't satisfy plugin(s) [NodeAffinity]."), cond["message"]
    assert main(["explain", pods[0]["metadata"]["name"], "--cluster", str(path), "-o", "json"]) == 0
    text = capsys.readouterr().out
    assert "node(s) didn't satisfy plugin(s) [NodeAffinity]" in text and "[PreFilter]" not in text
