"""Node pools, described in a few lines, turned into the objects a real cluster would hold.

    pools:
    - name: h100                 # nodes h100-0 … h100-3, label drasim.io/node-pool=h100
      count: 4
      node: {cpu: "96", memory: 1Ti, pods: "110", labels: {topology.kubernetes.io/zone: a}}
      drivers:
      - nvidia: {gpus: 8, model: H100-SXM5-80GB, mig: dynamic}     # or mig: ["1g.10gb×7"]
      - example-net: {nics: 2}
      numaNodes: 2               # devices split over NUMA nodes (PCIe root per NUMA node)
      numaNode: true             # publish resource.kubernetes.io/numaNode (default true)
    - name: copy-of-a-real-node  # a pool cloned from a node of a snapshot
      count: 10
      cloneFrom: {snapshot: cluster/, node: gpu-node-7}

Drivers: `nvidia` (drasim/hardware/nvidia.py), `example-gpu` (gpus, partitions,
allowMultipleAllocations, extendedResourceName) and `example-net` (nics). Every driver's
DeviceClasses are included once.
"""
from __future__ import annotations

import copy

from drasim.errors import InputError
from drasim.hardware import common, example, nvidia

DRIVERS = ("nvidia", "example-gpu", "example-net")


class PoolError(InputError):
    """A pool spec drasim cannot turn into an inventory."""


def _int(value, where: str, minimum: int = 0, maximum: int = 100_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise PoolError(f"{where}: must be an integer from {minimum} to {maximum}, not {value!r}")
    return value


def _mapping(value, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PoolError(f"{where}: must be a mapping, not {type(value).__name__}")
    return value


def _known(spec: dict, allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(spec) - set(allowed))
    if unknown:
        raise PoolError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(allowed)})")


def _driver_objects(pool: dict, where: str, node_name: str, numa_nodes: int, numa_attr: bool,
                    classes: dict[str, dict]) -> list[dict]:
    out = []
    for i, entry in enumerate(pool.get("drivers") or ()):
        here = f"{where}.drivers[{i}]"
        entry = _mapping(entry, here)
        if len(entry) != 1 or next(iter(entry)) not in DRIVERS:
            raise PoolError(f"{here}: must be one of {', '.join(DRIVERS)} with its options, e.g. {{nvidia: {{gpus: 8}}}}")
        name, options = next(iter(entry.items()))
        options = _mapping(options, f"{here}.{name}")
        if name == "nvidia":
            _known(options, ("gpus", "model", "mig"), f"{here}.nvidia")
            model_name = options.get("model", "H100-SXM5-80GB")
            if model_name not in nvidia.MODELS:
                raise PoolError(f"{here}.nvidia.model: {model_name!r} is not modelled (known: {', '.join(nvidia.MODELS)})")
            model = nvidia.MODELS[model_name]
            mig = options.get("mig", False)
            if isinstance(mig, list):
                mig = nvidia.parse_static_mig(mig, model, f"{here}.nvidia")
            elif mig not in (False, None, "dynamic"):
                raise PoolError(f"{here}.nvidia.mig: must be dynamic, false or a list such as [\"1g.10gb×7\"]")
            out += nvidia.node_slices(node_name, _int(options.get("gpus", 8), f"{here}.nvidia.gpus", 1, 64), model,
                                      mig, numa_nodes, numa_attr)
            for dc in nvidia.device_classes():
                classes.setdefault(dc["metadata"]["name"], dc)
        elif name == "example-gpu":
            _known(options, ("gpus", "partitions", "allowMultipleAllocations", "extendedResourceName"),
                   f"{here}.example-gpu")
            out += example.gpu_slices(node_name, _int(options.get("gpus", 8), f"{here}.example-gpu.gpus", 1, 128),
                                      _int(options.get("partitions", 0), f"{here}.example-gpu.partitions", 0, 16),
                                      bool(options.get("allowMultipleAllocations", False)), numa_nodes, numa_attr)
            for dc in example.device_classes(example.GPU_DRIVER, options.get("extendedResourceName")):
                classes.setdefault(dc["metadata"]["name"], dc)
        else:
            _known(options, ("nics",), f"{here}.example-net")
            out += example.net_slices(node_name, _int(options.get("nics", 1), f"{here}.example-net.nics", 1, 128),
                                      numa_nodes, numa_attr)
            for dc in example.device_classes(example.NET_DRIVER):
                classes.setdefault(dc["metadata"]["name"], dc)
    return out


def _clone(pool: dict, where: str, count: int, name: str) -> list[dict]:
    """Copies of a real node and its node-local slices, renamed."""
    from drasim.api.loader import load_paths

    source = _mapping(pool.get("cloneFrom"), f"{where}.cloneFrom")
    _known(source, ("snapshot", "node"), f"{where}.cloneFrom")
    if not isinstance(source.get("snapshot"), str) or not isinstance(source.get("node"), str):
        raise PoolError(f"{where}.cloneFrom: needs snapshot (a file or folder) and node (a node name)")
    docs = load_paths([source["snapshot"]])
    original = next((d.obj for d in docs if d.kind.kind == "Node" and d.obj["metadata"].get("name") == source["node"]),
                    None)
    if original is None:
        raise PoolError(f"{where}.cloneFrom: node {source['node']!r} is not in {source['snapshot']}")
    slices = [d.obj for d in docs if d.kind.kind == "ResourceSlice"
              and (d.obj.get("spec") or {}).get("nodeName") == source["node"]]
    out = []
    for i in range(count):
        node_name = f"{name}-{i}"
        node = copy.deepcopy(original)
        node["metadata"] = {"name": node_name, "labels": {**(original["metadata"].get("labels") or {}),
                                                         "kubernetes.io/hostname": node_name, common.POOL_LABEL: name}}
        node.pop("spec", None)
        out.append(node)
        for sl in slices:
            clone = copy.deepcopy(sl)
            clone["metadata"] = {"name": sl["metadata"]["name"].replace(source["node"], node_name, 1)
                                 if source["node"] in sl["metadata"]["name"] else f"{node_name}-{sl['metadata']['name']}"}
            clone["spec"]["nodeName"] = node_name
            clone["spec"]["pool"] = dict(clone["spec"].get("pool") or {}, name=node_name)
            clone.pop("status", None)
            out.append(clone)
    return out


def generate(spec) -> list[dict]:
    """Nodes, ResourceSlices and DeviceClasses for every pool of the spec, in that order per pool
    and with the classes first."""
    spec = _mapping(spec, "pool spec")
    _known(spec, ("pools",), "pool spec")
    pools = spec.get("pools")
    if not isinstance(pools, list) or not pools:
        raise PoolError("pools: must be a non-empty list of node pools")
    classes: dict[str, dict] = {}
    objects: list[dict] = []
    names: set[str] = set()
    for i, pool in enumerate(pools):
        where = f"pools[{i}]"
        pool = _mapping(pool, where)
        _known(pool, ("name", "count", "node", "drivers", "numaNodes", "numaNode", "cloneFrom"), where)
        name = pool.get("name")
        if not isinstance(name, str) or not name or name in names:
            raise PoolError(f"{where}.name: a unique, non-empty pool name is required")
        names.add(name)
        count = _int(pool.get("count", 1), f"{where}.count", 1, 100_000)
        if "cloneFrom" in pool:
            objects += _clone(pool, where, count, name)
            continue
        shape = _mapping(pool.get("node"), f"{where}.node")
        _known(shape, ("cpu", "memory", "pods", "labels"), f"{where}.node")
        numa_nodes = _int(pool.get("numaNodes", 1), f"{where}.numaNodes", 1, 16)
        numa_attr = bool(pool.get("numaNode", True))
        for k in range(count):
            node_name = f"{name}-{k}"
            objects.append(common.node(node_name, name, str(shape.get("cpu", "64")), str(shape.get("memory", "512Gi")),
                                       str(shape.get("pods", "110")),
                                       {str(a): str(b) for a, b in _mapping(shape.get("labels"), f"{where}.node.labels").items()}))
            objects += _driver_objects(pool, where, node_name, numa_nodes, numa_attr, classes)
    return list(classes.values()) + objects
