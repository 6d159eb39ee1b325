"""Manifests for the CLI tests: a GPU cluster of any size, as YAML text."""
from __future__ import annotations

import subprocess
import sys


def node(name: str, pool: str = "", cpu: str = "32") -> str:
    labels = f"\n    cloud.google.com/gke-nodepool: {pool}" if pool else ""
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}{labels}
status:
  allocatable: {{cpu: "{cpu}", memory: 256Gi, pods: "110"}}
"""


def gpu_slice(node_name: str, gpus: int = 2, taint: str = "") -> str:
    taints = f"\n    taints: [{taint}]" if taint else ""
    devices = "".join(f"\n  - name: gpu-{i}{taints}" for i in range(gpus))
    return f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node_name}-gpu}}
spec:
  driver: gpu.example.com
  nodeName: {node_name}
  pool: {{name: {node_name}, generation: 1, resourceSliceCount: 1}}
  devices:{devices}
"""


GPU_CLASS = """---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, exactly: {deviceClassName: gpu}}
"""


def gpu_pod(name: str, cpu: str = "1", template: str = "one-gpu", extra: str = "") -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  containers:
  - name: c
    image: i
    resources:
      requests: {{cpu: "{cpu}"}}
      claims: [{{name: gpu}}]
  resourceClaims:
  - {{name: gpu, resourceClaimTemplateName: {template}}}{extra}
"""


def cluster(nodes: int, gpus: int = 2, pool: str = "") -> str:
    return GPU_CLASS + "".join(node(f"node-{i}", pool) + gpu_slice(f"node-{i}", gpus) for i in range(nodes))


def pods(count: int, prefix: str = "p", cpu: str = "1") -> str:
    return "".join(gpu_pod(f"{prefix}-{i}", cpu) for i in range(count))


def drasim(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """The installed command in a real process (stdin, FIFOs, signals need one)."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 120)
    return subprocess.run(command(*args), **kwargs)


def command(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from drasim.cli.main import main; sys.exit(main())", *args]
