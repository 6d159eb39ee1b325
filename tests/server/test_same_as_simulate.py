"""The same manifests give the same placements and allocations through serve (applied by
kubectl) as through simulate."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.server.harness import DRASIM, EXAMPLES, ROOT, Serve


def placements(objects: list[dict]) -> dict:
    """pod → (node, phase, devices of the claims it uses)."""
    claims = {(c["metadata"]["namespace"], c["metadata"]["name"]): c for c in objects if c["kind"] == "ResourceClaim"}
    out = {}
    for pod in (o for o in objects if o["kind"] == "Pod"):
        ns = pod["metadata"]["namespace"]
        status = pod.get("status") or {}
        names = [s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or ()]
        names.append((status.get("extendedResourceClaimStatus") or {}).get("resourceClaimName"))
        devices = sorted(f"{r['driver']}/{r['pool']}/{r['device']}" for n in names if n and (ns, n) in claims
                         for r in ((claims[(ns, n)].get("status") or {}).get("allocation") or {})
                         .get("devices", {}).get("results", ()))
        out[f"{ns}/{pod['metadata']['name']}"] = (pod["spec"].get("nodeName"), status.get("phase"), devices)
    return out


@pytest.mark.parametrize("example", ["gpu-64gi", "extended-resource-explicit"])
def test_serve_places_like_simulate(kubectl_available, tmp_path, example):
    files = [EXAMPLES / example / "cluster.yaml", EXAMPLES / example / "workload.yaml"]
    batch = subprocess.run([*DRASIM, "simulate", *map(str, files), "-o", "json"], capture_output=True, text=True,
                           cwd=ROOT, check=True)
    expected = placements(json.loads(batch.stdout)["items"])
    assert any(node for node, _, _ in expected.values())
    s = Serve(tmp_path)
    try:
        for f in files:
            s.kubectl("apply", "-f", str(f))

        def live():
            got = placements(json.loads(s.kubectl("get", "pods,resourceclaims", "-A", "-o", "json").stdout)["items"])
            return got if got == expected else None
        try:
            s.wait_until(live, timeout=10, interval=0.2)
        except AssertionError:
            got = placements(json.loads(s.kubectl("get", "pods,resourceclaims", "-A", "-o", "json").stdout)["items"])
            assert got == expected
    finally:
        s.stop()
