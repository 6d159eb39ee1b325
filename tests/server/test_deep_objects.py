"""Objects as deep as Kubernetes lets them through `drasim serve`: an opaque parameter nested
thousands of levels is valid under its 10 KiB limit (k8s: validateOpaqueConfiguration,
OpaqueParametersMaxLength) and comes back whole; a deeper, longer one is the API server's 422.
The server runs with the CLI's room to recurse (nesting.run_with_room); it answered 500
(RecursionError) before."""
from __future__ import annotations

import json
import signal

from tests.server.harness import Serve


def claim(name: str, depth: int) -> dict:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}],
                                 "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"a": value}}}]}}}


def body(obj: dict) -> bytes:
    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return json.dumps(obj).encode()
    finally:
        sys.setrecursionlimit(old)


def depth_of(raw: bytes) -> int:
    """How deep the parameter came back, counted on the text (no recursion)."""
    text = raw.decode()
    at = text.index('"a":') + 4
    return len(text[at:]) - len(text[at:].lstrip("["))


def test_a_deep_valid_claim_is_stored_and_read_back_and_a_too_long_one_is_422(tmp_path):
    s = Serve(tmp_path)
    try:
        headers = {"Content-Type": "application/json"}
        code, _, raw = s.raw("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
                             body(claim("deep", 4_000)), headers)
        assert code == 201, raw[:300]
        code, _, raw = s.raw("GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/deep")
        assert code == 200 and depth_of(raw) == 4_000
        code, _, raw = s.raw("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
                                  body(claim("long", 9_990)), headers)
        assert code == 422, raw[:300]
        assert "spec.devices.config[0].opaque.parameters: Too long: may not be more than 10240 bytes" in \
            json.loads(raw)["message"]
        s.proc.send_signal(signal.SIGTERM)   # the signal still stops the server cleanly
        assert s.proc.wait(timeout=10) == 0
        assert "drasim serve: stopped" in s.proc.stdout.read()
    finally:
        s.stop()
