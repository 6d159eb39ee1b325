"""NVIDIA's DRA GPU driver (`gpu.nvidia.com`), as its kubelet plugin publishes devices.

Read from NVIDIA/k8s-dra-driver-gpu at 22407113 (May 2026): cmd/gpu-kubelet-plugin/deviceinfo.go
(GPU attributes and capacity), mig.go (MIG attributes, capacities, canonical names),
partitions.go (KEP-4815 "dynamic MIG": one counter set per GPU, the full GPU consuming all of
it, each possible MIG placement consuming its profile's share plus its memory slices), and the
Helm chart's DeviceClasses (gpu.nvidia.com with extendedResourceName nvidia.com/gpu,
mig.nvidia.com). MIG profiles, counts and placements: NVIDIA/go-nvml's H100 and A100 mocks
(pkg/nvml/mock/gpus/*.go), with the GPU-instance profile IDs real NVML reports (as
`nvidia-smi mig -lgip` lists them), which the device names carry.

Three shapes (pool option `mig`):
- absent or false: whole GPUs only (`gpu-<minor>`);
- `dynamic`: whole GPUs plus every MIG placement as a partition sharing the GPU's counters, so a
  whole GPU and its MIG devices exclude each other (partitions.go);
- a list such as `[1g.10gb×7]` or `["3g.40gb×2"]`: MIG mode with those instances created
  (nvidia-smi / mig-parted): the concrete MIG devices only, no whole GPU.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from drasim.hardware import common

DRIVER = "gpu.nvidia.com"


@dataclass(frozen=True)
class MigProfile:
    name: str            # as nvidia-smi prints it: "1g.10gb"
    profile_id: int      # GPU-instance profile ID (NVML)
    multiprocessors: int
    copy_engines: int
    decoders: int
    encoders: int
    jpeg_engines: int
    ofa_engines: int
    memory_mib: int
    placements: tuple[tuple[int, int], ...]   # (start, size) in memory slices


@dataclass(frozen=True)
class GpuModel:
    product_name: str
    architecture: str
    compute_capability: str
    memory_mib: int
    memory_slices: int
    mig: tuple[MigProfile, ...]


def _starts(starts, size):
    return tuple((s, size) for s in starts)


# go-nvml mock gpus/h100.go (H100_SXM5_80GB) and gpus/a100.go (A100-SXM4-40GB).
H100_PROFILES = (
    MigProfile("1g.10gb", 19, 16, 1, 1, 0, 0, 0, 10240, _starts(range(7), 1)),
    MigProfile("1g.10gb+me", 20, 16, 1, 1, 0, 1, 1, 10240, _starts(range(7), 1)),
    MigProfile("1g.20gb", 15, 16, 1, 1, 0, 0, 0, 20480, _starts(range(7), 1)),
    MigProfile("2g.20gb", 14, 32, 2, 1, 0, 0, 0, 20480, _starts((0, 2, 4), 2)),
    MigProfile("3g.40gb", 9, 48, 3, 2, 0, 0, 0, 40960, _starts((0, 4), 3)),
    MigProfile("4g.40gb", 5, 64, 4, 2, 0, 0, 0, 40960, _starts((0,), 4)),
    MigProfile("7g.80gb", 0, 112, 7, 5, 0, 0, 0, 81920, _starts((0,), 7)),
)
A100_40GB_PROFILES = (
    MigProfile("1g.5gb", 19, 14, 1, 0, 0, 0, 0, 4864, _starts(range(7), 1)),
    MigProfile("2g.10gb", 14, 28, 2, 1, 0, 0, 0, 9856, _starts((0, 2, 4), 2)),
    MigProfile("3g.20gb", 9, 42, 3, 2, 0, 0, 0, 19968, _starts((0, 4), 4)),
    MigProfile("4g.20gb", 5, 56, 4, 2, 0, 0, 0, 19968, _starts((0,), 4)),
    MigProfile("7g.40gb", 0, 98, 7, 5, 0, 1, 1, 40192, _starts((0,), 8)),
)
MODELS = {
    "H100-SXM5-80GB": GpuModel("NVIDIA H100 80GB HBM3", "Hopper", "9.0", 81920, 7, H100_PROFILES),
    "A100-SXM4-40GB": GpuModel("NVIDIA A100-SXM4-40GB", "Ampere", "8.0", 40960, 8, A100_40GB_PROFILES),
}
DRIVER_VERSION = "580.82.7"
CUDA_DRIVER_VERSION = "13.0.0"


def device_classes() -> list[dict]:
    """The Helm chart's classes (deviceclass-gpu.yaml, deviceclass-mig.yaml)."""
    return [
        common.device_class("gpu.nvidia.com", "device.driver == 'gpu.nvidia.com' && "
                            "device.attributes['gpu.nvidia.com'].type == 'gpu'", "nvidia.com/gpu"),
        common.device_class("mig.nvidia.com", "device.driver == 'gpu.nvidia.com' && "
                            "device.attributes['gpu.nvidia.com'].type == 'mig'"),
    ]


def _semver(text: str) -> str:
    parts = (text.split(".") + ["0", "0"])[:3]
    return ".".join(str(int(p)) for p in parts)


def _rfc1123(name: str) -> str:
    """mig.go toRFC1123Compliant, after removing dots: "1g.10gb+me" -> "1g10gb-me"."""
    return re.sub(r"[^a-z0-9-.]", "-", name.replace(".", "").lower()).strip("-")


def _camel_to_dns(name: str) -> str:
    """mig.go camelToDNSName, for counter names: copyEngines -> copy-engines."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name)
    return re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", name).lower()


def _mig_capacity(p: MigProfile) -> dict:
    """mig.go CommonCapacitiesMig (memory in bytes, MiB from NVML)."""
    return {"multiprocessors": {"value": str(p.multiprocessors)}, "copyEngines": {"value": str(p.copy_engines)},
            "decoders": {"value": str(p.decoders)}, "encoders": {"value": str(p.encoders)},
            "jpegEngines": {"value": str(p.jpeg_engines)}, "ofaEngines": {"value": str(p.ofa_engines)},
            "memory": {"value": f"{p.memory_mib}Mi"}}


def _max_capacity(model: GpuModel) -> dict:
    """partitions.go: the full GPU's capacity is the maximum over its MIG profiles."""
    out: dict[str, int] = {}
    for p in model.mig:
        for key, cap in _mig_capacity(p).items():
            value = int(cap["value"].removesuffix("Mi"))
            out[key] = max(out.get(key, 0), value)
    return {k: {"value": f"{v}Mi" if k == "memory" else str(v)} for k, v in out.items()}


def _counters(capacity: dict, start: int, size: int) -> dict:
    """partitions.go capacitiesToCounters + addCountersForMemSlices."""
    out = {_camel_to_dns(k): {"value": v["value"]} for k, v in capacity.items()}
    for i in range(start, start + size):
        out[f"memory-slice-{i}"] = {"value": "1"}
    return out


def _gpu_attributes(model: GpuModel, uuid: str, numa: int, root: str, bus: str, numa_attr: bool) -> dict:
    """deviceinfo.go GpuInfo.Attributes, plus the standard PCIe attributes."""
    attrs = {"type": common.string("gpu"), "uuid": common.string(f"GPU-{uuid}"),
             "productName": common.string(model.product_name), "brand": common.string("Nvidia"),
             "architecture": common.string(model.architecture),
             "cudaComputeCapability": common.version(_semver(model.compute_capability)),
             "driverVersion": common.version(_semver(DRIVER_VERSION)),
             "cudaDriverVersion": common.version(_semver(CUDA_DRIVER_VERSION)),
             common.PCIE_ROOT: common.string(root), common.PCI_BUS_ID: common.string(bus)}
    if numa_attr:
        attrs[common.NUMA_NODE] = common.integer(numa)
    return attrs


def _mig_attributes(gpu_attrs: dict, profile: str) -> dict:
    """mig.go CommonAttributesMig: the parent's identity and versions, type mig, the profile."""
    attrs = {"type": common.string("mig"), "parentUUID": gpu_attrs["uuid"], "profile": common.string(profile)}
    for key in ("productName", "brand", "architecture", "cudaComputeCapability", "driverVersion",
                "cudaDriverVersion", common.PCIE_ROOT, common.NUMA_NODE):
        if key in gpu_attrs:
            attrs[key] = gpu_attrs[key]
    return attrs


_STATIC_MIG = re.compile(r"^\s*(?P<profile>[0-9a-z.+]+)\s*(?:[x×*]\s*(?P<count>\d+))?\s*$")


def parse_static_mig(entries: list, model: GpuModel, where: str) -> list[MigProfile]:
    """`["1g.10gb×7"]` -> seven 1g.10gb profiles; an unknown profile is an error naming the known ones."""
    from drasim.hardware.pools import PoolError

    by_name = {p.name: p for p in model.mig}
    out: list[MigProfile] = []
    for i, entry in enumerate(entries):
        m = _STATIC_MIG.match(str(entry))
        if not m or m["profile"] not in by_name:
            raise PoolError(f"{where}.mig[{i}]: {entry!r} is not a MIG profile of {model.product_name} "
                            f"(known: {', '.join(by_name)}; write e.g. \"1g.10gb×7\")")
        out.extend([by_name[m["profile"]]] * int(m["count"] or 1))
    slices = sum(p.placements[0][1] for p in out)
    if slices > model.memory_slices:
        raise PoolError(f"{where}.mig: the instances need {slices} memory slices, {model.product_name} has "
                        f"{model.memory_slices}")
    return out


def _place(profiles: list[MigProfile], slices: int) -> list[tuple[MigProfile, int, int]]:
    """First-fit placement of created MIG instances (largest first, as mig-parted would succeed)."""
    used = [False] * slices
    out = []
    for p in sorted(profiles, key=lambda p: -p.placements[0][1]):
        for start, size in p.placements:
            if not any(used[start:start + size]):
                used[start:start + size] = [True] * size
                out.append((p, start, size))
                break
        else:
            return []
    return sorted(out, key=lambda t: t[1])


def node_slices(node_name: str, gpus: int, model: GpuModel, mig, numa_nodes: int, numa_attr: bool) -> list[dict]:
    """The slices one node's plugin publishes: one device slice per GPU (a GPU's whole-plus-MIG
    devices exceed the 64 devices a slice with counters may hold), plus one counters slice."""
    device_lists: list[list[dict]] = []
    counter_sets: list[dict] = []
    for minor in range(gpus):
        uuid = common.stable_uuid(node_name, DRIVER, str(minor))
        numa, root, bus = common.topology(minor, gpus, numa_nodes, 0x18)
        attrs = _gpu_attributes(model, uuid, numa, root, bus, numa_attr)
        gpu_name = f"gpu-{minor}"
        devices = []
        if mig == "dynamic":
            counter_set = f"{gpu_name}-counter-set"
            full = _max_capacity(model)
            counter_sets.append({"name": counter_set, "counters": _counters(full, 0, model.memory_slices)})
            devices.append({"name": gpu_name, "attributes": attrs, "capacity": full,
                            "consumesCounters": [{"counterSet": counter_set,
                                                  "counters": _counters(full, 0, model.memory_slices)}]})
            for p in model.mig:
                for start, size in p.placements:
                    devices.append({"name": f"{gpu_name}-mig-{_rfc1123(p.name)}-{p.profile_id}-{start}",
                                    "attributes": _mig_attributes(attrs, p.name), "capacity": _mig_capacity(p),
                                    "consumesCounters": [{"counterSet": counter_set,
                                                          "counters": _counters(_mig_capacity(p), start, size)}]})
        elif mig:
            for p, start, size in _place(list(mig), model.memory_slices):
                mig_attrs = _mig_attributes(attrs, p.name)
                mig_attrs["uuid"] = common.string(f"MIG-{common.stable_uuid(node_name, DRIVER, gpu_name, str(start))}")
                capacity = _mig_capacity(p)
                for i in range(start, start + size):   # deviceinfo.go MigDeviceInfo.GetDevice
                    capacity[f"memorySlice{i}"] = {"value": "1"}
                devices.append({"name": f"{gpu_name}-mig-{_rfc1123(p.name)}-{p.profile_id}-{start}",
                                "attributes": mig_attrs, "capacity": capacity})
        else:
            devices.append({"name": gpu_name, "attributes": attrs,
                            "capacity": {"memory": {"value": f"{model.memory_mib}Mi"}}})
        device_lists.append(devices)
    count = len(device_lists) + (1 if counter_sets else 0)
    out = [common.resource_slice(f"{node_name}-{DRIVER}-gpu-{i}", DRIVER, node_name, 1, count, devices=d)
           for i, d in enumerate(device_lists)]
    if counter_sets:
        out.append(common.resource_slice(f"{node_name}-{DRIVER}-counters", DRIVER, node_name, 1, count,
                                         counters=counter_sets))
    return out
