"""RBAC objects live in the store: they persist in --data-dir, share the resourceVersion, are watchable."""
from __future__ import annotations

import json
import urllib.request

from tests.server.harness import EXAMPLES, Serve

RBAC = "/apis/rbac.authorization.k8s.io/v1"
G = "rbac.authorization.k8s.io"
TOKENS = "alice-token,alice,1001\n"


def grant(s, name="alice-classes"):
    role = {"apiVersion": f"{G}/v1", "kind": "ClusterRole", "metadata": {"name": name},
            "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"], "verbs": ["list"]}]}
    binding = {"apiVersion": f"{G}/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
               "subjects": [{"kind": "User", "name": "alice", "apiGroup": G}],
               "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": name}}
    code, created = s.call("POST", f"{RBAC}/clusterroles", role)
    assert code == 201, created
    assert s.call("POST", f"{RBAC}/clusterrolebindings", binding)[0] == 201
    return created


def test_rbac_objects_survive_a_restart_of_the_data_dir(tmp_path):
    (tmp_path / "tokens.csv").write_text(TOKENS)
    data = tmp_path / "data"
    extra = ("--data-dir", str(data), "--token-auth-file", str(tmp_path / "tokens.csv"), "--authorization-mode", "RBAC")
    alice = {"Authorization": "Bearer alice-token"}
    s = Serve(tmp_path, EXAMPLES / "extended-resource-explicit" / "cluster.yaml", extra=extra)
    try:
        created = grant(s)
        assert s.call("GET", "/apis/resource.k8s.io/v1/deviceclasses", headers=alice)[0] == 200
        # one resourceVersion sequence with the other kinds
        code, cls = s.call("POST", "/apis/resource.k8s.io/v1/deviceclasses",
                           {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "after"}})
        assert int(cls["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    finally:
        s.stop()
    s = Serve(tmp_path, extra=extra)
    try:
        code, kept = s.call("GET", f"{RBAC}/clusterroles/alice-classes")
        assert code == 200
        assert (kept["metadata"]["uid"], kept["metadata"]["resourceVersion"]) == (
            created["metadata"]["uid"], created["metadata"]["resourceVersion"])
        assert s.call("GET", "/apis/resource.k8s.io/v1/deviceclasses", headers=alice)[0] == 200   # still bound
        # the bootstrap policy is not written twice
        names = [r["metadata"]["name"] for r in s.call("GET", f"{RBAC}/clusterroles")[1]["items"]]
        assert names.count("cluster-admin") == 1
        assert s.call("DELETE", f"{RBAC}/clusterrolebindings/alice-classes")[0] == 200
    finally:
        s.stop()
    s = Serve(tmp_path, extra=extra)
    try:   # the delete was kept too
        assert s.call("GET", "/apis/resource.k8s.io/v1/deviceclasses", headers=alice)[0] == 403
    finally:
        s.stop()


def test_rbac_kinds_are_watchable(tmp_path):
    s = Serve(tmp_path)
    try:
        rv = s.call("GET", f"{RBAC}/clusterroles")[1]["metadata"]["resourceVersion"]
        created = grant(s, "watched")
        ctx = s.ssl
        req = urllib.request.Request(f"{s.url}{RBAC}/clusterroles?watch=1&resourceVersion={rv}&timeoutSeconds=1",
                                     headers={"Authorization": f"Bearer {s.token}"})
        with urllib.request.urlopen(req, timeout=10, context=ctx) as resp:
            events = [json.loads(line) for line in resp.read().splitlines() if line.strip()]
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "watched")]
        assert events[0]["object"]["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
        # without a resourceVersion: the current objects first, as ADDED (bootstrap bindings included)
        code, _, raw = s.raw("GET", f"{RBAC}/clusterrolebindings?watch=true&timeoutSeconds=1")
        names = {json.loads(line)["object"]["metadata"]["name"] for line in raw.splitlines() if line.strip()}
        assert code == 200 and {"watched", "cluster-admin"} <= names
    finally:
        s.stop()


def test_a_role_in_a_namespace_that_does_not_exist_is_404(server):
    role = {"apiVersion": f"{G}/v1", "kind": "Role", "metadata": {"name": "r"}, "rules": []}
    code, status = server.call("POST", f"{RBAC}/namespaces/nowhere/roles", role)
    assert (code, status["message"]) == (404, 'namespaces "nowhere" not found')
