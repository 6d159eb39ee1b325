"""--insecure-http: plain HTTP only when asked; the kubeconfig then has http:// and no CA."""
from __future__ import annotations

import yaml

from tests.server.harness import EXAMPLES, Serve


def test_insecure_http_serves_plain_http_with_a_kubeconfig_without_ca(tmp_path, kubectl_available):
    s = Serve(tmp_path, EXAMPLES / "extended-resource-explicit" / "cluster.yaml",
              extra=("--insecure-http", "--authorization-mode", "RBAC"))
    try:
        assert s.url.startswith("http://127.0.0.1:")
        config = yaml.safe_load(s.kubeconfig.read_text())
        cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == "drasim")
        assert cluster == {"server": s.url}
        # client-go sends no token over plain HTTP: such a request is the insecure-port superuser
        code, status = s.call("GET", "/api/v1/nodes", headers={"Authorization": None})
        assert code == 200 and [n["metadata"]["name"] for n in status["items"]] == ["gpu-node-1"]
        assert s.call("GET", "/api/v1/nodes", headers={"Authorization": "Bearer wrong"})[0] == 401
        out = s.kubectl("get", "nodes", "-o", "name").stdout.split()
        assert out == ["node/gpu-node-1"]
        r = s.kubectl("auth", "can-i", "create", "deviceclasses")
        assert r.stdout.strip() == "yes"
    finally:
        s.stop()


def test_https_is_the_default(server):
    assert server.url.startswith("https://")
    config = yaml.safe_load(server.kubeconfig.read_text())
    assert next(c["cluster"] for c in config["clusters"] if c["name"] == "drasim").get("certificate-authority-data")
