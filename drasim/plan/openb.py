"""`drasim trace import`: the public Alibaba GPU-cluster trace as a DRA cluster and a trace.

alibaba/clusterdata `cluster-trace-gpu-v2023` (the "openb" traces of the USENIX ATC '23
fragmentation paper and its Kubernetes scheduler simulator). Two CSV files:

- nodes (`openb_node_list_*.csv`): `sn,cpu_milli,memory_mib,gpu,model`;
- pods (`openb_pod_list_*.csv`): `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
  pod_phase,creation_time,deletion_time,scheduled_time` (times in seconds).

Turned into (written to a folder `drasim replay` takes):

- a Node per row, CPU and memory as given, label `openb.example.com/gpu-model`;
- per GPU node a ResourceSlice of driver `openb.example.com` with one device per GPU, attribute
  `model`, and `milli: 1000` as consumable capacity (KEP-5075): the GPUs allow several
  allocations, a whole-GPU request takes all 1000 (the request policy's default), a sharing
  task (`num_gpu` 1, `gpu_milli` < 1000) takes its `gpu_milli`;
- DeviceClass `openb-gpu`; `gpu_spec` (`V100M16|V100M32`) becomes a CEL selector on `model`;
- one ResourceClaimTemplate per request shape, and a job per task: arrival
  `creation_time` − the first one, run time `deletion_time` − `creation_time`. With
  `--whole-gpus extended`, whole-GPU tasks without a model constraint ask for the extended
  resource `openb.example.com/gpu` instead (KEP-5004: the class maps it).
"""
from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import yaml

from drasim.errors import InputError

DRIVER = "openb.example.com"
CLASS = "openb-gpu"
EXTENDED = "openb.example.com/gpu"
NAMESPACE = "openb"
MODEL_LABEL = "openb.example.com/gpu-model"
NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "creation_time", "deletion_time")


def _rows(path: str, columns: tuple[str, ...]) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in columns if c not in (reader.fieldnames or ())]
            if missing:
                raise InputError(f"{path}: not an openb CSV: missing column(s) {', '.join(missing)}")
            return list(reader)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def _int(row: dict, key: str, where: str) -> int:
    try:
        return int(float(row.get(key) or 0))
    except ValueError:
        raise InputError(f"{where}: {key}: not a number: {row.get(key)!r}") from None


def _node(row: dict, where: str) -> list[dict]:
    name = row["sn"]
    gpus = _int(row, "gpu", where)
    model = (row.get("model") or "").strip()
    labels = {"kubernetes.io/hostname": name}
    if gpus and model and model != "nan":
        labels[MODEL_LABEL] = model
    res = {"cpu": f"{_int(row, 'cpu_milli', where)}m", "memory": f"{_int(row, 'memory_mib', where)}Mi", "pods": "110"}
    out = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": dict(res), "allocatable": dict(res)}}]
    if gpus:
        devices = [{"name": f"gpu-{i}", "allowMultipleAllocations": True,
                    "attributes": {"model": {"string": model or "unknown"}, "index": {"int": i}},
                    "capacity": {"milli": {"value": "1000", "requestPolicy": {
                        "default": "1000", "validRange": {"min": "1", "max": "1000", "step": "1"}}}}}
                   for i in range(gpus)]
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpus"},
                    "spec": {"driver": DRIVER, "nodeName": name,
                             "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}})
    return out


def _template(num_gpu: int, milli: int, spec: str) -> tuple[str, dict]:
    exactly: dict = {"deviceClassName": CLASS}
    if num_gpu > 1:
        exactly["count"] = num_gpu
    if num_gpu == 1 and 0 < milli < 1000:
        exactly["capacity"] = {"requests": {"milli": str(milli)}}
    models = [m for m in spec.split("|") if m and m != "nan"]
    if models:
        exactly["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model in '
                                                       f'[{", ".join(chr(34) + m + chr(34) for m in models)}]'}}]
    suffix = f"-{hashlib.sha256(spec.encode()).hexdigest()[:6]}" if models else ""
    name = f"gpu-{num_gpu}x{milli}{suffix}"
    return name, {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                  "metadata": {"name": name, "namespace": NAMESPACE},
                  "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}}


def convert(nodes_csv: str, pods_csv: str, out: str, whole_gpus: str = "claims", limit: int | None = None) -> dict:
    """Write cluster.yaml and trace.yaml into `out`; return counts."""
    if whole_gpus not in ("claims", "extended"):
        raise InputError(f"--whole-gpus: claims or extended, not {whole_gpus!r}")
    objects: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}]
    cls: dict = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": CLASS},
                 "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
    if whole_gpus == "extended":
        cls["spec"]["extendedResourceName"] = EXTENDED
    objects.append(cls)
    node_rows = _rows(nodes_csv, NODE_COLUMNS)
    for i, row in enumerate(node_rows, start=2):
        objects += _node(row, f"{nodes_csv}:{i}")
    pod_rows = _rows(pods_csv, POD_COLUMNS)[:limit]
    templates: dict[str, dict] = {}
    jobs = []
    t0 = min((_int(r, "creation_time", pods_csv) for r in pod_rows), default=0)
    for i, row in enumerate(pod_rows, start=2):
        where = f"{pods_csv}:{i}"
        num_gpu, milli = _int(row, "num_gpu", where), _int(row, "gpu_milli", where)
        spec = (row.get("gpu_spec") or "").strip()
        container: dict = {"name": "task", "image": "registry.k8s.io/pause:3.10",
                           "resources": {"requests": {"cpu": f"{_int(row, 'cpu_milli', where)}m",
                                                      "memory": f"{_int(row, 'memory_mib', where)}Mi"}}}
        pod_spec: dict = {"restartPolicy": "Never", "containers": [container]}
        whole = num_gpu >= 1 and (milli in (0, 1000) or num_gpu > 1)
        if num_gpu and whole_gpus == "extended" and whole and spec in ("", "nan"):
            container["resources"]["limits"] = {EXTENDED: str(num_gpu)}
            container["resources"]["requests"][EXTENDED] = str(num_gpu)
        elif num_gpu:
            name, template = _template(num_gpu, milli if not whole else 1000, spec)
            templates.setdefault(name, template)
            pod_spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": name}]
            container["resources"]["claims"] = [{"name": "gpu"}]
        created, deleted = _int(row, "creation_time", where), _int(row, "deletion_time", where)
        jobs.append({"name": row["name"], "at": f"{created - t0}s", "namespace": NAMESPACE,
                     "runFor": f"{max(1, deleted - created)}s",
                     "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": row["name"]}, "spec": pod_spec}})
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        (folder / "cluster.yaml").write_text(yaml.dump_all(objects + list(templates.values()), Dumper=dumper,
                                                           sort_keys=False))
        (folder / "trace.yaml").write_text(yaml.dump({"jobs": jobs}, Dumper=dumper, sort_keys=False))
    except OSError as e:
        raise InputError(f"-o {out}: cannot write: {e.strerror or e}") from None
    return {"nodes": len(node_rows), "gpuNodes": sum(1 for o in objects if o["kind"] == "ResourceSlice"),
            "jobs": len(jobs), "templates": len(templates)}
