"""The Kubernetes DRA example driver (kubernetes-sigs/dra-example-driver), `gpu` and `net` profiles.

Read at 31914cea (July 2026): internal/profiles/gpu/gpu.go (GPUs with index, uuid, model,
driverVersion; memory 80Gi and compute 100; `gpuPartitions` makes each GPU a counter set with
`gpu-<i>-partition-<j>` devices and a `gpu-<i>-full` device consuming it; optional
allowMultipleAllocations with a capacity request policy), internal/profiles/net/net.go (NICs
shared by many claims: `vfs` consumed one at a time, ingress/egress bandwidth as consumable
capacity), and the Helm chart's DeviceClass (`device.driver == '<profile>.example.com'`,
optional extendedResourceName). The driver name is `<profile>.example.com`.
"""
from __future__ import annotations

from drasim.hardware import common

GPU_DRIVER = "gpu.example.com"
NET_DRIVER = "net.example.com"
GPU_MEMORY_GI = 80
GPU_COMPUTE = 100


def device_classes(driver: str, extended_resource_name: str | None = None) -> list[dict]:
    return [common.device_class(driver, f"device.driver == '{driver}'", extended_resource_name)]


def _topology_attrs(index: int, count: int, numa_nodes: int, numa_attr: bool, bus_base: int) -> dict:
    numa, root, bus = common.topology(index, count, numa_nodes, bus_base)
    attrs = {common.PCIE_ROOT: common.string(root), common.PCI_BUS_ID: common.string(bus)}
    if numa_attr:
        attrs[common.NUMA_NODE] = common.integer(numa)
    return attrs


def _gpu_capacity(memory: str, compute: str, shared: bool) -> dict:
    """gpu.go memoryCapacity/computeCapacity: with allowMultipleAllocations, memory gets a
    request policy (default all of it, 1Gi steps from 1Gi)."""
    cap: dict = {"memory": {"value": memory}, "compute": {"value": compute}}
    if shared:
        cap["memory"]["requestPolicy"] = {"default": memory,
                                          "validRange": {"min": "1Gi", "step": "1Gi", "max": memory}}
    return cap


def gpu_slices(node_name: str, gpus: int, partitions: int, shared: bool, numa_nodes: int,
               numa_attr: bool) -> list[dict]:
    devices, counter_sets = [], []
    for i in range(gpus):
        attrs = {"index": common.integer(i), "uuid": common.string("gpu-" + common.stable_uuid(node_name, "gpu", str(i))),
                 "model": common.string("LATEST-GPU-MODEL"), "driverVersion": common.version("1.0.0"),
                 **_topology_attrs(i, gpus, numa_nodes, numa_attr, 0x18)}
        extra = {"allowMultipleAllocations": True} if shared else {}
        if partitions:
            counter_set = f"gpu-{i}-counters"
            memory_mi = GPU_MEMORY_GI * 1024 // partitions
            part_memory, part_compute = f"{memory_mi}Mi", str(GPU_COMPUTE // partitions)
            counter_sets.append({"name": counter_set, "counters": {"memory": {"value": f"{GPU_MEMORY_GI}Gi"},
                                                                   "compute": {"value": str(GPU_COMPUTE)}}})
            for j in range(partitions):
                devices.append({"name": f"gpu-{i}-partition-{j}", **extra,
                                "attributes": {**attrs, "partition": common.integer(j),
                                               "partitionable": common.boolean(True)},
                                "capacity": _gpu_capacity(part_memory, part_compute, shared),
                                "consumesCounters": [{"counterSet": counter_set, "counters": {
                                    "memory": {"value": part_memory}, "compute": {"value": part_compute}}}]})
            devices.append({"name": f"gpu-{i}-full", **extra,
                            "attributes": {**attrs, "partitionable": common.boolean(True), "full": common.boolean(True)},
                            "capacity": _gpu_capacity(f"{GPU_MEMORY_GI}Gi", str(GPU_COMPUTE), shared),
                            "consumesCounters": [{"counterSet": counter_set, "counters": {
                                "memory": {"value": f"{GPU_MEMORY_GI}Gi"}, "compute": {"value": str(GPU_COMPUTE)}}}]})
        else:
            devices.append({"name": f"gpu-{i}", **extra, "attributes": attrs,
                            "capacity": _gpu_capacity(f"{GPU_MEMORY_GI}Gi", str(GPU_COMPUTE), shared)})
    return _slices(node_name, GPU_DRIVER, devices, counter_sets)


def _slices(node_name: str, driver: str, devices: list[dict], counter_sets: list[dict]) -> list[dict]:
    """Devices in slices of at most 64 when they consume counters (128 otherwise), counter sets
    in a slice of their own (v1.37 validation: one of sharedCounters or devices)."""
    per_slice = 64 if counter_sets else 128
    chunks = [devices[i:i + per_slice] for i in range(0, len(devices), per_slice)] or [[]]
    count = len(chunks) + (1 if counter_sets else 0)
    out = [common.resource_slice(f"{node_name}-{driver}-{k}", driver, node_name, 1, count, devices=chunk)
           for k, chunk in enumerate(chunks)]
    if counter_sets:
        out.append(common.resource_slice(f"{node_name}-{driver}-counters", driver, node_name, 1, count,
                                         counters=counter_sets))
    return out


_BANDWIDTH = {"value": "100G", "requestPolicy": {"default": "1G",
                                                 "validRange": {"min": "100M", "max": "100G", "step": "1M"}}}


def net_slices(node_name: str, nics: int, numa_nodes: int, numa_attr: bool) -> list[dict]:
    devices = []
    for i in range(nics):
        devices.append({
            "name": f"nic-{i}", "allowMultipleAllocations": True,
            "attributes": {"index": common.integer(i), "uuid": common.string("net-" + common.stable_uuid(node_name, "net", str(i))),
                           "model": common.string("LATEST-NET-MODEL"), "driverVersion": common.version("1.0.0"),
                           **_topology_attrs(i, nics, numa_nodes, numa_attr, 0x80)},
            "capacity": {"vfs": {"value": "100", "requestPolicy": {"default": "1", "validValues": ["1"]}},
                         "ingressBandwidth": dict(_BANDWIDTH), "egressBandwidth": dict(_BANDWIDTH)}})
    return _slices(node_name, NET_DRIVER, devices, [])
