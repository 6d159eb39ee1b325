"""The seed runbook's kubectl commands against drasim serve, with the real kubectl 1.37."""
from __future__ import annotations

import json
import queue
import subprocess
import threading
import time

import pytest

from tests.server.harness import EXAMPLES, Serve

EXPLICIT = EXAMPLES / "extended-resource-explicit"


@pytest.fixture(scope="module")
def cluster(kubectl_available, tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("kubectl"))
    try:
        s.kubectl("apply", "-f", str(EXPLICIT / "cluster.yaml"))
        s.kubectl("apply", "-f", str(EXPLICIT / "workload.yaml"))
        s.kubectl("wait", "--for=condition=Ready", "pod/demo", "--timeout=20s")
        yield s
    finally:
        s.stop()


def test_api_resources_of_the_dra_group(cluster):
    out = cluster.kubectl("api-resources", "--api-group=resource.k8s.io").stdout.splitlines()
    assert out[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    rows = {line.split()[0]: line.split()[1:] for line in out[1:]}
    assert rows == {"deviceclasses": ["resource.k8s.io/v1", "false", "DeviceClass"],
                    "devicetaintrules": ["resource.k8s.io/v1", "false", "DeviceTaintRule"],
                    "resourceclaims": ["resource.k8s.io/v1", "true", "ResourceClaim"],
                    "resourceclaimtemplates": ["resource.k8s.io/v1", "true", "ResourceClaimTemplate"],
                    "resourceslices": ["resource.k8s.io/v1", "false", "ResourceSlice"]}


def test_extended_resource_pod_gets_its_claim(cluster):
    status = json.loads(cluster.kubectl("get", "pod", "demo", "-o",
                                        "jsonpath={.status.extendedResourceClaimStatus}").stdout)
    assert status["requestMappings"] == [{"containerName": "demo", "requestName": "container-0-request-0",
                                          "resourceName": "example.com/gpu"}]
    claim = status["resourceClaimName"]
    text = cluster.kubectl("get", "resourceclaim", claim, "-o", "yaml").stdout
    assert 'resource.kubernetes.io/extended-resource-claim: "true"' in text
    metrics = cluster.kubectl("get", "--raw", "/metrics").stdout.splitlines()
    assert any(line.startswith("dynamic_resource_allocation_") and 'source="extended_resource"' in line
               for line in metrics), [m for m in metrics if "dynamic" in m]
    table = cluster.kubectl("get", "resourceclaims").stdout.splitlines()
    assert table[0].split() == ["NAME", "STATE", "AGE"]
    assert table[1].split()[:2] == [claim, "allocated,reserved"]


def test_custom_columns_and_tables(cluster):
    out = cluster.kubectl("get", "node", "gpu-node-1", "-o",
                          r"custom-columns=NAME:.metadata.name,CPU:.status.capacity.cpu").stdout.split()
    assert out == ["NAME", "CPU", "gpu-node-1", "16"]
    slices = cluster.kubectl("get", "resourceslices").stdout.splitlines()
    assert slices[0].split() == ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    assert slices[1].split()[:4] == ["gpu-node-1-gpu.example.com", "gpu-node-1", "gpu.example.com", "gpu-node-1"]
    created = cluster.kubectl("get", "deviceclasses", "-o",
                              "custom-columns=NAME:.metadata.name,CREATED:.metadata.creationTimestamp").stdout.split()
    assert created[:3] == ["NAME", "CREATED", "gpu.example.com"] and created[3].endswith("Z")
    pods = cluster.kubectl("get", "pods", "-o", "wide").stdout.splitlines()
    assert pods[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
                               "READINESS", "GATES"]
    assert pods[1].split()[:4] == ["demo", "1/1", "Running", "0"] and "gpu-node-1" in pods[1]
    nodes = cluster.kubectl("get", "nodes").stdout.splitlines()
    assert nodes[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert nodes[1].split()[:3] == ["gpu-node-1", "Ready", "<none>"]
    inventory = cluster.kubectl("get", "pods", "-A", "-o",
                                "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} "
                                "{.spec.nodeName}{\"\\n\"}{end}").stdout
    assert "default/demo gpu-node-1" in inventory.splitlines()


def test_apply_again_is_unchanged_and_patch_merge(cluster):
    again = cluster.kubectl("apply", "-f", str(EXPLICIT / "cluster.yaml")).stdout.splitlines()
    assert again == ["node/gpu-node-1 unchanged", "deviceclass.resource.k8s.io/gpu.example.com unchanged",
                     "resourceslice.resource.k8s.io/gpu-node-1-gpu.example.com unchanged"]
    # `example.com/gpu: 1` is a number in the file and the string "1" on the server, so kubectl
    # sends a patch ("configured"), which changes nothing: the resourceVersion stays.
    rv = cluster.kubectl("get", "pod", "demo", "-o", "jsonpath={.metadata.resourceVersion}").stdout
    assert "pod/demo configured" in cluster.kubectl("apply", "-f", str(EXPLICIT / "workload.yaml")).stdout
    assert cluster.kubectl("get", "pod", "demo", "-o", "jsonpath={.metadata.resourceVersion}").stdout == rv
    rule = ("apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: example}\n"
            "spec:\n  deviceSelector: {driver: gpu.example.com}\n  taint: {key: maint, effect: None}\n")
    cluster.kubectl("apply", "-f", "-", input=rule)
    out = cluster.kubectl("patch", "devicetaintrule", "example", "--type", "merge",
                          "-p", '{"spec":{"taint":{"effect":"NoExecute"}}}').stdout
    assert "devicetaintrule.resource.k8s.io/example patched" in out
    effect = cluster.kubectl("get", "devicetaintrule", "example", "-o", "jsonpath={.spec.taint.effect}").stdout
    assert effect == "NoExecute"
    cluster.kubectl("delete", "devicetaintrule", "example")


def test_diff_and_server_dry_runs_change_nothing(cluster):
    """kubectl diff (a dry-run patch) shows the change; it, apply --dry-run=server and
    delete --dry-run=server leave the pod as it was (they once applied the patch for real)."""
    def state():
        return cluster.kubectl("get", "pod", "demo", "-o",
                               "jsonpath={.metadata.resourceVersion} {.spec.containers[0].image}").stdout
    before = state()
    changed = (EXPLICIT / "workload.yaml").read_text().replace("pause:3.10", "pause:3.9")
    diff = cluster.kubectl("diff", "-f", "-", input=changed, check=False)
    assert diff.returncode == 1, diff.stderr
    assert "-  - image: registry.k8s.io/pause:3.10" in diff.stdout and "+  - image: registry.k8s.io/pause:3.9" in diff.stdout
    assert "resourceVersion" not in "".join(line for line in diff.stdout.splitlines() if line[:1] in "+-"
                                            and not line.startswith(("+++", "---")))
    assert "(server dry run)" in cluster.kubectl("apply", "--dry-run=server", "-f", "-", input=changed).stdout
    assert "(server dry run)" in cluster.kubectl("delete", "pod", "demo", "--dry-run=server").stdout
    assert state() == before


def test_watch_sees_pending_then_running(cluster):
    # The pod is held Pending by a scheduling gate until the watch has printed it, so the
    # test does not depend on how fast kubectl starts on a loaded machine.
    cluster.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: Pod\nmetadata: {name: watched}\n"
                                              "spec:\n  schedulingGates: [{name: example.com/hold}]\n"
                                              "  containers: [{name: c, image: pause}]\n")
    watcher = subprocess.Popen([*_kubectl_cmd(cluster), "get", "pods", "-w", "--request-timeout=20s"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(cluster))
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()

    def next_state(timeout=15):
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            if line.startswith("watched "):
                return line.split()[2]
        pytest.fail("the watch printed no line for pod watched")

    try:
        assert next_state() == "SchedulingGated"
        cluster.kubectl("patch", "pod", "watched", "--type=json",
                        "-p", '[{"op": "remove", "path": "/spec/schedulingGates"}]')
        cluster.kubectl("wait", "--for=condition=Ready", "pod/watched", "--timeout=10s")
        seen = [next_state()]
        while seen[-1] != "Running":
            seen.append(next_state())
        assert set(seen) <= {"SchedulingGated", "Pending", "ContainerCreating", "Running"}, seen
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)
    assert cluster.kubectl("delete", "pod", "watched").stdout.strip() == 'pod "watched" deleted from default namespace'
    assert cluster.kubectl("get", "pod", "watched", check=False).stderr.strip() == \
        'Error from server (NotFound): pods "watched" not found'


def test_cordon_drain_uncordon(cluster):
    cluster.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: Pod\nmetadata: {name: drained}\n"
                                             "spec:\n  nodeName: gpu-node-1\n  containers: [{name: c, image: pause}]\n")
    assert "node/gpu-node-1 cordoned" in cluster.kubectl("cordon", "gpu-node-1").stdout
    assert cluster.kubectl("get", "nodes").stdout.splitlines()[1].split()[1] == "Ready,SchedulingDisabled"
    out = cluster.kubectl("drain", "gpu-node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--force",
                          "--timeout=20s").stdout
    assert "node/gpu-node-1 drained" in out
    assert cluster.kubectl("get", "pod", "drained", check=False).returncode != 0
    assert "node/gpu-node-1 uncordoned" in cluster.kubectl("uncordon", "gpu-node-1").stdout


def test_raw_metrics(cluster):
    text = cluster.kubectl("get", "--raw", "/metrics").stdout
    for name in ("scheduler_schedule_attempts_total", "scheduler_pending_pods",
                 "device_taint_eviction_controller_pod_deletions_total"):
        assert f"\n{name}" in text, name


def _kubectl_cmd(s):
    from tests.server.harness import kubectl_binary
    return [kubectl_binary(), "--cache-dir", str(s.tmp / "kube-cache")]


def _env(s):
    import os
    return dict(os.environ, KUBECONFIG=str(s.kubeconfig), HOME=str(s.tmp))


def test_explain_reads_the_openapi_v3_documents(cluster):
    out = cluster.kubectl("explain", "deviceclass.spec.extendedResourceName").stdout
    assert "KIND:       DeviceClass" in out and "FIELD: extendedResourceName <string>" in out
    assert "example.com/gpu" in out   # the description
    fields = cluster.kubectl("explain", "resourceslices.spec").stdout
    # As on a real cluster: kubectl names the referenced types.
    for field in ("devices\t<[]Device>", "driver\t<string>", "pool\t<ResourcePool>", "allNodes\t<boolean>"):
        assert field in fields


def test_table_columns_of_every_kind(cluster):
    cluster.kubectl("apply", "-f", "-", input=(
        "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {count/resourceclaims.resource.k8s.io: '9'}\n"
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\n"
        "spec:\n  spec:\n    devices:\n      requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]\n"))
    expected = {"namespaces": ["NAME", "STATUS", "AGE"], "deviceclasses": ["NAME", "AGE"],
                "resourceclaimtemplates": ["NAME", "AGE"], "resourcequotas": ["NAME", "AGE", "REQUEST", "LIMIT"],
                "events": ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]}
    for resource, header in expected.items():
        lines = cluster.kubectl("get", resource).stdout.splitlines()
        assert lines[0].split() == header, resource
    assert cluster.kubectl("get", "namespace", "default").stdout.splitlines()[1].split()[:2] == ["default", "Active"]
    quota = cluster.wait_until(lambda: "/9" in (out := cluster.kubectl("get", "resourcequota", "q").stdout) and out)
    claims = len(cluster.kubectl("get", "resourceclaims", "-o", "name").stdout.split())
    assert f"count/resourceclaims.resource.k8s.io: {claims}/9" in quota


def test_kubectl_prints_server_errors_as_on_a_cluster(cluster):
    bad = ('apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: bad}\nspec:\n'
           '  extendedResourceName: "-x"\n  selectors: [{cel: {expression: "device.driver != \'\'"}}]\n')
    done = cluster.kubectl("apply", "-f", "-", input=bad, check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ['The DeviceClass "bad" is invalid: spec.extendedResourceName: Invalid value: '
                                        '"-x": must be a valid extended resource name']
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: twice}\nspec: {containers: [{name: c, image: i}]}\n"
    cluster.kubectl("create", "-f", "-", input=pod)
    again = cluster.kubectl("create", "-f", "-", input=pod, check=False)
    assert again.stderr.strip() == 'Error from server (AlreadyExists): error when creating "STDIN": pods "twice" already exists'
    cluster.kubectl("delete", "pod", "twice")


def test_apply_of_a_list_file_as_kubectl_get_writes_it(cluster, tmp_path):
    listing = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"listed-{i}"},
         "spec": {"containers": [{"name": "c", "image": "pause"}]}} for i in range(2)]}
    path = tmp_path / "list.json"
    path.write_text(json.dumps(listing))
    out = cluster.kubectl("apply", "-f", str(path)).stdout.splitlines()
    assert out == ["pod/listed-0 created", "pod/listed-1 created"]
    listing["items"][0]["spec"]["bogus"] = 1
    listing["items"][0]["bogus"] = 1
    path.write_text(json.dumps(listing))
    bad = cluster.kubectl("apply", "-f", str(path), check=False)
    assert bad.returncode == 1 and 'strict decoding error: unknown field "bogus"' in bad.stderr
    cluster.kubectl("delete", "-f", str(path))


def test_drain_waits_for_the_disruption_budget(cluster):
    """kubectl drain retries an eviction its pod's budget refuses (429) and gives up at --timeout."""
    cluster.kubectl("apply", "-f", "-", input=(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: keep-one}\n"
        "spec:\n  minAvailable: 1\n  selector: {matchLabels: {app: keep}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: kept, labels: {app: keep}}\n"
        "spec:\n  nodeName: gpu-node-1\n  containers: [{name: c, image: pause}]\n"))
    cluster.kubectl("wait", "--for=condition=Ready", "pod/kept", "--timeout=10s")
    assert cluster.kubectl("get", "pdb", "keep-one", "-o", "jsonpath={.status.currentHealthy}").stdout == "1"
    out = cluster.kubectl("drain", "gpu-node-1", "--ignore-daemonsets", "--force", "--timeout=4s", check=False)
    assert out.returncode != 0
    assert "Cannot evict pod as it would violate the pod's disruption budget." in out.stderr + out.stdout
    assert cluster.kubectl("get", "pod", "kept", "-o", "name").stdout.strip() == "pod/kept"
    cluster.kubectl("uncordon", "gpu-node-1")
    cluster.kubectl("delete", "pdb", "keep-one")
    cluster.kubectl("delete", "pod", "kept")



def test_priority_classes_through_kubectl(cluster):
    cluster.kubectl("apply", "-f", "-", input="apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                              "metadata: {name: training}\nvalue: 1000\npreemptionPolicy: Never\n")
    table = cluster.kubectl("get", "priorityclasses").stdout.split("\n")
    assert table[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    row = next(line.split() for line in table if line.startswith("training "))
    assert (row[1], row[2], row[-1]) == ("1000", "false", "Never")
    cluster.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: Pod\nmetadata: {name: trainer}\nspec:\n"
                                              "  priorityClassName: training\n  containers: [{name: c, image: pause}]\n")
    assert cluster.kubectl("get", "pod", "trainer", "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}"
                           ).stdout == "1000 Never"
    refused = cluster.kubectl("apply", "-f", "-", check=False,
                              input="apiVersion: v1\nkind: Pod\nmetadata: {name: orphan}\nspec:\n"
                                    "  priorityClassName: nope\n  containers: [{name: c, image: pause}]\n")
    assert refused.returncode == 1
    assert 'pods "orphan" is forbidden: no PriorityClass with name nope was found' in refused.stderr
    cluster.kubectl("delete", "pod", "trainer")
    cluster.kubectl("delete", "priorityclass", "training")
