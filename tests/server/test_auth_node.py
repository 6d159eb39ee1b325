"""--authorization-mode=Node,RBAC: a kubelet's identity writes only its own node's ResourceSlices
(k8s: node_authorizer.go authorizeResourceSlice, noderestriction admitResourceSlice)."""
from __future__ import annotations

import subprocess

import pytest

from drasim.auth import node
from drasim.auth.attributes import Attributes, field_requirements
from drasim.auth.tokens import User
from tests.server.harness import DRASIM, EXAMPLES, ROOT, Serve

SLICES = "/apis/resource.k8s.io/v1/resourceslices"
NODE1 = "system:node:gpu-node-1"
TOKENS = (f'n1-token,{NODE1},2001,"system:nodes"\n'
          'n2-token,system:node:gpu-node-2,2002,"system:nodes"\n'
          'fake-token,system:node:gpu-node-1,2003\n'          # the name without the group: not a node
          'alice-token,alice,1001\n')


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def piece(name, node_name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "gpu.example.com", "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "g0"}]}}


@pytest.fixture(scope="module")
def node_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("node")
    (tmp / "tokens.csv").write_text(TOKENS)
    s = Serve(tmp, EXAMPLES / "extended-resource-explicit" / "cluster.yaml",
              extra=("--token-auth-file", str(tmp / "tokens.csv"), "--authorization-mode", "Node,RBAC"))
    try:
        yield s
    finally:
        s.stop()


def test_a_node_creates_updates_and_deletes_only_its_own_slices(node_server):
    s, n1 = node_server, bearer("n1-token")
    code, created = s.call("POST", SLICES, piece("n1-extra", "gpu-node-1"), headers=n1)
    assert code == 201, created
    code, status = s.call("POST", SLICES, piece("n1-lies", "gpu-node-2"), headers=n1)
    assert code == 403
    assert status["message"] == ('resourceslices.resource.k8s.io "n1-lies" is forbidden: can only create '
                                 'ResourceSlice with the same NodeName as the requesting node')
    assert status["details"] == {"name": "n1-lies", "group": "resource.k8s.io", "kind": "resourceslices"}
    assert s.call("GET", SLICES + "/n1-lies")[0] == 404   # nothing was stored
    # gpu-node-2's slice, made by the admin: node 1 cannot read, change or delete it
    assert s.call("POST", SLICES, piece("n2-slice", "gpu-node-2"))[0] == 201
    for method, body in (("GET", None), ("PUT", piece("n2-slice", "gpu-node-2")), ("DELETE", None)):
        code, status = s.call(method, SLICES + "/n2-slice", body, headers=n1)
        assert code == 403, (method, status)
        verb = {"GET": "get", "PUT": "update", "DELETE": "delete"}[method]
        assert status["message"] == (
            f'resourceslices.resource.k8s.io "n2-slice" is forbidden: User "{NODE1}" cannot {verb} resource '
            '"resourceslices" in API group "resource.k8s.io" at the cluster scope: '
            "no relationship found between node 'gpu-node-1' and this object")
    # its own: get, update, delete
    code, got = s.call("GET", SLICES + "/n1-extra", headers=n1)
    assert code == 200
    got["spec"]["devices"].append({"name": "g1"})
    assert s.call("PUT", SLICES + "/n1-extra", got, headers=n1)[0] == 200
    assert s.call("DELETE", SLICES + "/n1-extra", headers=n1)[0] == 200
    assert s.call("GET", SLICES + "/n2-slice")[0] == 200


def test_a_node_lists_slices_only_with_its_node_name_field_selector(node_server):
    s, n1 = node_server, bearer("n1-token")
    code, status = s.call("GET", SLICES, headers=n1)
    assert code == 403
    assert status["message"].endswith(": can only list/watch/deletecollection resourceslices with nodeName "
                                      "field selector")
    code, listed = s.call("GET", SLICES + "?fieldSelector=spec.nodeName%3Dgpu-node-1", headers=n1)
    assert code == 200
    assert {i["spec"]["nodeName"] for i in listed["items"]} == {"gpu-node-1"}
    assert s.call("GET", SLICES + "?fieldSelector=spec.nodeName%3Dgpu-node-2", headers=n1)[0] == 403


def test_only_a_user_in_system_nodes_is_a_node_and_rbac_still_decides_for_others(node_server):
    s = node_server
    # the node name without the group is an ordinary user: RBAC has no binding for it
    code, status = s.call("POST", SLICES, piece("fake", "gpu-node-1"), headers=bearer("fake-token"))
    assert code == 403 and status["message"].startswith(
        'resourceslices.resource.k8s.io is forbidden: User "system:node:gpu-node-1" cannot create')
    assert s.call("GET", SLICES, headers=bearer("alice-token"))[0] == 403
    # RBAC after Node: a grant lets alice in even though the node authorizer has no opinion
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "slices"},
            "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["list"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "alice-slices"}, "subjects": [{"kind": "User", "name": "alice"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "slices"}}
    assert s.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role)[0] == 201
    assert s.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)[0] == 201
    assert s.call("GET", SLICES, headers=bearer("alice-token"))[0] == 200


def test_node_restriction_limits_node_objects_and_pod_status(node_server):
    s, n1 = node_server, bearer("n1-token")
    code, status = s.call("GET", "/api/v1/nodes/gpu-node-1", headers=n1)
    assert code == 200
    code, status = s.call("GET", "/api/v1/nodes", headers=n1)
    assert code == 403 and "node 'gpu-node-1' cannot read all nodes, only its own Node object" in status["message"]
    other = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-node-9"}}
    code, status = s.call("POST", "/api/v1/nodes", other, headers=n1)
    assert code == 403
    assert status["message"] == 'nodes "gpu-node-9" is forbidden: node "gpu-node-1" is not allowed to modify node "gpu-node-9"'


def test_an_unknown_mode_or_a_repeated_one_is_one_error_line(tmp_path):
    for mode, tail in (("RBAC,Webhook", 'authorization-mode "Webhook" is not a valid mode'),
                       ("RBAC,RBAC", 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once')):
        r = subprocess.run([*DRASIM, "serve", "--kubeconfig", str(tmp_path / "kc"), "--authorization-mode", mode],
                           capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert tail in r.stderr.strip().splitlines()[-1]


class _Graph:
    def __init__(self, slices=None, pods=None, claims=None):
        self.slices, self.pods, self.claims = slices or {}, pods or {}, claims or {}

    def slice_node(self, name):
        return self.slices.get(name)

    def pod_node(self, namespace, name):
        return self.pods.get((namespace, name))

    def claim_nodes(self, namespace, name):
        return self.claims.get((namespace, name), set())


def _attrs(user, verb, resource, name="", namespace="", group="resource.k8s.io", fields=""):
    return Attributes(user, verb, True, group, "v1", resource, "", namespace, name,
                      field_selector=field_requirements(fields))


def test_node_authorizer_rules_unit():
    n1 = User(NODE1, "", ("system:nodes", "system:authenticated"))
    g = _Graph(slices={"mine": "gpu-node-1", "theirs": "gpu-node-2"}, claims={("ns", "c"): {"gpu-node-1"}})
    assert node.authorize(g, _attrs(n1, "create", "resourceslices")).allowed
    assert node.authorize(g, _attrs(n1, "patch", "resourceslices", "mine")).allowed
    assert not node.authorize(g, _attrs(n1, "patch", "resourceslices", "theirs")).allowed
    assert node.authorize(g, _attrs(n1, "deletecollection", "resourceslices", fields="spec.nodeName==gpu-node-1")).allowed
    assert not node.authorize(g, _attrs(n1, "watch", "resourceslices", fields="spec.nodeName!=gpu-node-1")).allowed
    assert node.authorize(g, _attrs(n1, "get", "resourceclaims", "c", "ns")).allowed
    assert not node.authorize(g, _attrs(n1, "update", "resourceclaims", "c", "ns")).allowed
    assert not node.authorize(g, _attrs(n1, "get", "resourceclaims", "c", "other")).allowed
    assert node.authorize(g, _attrs(n1, "create", "events", namespace="ns", group="")).allowed
    assert not node.authorize(g, _attrs(n1, "get", "secrets", "s", "ns", group="")).allowed
    nameless = User("system:node:", "", ("system:nodes",))
    assert node.authorize(g, _attrs(nameless, "create", "resourceslices")).reason == \
        'unknown node for user "system:node:"'
    # NodeRestriction on delete reads the stored object
    assert node.admit(n1, "delete", "ResourceSlice", "", "theirs", None, piece("theirs", "gpu-node-2")).reason == \
        "can only delete ResourceSlice with the same NodeName as the requesting node"
    assert node.admit(n1, "delete", "ResourceSlice", "", "mine", None, piece("mine", "gpu-node-1")) is None
    assert node.admit(User("alice"), "create", "ResourceSlice", "", "x", piece("x", "elsewhere"), None) is None


def test_kubectl_as_a_node_sees_node_restriction(node_server, kubectl_available):
    manifest = ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\n"
                "spec: {driver: gpu.example.com, nodeName: %s, pool: {name: p, generation: 1, resourceSliceCount: 1},"
                " devices: [{name: g0}]}\n")
    ok = node_server.kubectl("--token=n1-token", "create", "-f", "-", input=manifest % ("via-kubectl", "gpu-node-1"))
    assert "resourceslice.resource.k8s.io/via-kubectl created" in ok.stdout
    r = node_server.kubectl("--token=n1-token", "create", "-f", "-", input=manifest % ("other-node", "gpu-node-2"),
                            check=False)
    assert r.returncode == 1
    assert ('Error from server (Forbidden): error when creating "STDIN": resourceslices.resource.k8s.io "other-node" '
            "is forbidden: can only create ResourceSlice with the same NodeName as the requesting node") in r.stderr
