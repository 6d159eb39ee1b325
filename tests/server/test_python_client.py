"""The official `kubernetes` Python client (37.x) against drasim serve: list, read, watch."""
from __future__ import annotations

import pytest

from tests.server.harness import EXAMPLES, Serve

client = pytest.importorskip("kubernetes.client", reason="the kubernetes client is in the test extras")
from kubernetes import config, watch  # noqa: E402

EXPLICIT = EXAMPLES / "extended-resource-explicit"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("pyclient"), EXPLICIT / "cluster.yaml", EXPLICIT / "workload.yaml")
    try:
        yield s, config.new_client_from_config(config_file=str(s.kubeconfig), context="drasim")
    finally:
        s.stop()


def test_typed_reads_of_core_and_resource_kinds(api):
    s, api_client = api
    core = client.CoreV1Api(api_client)
    nodes = core.list_node()
    assert [n.metadata.name for n in nodes.items] == ["gpu-node-1"]
    pod = s.wait_until(lambda: (p := core.read_namespaced_pod("demo", "default")).status.phase == "Running" and p)
    ext = pod.status.extended_resource_claim_status
    assert ext.request_mappings[0].resource_name == "example.com/gpu"
    resource = client.ResourceV1Api(api_client)
    classes = resource.list_device_class()
    assert classes.items[0].spec.extended_resource_name == "example.com/gpu"
    claim = resource.read_namespaced_resource_claim(ext.resource_claim_name, "default")
    assert claim.status.allocation.devices.results[0].driver == "gpu.example.com"
    slices = resource.list_resource_slice(field_selector="spec.nodeName=gpu-node-1")
    assert [sl.spec.pool.name for sl in slices.items] == ["gpu-node-1"]


def test_watch_pods(api):
    s, api_client = api
    core = client.CoreV1Api(api_client)
    rv = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod("default", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "py-watched"},
                                           "spec": {"containers": [{"name": "c", "image": "pause"}]}})
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=5):
        seen.append((event["type"], event["object"].metadata.name, event["object"].status.phase))
        if event["object"].status.phase == "Running":
            break
    assert seen[0] == ("ADDED", "py-watched", "Pending")
    assert seen[-1] == ("MODIFIED", "py-watched", "Running")


def test_errors_are_api_exceptions_with_status(api):
    s, api_client = api
    core = client.CoreV1Api(api_client)
    with pytest.raises(client.exceptions.ApiException) as err:
        core.read_namespaced_pod("missing", "default")
    assert err.value.status == 404 and '"reason":"NotFound"' in err.value.body
