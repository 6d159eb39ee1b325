"""Device taints in real time: the dry-run message via `kubectl describe`, NoExecute eviction,
and `tolerationSeconds` running on the virtual clock at --speed."""
from __future__ import annotations

import time

import pytest

from tests.server.harness import EXAMPLES, Serve

TAINTS = EXAMPLES / "taint-maintenance"
DELAYED = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu-300, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          tolerations: [{key: example.com/maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
---
apiVersion: v1
kind: Pod
metadata: {name: delayed, namespace: default}
spec:
  containers: [{name: app, image: pause, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-300}]
"""


@pytest.fixture
def taints(kubectl_available, tmp_path):
    s = Serve(tmp_path, TAINTS / "00-cluster.yaml", speed=100)
    try:
        yield s
    finally:
        s.stop()


def _exists(s, pod):
    return s.kubectl("get", "pod", pod, check=False).returncode == 0


def test_dry_run_then_no_execute_with_toleration_seconds_at_100x(taints):
    s = taints
    s.kubectl("apply", "-f", "-", input=DELAYED)
    s.kubectl("wait", "--for=condition=Ready", "pod/delayed", "pod/worker", "--timeout=10s")
    s.kubectl("apply", "-f", str(TAINTS / "01-dry-run.yaml"))
    described = s.wait_until(lambda: "would be evicted" in (out := s.kubectl(
        "describe", "devicetaintrule", "node-1-maintenance").stdout) and out)
    assert "2 pods would be evicted in 1 namespace if the effect was NoExecute" in " ".join(described.split())
    s.kubectl("apply", "-f", str(TAINTS / "02-no-execute.yaml"))
    start = time.monotonic()
    s.wait_until(lambda: not _exists(s, "worker"), timeout=5)
    assert _exists(s, "delayed")          # 300 virtual seconds are 3 wall seconds at 100x
    s.wait_until(lambda: not _exists(s, "delayed"), timeout=15)
    assert time.monotonic() - start >= 2.0
    assert _exists(s, "forever")
    s.kubectl("wait", "--for=condition=EvictionInProgress=false", "devicetaintrule/node-1-maintenance",
              "--timeout=15s")
