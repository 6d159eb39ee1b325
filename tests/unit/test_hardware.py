"""drasim/hardware: inventories shaped like what the drivers publish, checked against the
drivers' own DeviceClasses and through the real allocator."""
from pathlib import Path

import pytest
import yaml

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.cel import compile_selector, device_input
from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.hardware import PoolError, generate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory" / "pools.yaml"


def pools(*entries):
    return {"pools": list(entries)}


def h100(mig="dynamic", gpus=1, **extra):
    return {"name": "h100", "count": 1, "drivers": [{"nvidia": {"gpus": gpus, "model": "H100-SXM5-80GB", "mig": mig}}],
            **extra}


def devices(objects, driver=None):
    return [(o["spec"]["driver"], d) for o in objects if o["kind"] == "ResourceSlice"
            for d in o["spec"].get("devices") or () if driver in (None, o["spec"]["driver"])]


def classes(objects):
    return {o["metadata"]["name"]: [compile_selector(s["cel"]["expression"]) for s in o["spec"]["selectors"]]
            for o in objects if o["kind"] == "DeviceClass"}


def matching_classes(objects, driver, device):
    data = device_input(driver, device)
    return sorted(name for name, sels in classes(objects).items() if all(s.matches(data) for s in sels))


def cluster(objects) -> ControlPlane:
    cp = ControlPlane()
    cp.apply([Document(f"inventory#{i}", kinds.BY_KIND[o["kind"]], o) for i, o in enumerate(objects)])
    cp.settle()
    return cp


def test_every_generated_device_passes_its_drivers_classes_and_validation():
    """The bundled example: each device is selected by its own driver's DeviceClass (GPUs by
    gpu.nvidia.com, MIG devices by mig.nvidia.com, the example driver's by its class), and the
    API server accepts every object (ControlPlane.apply validates them all)."""
    objects = generate(yaml.safe_load(EXAMPLE.read_text()))
    cluster(objects)
    seen = set()
    for driver, device in devices(objects):
        matched = matching_classes(objects, driver, device)
        kind = (device["attributes"].get("type") or {}).get("string")
        if driver == "gpu.nvidia.com":
            assert matched == [f"{kind}.nvidia.com"], device["name"]
        else:
            assert matched == [driver], device["name"]
        seen.add((driver, kind))
    assert seen == {("gpu.nvidia.com", "gpu"), ("gpu.nvidia.com", "mig"), ("gpu.example.com", None),
                    ("net.example.com", None)}


def test_gpu_class_maps_the_extended_resource_nvidia_publishes():
    objects = generate(pools(h100(mig=False)))
    gpu_class = next(o for o in objects if o["kind"] == "DeviceClass" and o["metadata"]["name"] == "gpu.nvidia.com")
    assert gpu_class["spec"]["extendedResourceName"] == "nvidia.com/gpu"
    [(_, gpu)] = devices(objects)
    assert gpu["name"] == "gpu-0" and gpu["capacity"] == {"memory": {"value": "81920Mi"}}
    assert gpu["attributes"]["productName"] == {"string": "NVIDIA H100 80GB HBM3"}
    assert gpu["attributes"]["resource.kubernetes.io/pcieRoot"]["string"].startswith("pci0000:")


def _claim(name, cls, selector=None):
    exactly = {"deviceClassName": cls}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}}


def _pod(name, claim):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"resourceClaims": [{"name": "r", "resourceClaimName": claim}],
                     "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "r"}]}}]}}


def _place(cp, *objs):
    cp.apply([Document(f"workload#{i}", kinds.BY_KIND[o["kind"]], o) for i, o in enumerate(objs)])
    cp.settle()


def _allocated(cp, name):
    claim = cp.store.get("ResourceClaim", "default", name)
    return [r["device"] for r in ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])]


ONE_G = "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"


def test_dynamic_mig_whole_gpu_blocks_its_mig_devices():
    """KEP-4815 shape: the whole GPU consumes all of its counter set, so no MIG device fits next to it."""
    cp = cluster(generate(pools(h100())))
    _place(cp, _claim("whole", "gpu.nvidia.com"), _pod("a", "whole"), _claim("slice", "mig.nvidia.com", ONE_G),
           _pod("b", "slice"))
    assert _allocated(cp, "whole") == ["gpu-0"]
    assert _allocated(cp, "slice") == []


def test_eight_gpu_node_with_mig_whole_gpus_and_slices_exclude_each_other():
    """An NVIDIA-shaped 8-GPU node with dynamic MIG: 7 whole GPUs and a 1g.10gb slice fit; an 8th
    whole GPU does not (the slice took part of gpu-7's counters), nor a slice on a whole GPU."""
    objects = generate(pools(h100(gpus=8)))
    assert sum(1 for _, d in devices(objects) if d["attributes"]["type"]["string"] == "mig") == 8 * 29 - 8
    cp = cluster(objects)
    seven = _claim("seven", "gpu.nvidia.com")
    seven["spec"]["devices"]["requests"][0]["exactly"]["count"] = 7
    _place(cp, seven, _pod("a", "seven"))
    _place(cp, _claim("slice", "mig.nvidia.com", ONE_G), _pod("b", "slice"))
    _place(cp, _claim("eighth", "gpu.nvidia.com"), _pod("c", "eighth"))
    whole = set(_allocated(cp, "seven"))
    [mig] = _allocated(cp, "slice")
    assert len(whole) == 7 and not any(mig.startswith(g + "-mig") for g in whole)   # the slice is on the 8th GPU
    assert _allocated(cp, "eighth") == []


def test_dynamic_mig_a_mig_device_blocks_the_whole_gpu_but_not_other_slices():
    cp = cluster(generate(pools(h100())))
    _place(cp, _claim("slice", "mig.nvidia.com", ONE_G), _pod("a", "slice"))
    _place(cp, _claim("slice2", "mig.nvidia.com", ONE_G), _pod("b", "slice2"),
           _claim("whole", "gpu.nvidia.com"), _pod("c", "whole"))
    assert _allocated(cp, "slice") and _allocated(cp, "slice2")
    assert _allocated(cp, "slice") != _allocated(cp, "slice2")
    assert _allocated(cp, "whole") == []


def test_static_mig_publishes_the_created_instances_only():
    objects = generate(pools(h100(mig=["1g.10gb×7"])))
    names = [d["name"] for _, d in devices(objects)]
    assert names == [f"gpu-0-mig-1g10gb-19-{i}" for i in range(7)]
    assert all(d["attributes"]["type"] == {"string": "mig"} and "uuid" in d["attributes"] for _, d in devices(objects))
    assert not any(o["kind"] == "ResourceSlice" and "sharedCounters" in o["spec"] for o in objects)


@pytest.mark.parametrize("mig, message", [
    (["5g.50gb"], "is not a MIG profile of NVIDIA H100 80GB HBM3"),
    (["7g.80gb", "1g.10gb"], "need 8 memory slices, NVIDIA H100 80GB HBM3 has 7"),
    ("yes", "must be dynamic, false or a list"),
])
def test_bad_mig_options_are_clear_errors(mig, message):
    with pytest.raises(PoolError, match=message):
        generate(pools(h100(mig=mig)))


@pytest.mark.parametrize("spec, message", [
    ({"pools": []}, "pools: must be a non-empty list"),
    (pools({"name": "a", "count": -1}), r"pools\[0\].count: must be an integer from 1"),
    (pools({"name": "a", "cuont": 2}), r"pools\[0\]: unknown field 'cuont'"),
    (pools({"name": "a", "drivers": [{"amd": {}}]}), r"pools\[0\].drivers\[0\]: must be one of nvidia"),
    (pools({"name": "a"}, {"name": "a"}), r"pools\[1\].name: a unique"),
])
def test_bad_pool_specs_are_clear_errors(spec, message):
    with pytest.raises(PoolError, match=message):
        generate(spec)


def test_example_gpu_partitions_exclude_the_full_device():
    objects = generate(pools({"name": "ex", "drivers": [{"example-gpu": {"gpus": 1, "partitions": 2}}]}))
    assert [d["name"] for _, d in devices(objects)] == ["gpu-0-partition-0", "gpu-0-partition-1", "gpu-0-full"]
    cp = cluster(objects)
    _place(cp, _claim("half", "gpu.example.com", "device.attributes['gpu.example.com'].partition == 0"),
           _pod("a", "half"), _claim("full", "gpu.example.com", "has(device.attributes['gpu.example.com'].full)"),
           _pod("b", "full"))
    assert _allocated(cp, "half") == ["gpu-0-partition-0"] and _allocated(cp, "full") == []


def test_numa_alignment_attribute_and_option():
    objects = generate(pools({"name": "ex", "numaNodes": 2, "drivers": [{"example-gpu": {"gpus": 4}}]}))
    assert [d["attributes"]["resource.kubernetes.io/numaNode"]["int"] for _, d in devices(objects)] == [0, 0, 1, 1]
    objects = generate(pools({"name": "ex", "numaNode": False, "drivers": [{"example-gpu": {"gpus": 1}}]}))
    assert "resource.kubernetes.io/numaNode" not in devices(objects)[0][1]["attributes"]


def test_clone_a_real_node(tmp_path):
    snapshot = tmp_path / "snap.yaml"
    snapshot.write_text(yaml.safe_dump_all(generate(pools(h100(mig=False, gpus=2)))))
    objects = generate(pools({"name": "more", "count": 3, "cloneFrom": {"snapshot": str(snapshot), "node": "h100-0"}}))
    nodes = [o["metadata"]["name"] for o in objects if o["kind"] == "Node"]
    assert nodes == ["more-0", "more-1", "more-2"]
    slices = [o for o in objects if o["kind"] == "ResourceSlice"]
    assert {s["spec"]["nodeName"] for s in slices} == set(nodes)
    assert all(s["spec"]["pool"]["name"] == s["spec"]["nodeName"] for s in slices)
    cluster(objects)   # valid, no name clashes


def test_output_is_deterministic_and_the_cli_writes_manifests(capsys, tmp_path):
    spec = yaml.safe_load(EXAMPLE.read_text())
    assert generate(spec) == generate(spec)
    assert main(["inventory", str(EXAMPLE)]) == 0
    docs = list(yaml.safe_load_all(capsys.readouterr().out))
    assert docs == generate(spec)
    bad = tmp_path / "bad.yaml"
    bad.write_text("pools: [{name: x, count: 0}]")
    assert main(["inventory", str(bad)]) == 1
    assert "bad.yaml: pools[0].count: must be an integer from 1" in capsys.readouterr().err
