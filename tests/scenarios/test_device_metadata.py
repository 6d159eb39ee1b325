"""KEP-5304: the device metadata file each container gets, shown in `simulate -o json`.

Expected content from v1.37's kubeletplugin/metadata.go (buildDeviceMetadata, containerFilePath) and
api/metadata (paths, DeviceMetadata v1alpha1), not from drasim's output.
"""
import json
import subprocess
import sys

from drasim.controlplane import ControlPlane, options_for
from drasim import featuregates

DRIVER = "gpu.example.com"


def cluster() -> ControlPlane:
    cp = ControlPlane(options_for(featuregates.DEFAULTS))
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
               "spec": {"driver": DRIVER, "nodeName": "n1", "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"},
                                                                   "resource.kubernetes.io/pciBusID": {"string": "0000:3b:00.0"}}},
                                    {"name": "gpu-1", "attributes": {"model": {"string": "a100"}}}]}})
    return cp


def pod_with(claims: list[dict], containers: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": containers, "resourceClaims": claims}}


def test_a_direct_claim_is_mounted_under_resourceclaims():
    cp = cluster()
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": 2}}]}}})
    cp.create(pod_with([{"name": "x", "resourceClaimName": "c"}],
                       [{"name": "app", "image": "i", "resources": {"claims": [{"name": "x"}]}},
                        {"name": "sidecar", "image": "i"}]))
    cp.settle()
    pod = cp.store.get("Pod", "default", "p")
    claim = cp.store.get("ResourceClaim", "default", "c")
    files = json.loads(pod["metadata"]["annotations"]["dra.drasim.io/device-metadata"])
    assert list(files) == ["app"]   # only containers that reference the claim
    path = "/var/run/kubernetes.io/dra-device-attributes/resourceclaims/c/gpus/gpu.example.com-metadata.json"
    assert files["app"] == {path: {
        "kind": "DeviceMetadata", "apiVersion": "metadata.resource.k8s.io/v1alpha1",
        "metadata": {"name": "c", "namespace": "default", "uid": claim["metadata"]["uid"], "generation": 1},
        "requests": [{"name": "gpus", "devices": [
            {"driver": DRIVER, "pool": "n1", "name": "gpu-0",
             "attributes": {"model": {"string": "a100"}, "resource.kubernetes.io/pciBusID": {"string": "0000:3b:00.0"}}},
            {"driver": DRIVER, "pool": "n1", "name": "gpu-1", "attributes": {"model": {"string": "a100"}}}]}]}}


def test_a_template_claim_uses_the_pod_claim_name_and_a_subrequest_keeps_its_full_name():
    cp = cluster()
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
               "metadata": {"name": "t", "namespace": "default"},
               "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                   {"name": "big", "deviceClassName": "gpu",
                    "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]},
                   {"name": "any", "deviceClassName": "gpu"}]}]}}}})
    cp.create(pod_with([{"name": "accel", "resourceClaimTemplateName": "t"}],
                       [{"name": "app", "image": "i", "resources": {"claims": [{"name": "accel"}]}}]))
    cp.settle()
    pod = cp.store.get("Pod", "default", "p")
    files = json.loads(pod["metadata"]["annotations"]["dra.drasim.io/device-metadata"])["app"]
    [(path, content)] = files.items()
    assert path == ("/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/accel/gpu/"
                    "gpu.example.com-metadata.json")
    assert content["podClaimName"] == "accel"
    assert content["metadata"]["name"].startswith("p-accel-")
    assert [r["name"] for r in content["requests"]] == ["gpu/any"]
    assert [d["name"] for d in content["requests"][0]["devices"]] == ["gpu-0"]


def test_simulate_json_shows_it(tmp_path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text("""
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {model: {string: a100}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: app, image: i, resources: {claims: [{name: x}]}}]
  resourceClaims: [{name: x, resourceClaimName: c}]
""")
    out = subprocess.run([sys.executable, "-m", "drasim.cli.main", "simulate", str(manifest), "-o", "json"],
                         capture_output=True, text=True, check=True).stdout
    pod = next(o for o in json.loads(out)["items"] if o["kind"] == "Pod")
    files = json.loads(pod["metadata"]["annotations"]["dra.drasim.io/device-metadata"])
    content = files["app"]["/var/run/kubernetes.io/dra-device-attributes/resourceclaims/c/r/gpu.example.com-metadata.json"]
    assert content["requests"][0]["devices"][0]["attributes"] == {"model": {"string": "a100"}}
