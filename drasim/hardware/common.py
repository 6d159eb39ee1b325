"""Pieces every driver profile uses: nodes, slices, attributes, deterministic identifiers."""
from __future__ import annotations

import hashlib
import uuid

RESOURCE_API = "resource.k8s.io/v1"
POOL_LABEL = "drasim.io/node-pool"
# Standard attributes of k8s.io/dynamic-resource-allocation/deviceattribute (v1.37): drivers
# publish them so that requests can align devices on one PCIe root.
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
PCI_BUS_ID = "resource.kubernetes.io/pciBusID"
# Not a standard attribute in v1.37 and not published by the drivers modelled here: drasim adds
# it (pool option `numaNode`, on by default) so NUMA-aligned requests (matchAttribute) mean
# something in a what-if. docs/hardware.md says so.
NUMA_NODE = "resource.kubernetes.io/numaNode"


def stable_uuid(*parts: str) -> str:
    """A UUID that depends only on its inputs (node, driver, device): regenerating an
    inventory gives the same objects."""
    return str(uuid.UUID(bytes=hashlib.sha256("/".join(parts).encode()).digest()[:16], version=4))


def string(value: str) -> dict:
    return {"string": value}


def integer(value: int) -> dict:
    return {"int": value}


def boolean(value: bool) -> dict:
    return {"bool": value}


def version(value: str) -> dict:
    return {"version": value}


def node(name: str, pool: str, cpu: str, memory: str, pods: str, labels: dict[str, str]) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, POOL_LABEL: pool, **labels}},
            "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": pods},
                       "allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def resource_slice(name: str, driver: str, node_name: str, pool_generation: int, slice_count: int,
                   devices: list[dict] | None = None, counters: list[dict] | None = None) -> dict:
    """One slice of a node-local pool named after the node (as the kubelet plugins do)."""
    spec: dict = {"driver": driver, "nodeName": node_name,
                  "pool": {"name": node_name, "generation": pool_generation, "resourceSliceCount": slice_count}}
    if counters:
        spec["sharedCounters"] = counters
    else:
        spec["devices"] = devices or []
    return {"apiVersion": RESOURCE_API, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def device_class(name: str, expression: str, extended_resource_name: str | None = None) -> dict:
    spec: dict = {"selectors": [{"cel": {"expression": expression}}]}
    if extended_resource_name:
        spec["extendedResourceName"] = extended_resource_name
    return {"apiVersion": RESOURCE_API, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def topology(index: int, per_node: int, numa_nodes: int, bus_base: int) -> tuple[int, str, str]:
    """(NUMA node, PCIe root, PCI bus ID) of the index-th device: devices split evenly over
    the NUMA nodes, one PCIe root per NUMA node, bus numbers counting up from bus_base."""
    numa = min(index * numa_nodes // max(per_node, 1), numa_nodes - 1)
    root = f"pci0000:{0x10 * numa:02x}"
    bus = f"0000:{bus_base + index:02x}:00.0"
    return numa, root, bus
