"""RBAC escalation prevention: Roles grant only what their writer holds unless `escalate`; bindings
bind only roles whose rules the writer holds unless `bind` (pkg/registry/rbac/.../policybased)."""
from __future__ import annotations

import pytest

from drasim.auth import escalation
from tests.server.harness import EXAMPLES, Serve

RBAC = "/apis/rbac.authorization.k8s.io/v1"
NS = f"{RBAC}/namespaces/team-a"
TOKENS = 'alice-token,alice,1001,"dev"\n'
ALICE = {"Authorization": "Bearer alice-token"}
G = "rbac.authorization.k8s.io"


def role(name, rules, kind="Role"):
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": {"name": name}, "rules": rules}


def binding(name, role_kind, role_name, subject="bob", kind="RoleBinding"):
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": {"name": name},
            "subjects": [{"kind": "User", "name": subject, "apiGroup": G}],
            "roleRef": {"apiGroup": G, "kind": role_kind, "name": role_name}}


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("escalation")
    (tmp / "tokens.csv").write_text(TOKENS)
    server = Serve(tmp, EXAMPLES / "extended-resource-explicit" / "cluster.yaml",
                   extra=("--token-auth-file", str(tmp / "tokens.csv"), "--authorization-mode", "RBAC"))
    try:
        for ns in ("team-a", "team-b"):   # RBAC objects, like others, need their namespace
            assert server.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                      "metadata": {"name": ns}})[0] == 201
        # alice may write roles and bindings in team-a, and read claims there
        assert server.call("POST", f"{NS}/roles", role("rbac-writer", [
            {"apiGroups": [G], "resources": ["roles", "rolebindings"], "verbs": ["create", "update", "patch", "get"]},
            {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["get", "list"]},
            {"apiGroups": ["resource.k8s.io"], "resources": ["*/status"], "verbs": ["update"]}]))[0] == 201
        assert server.call("POST", f"{NS}/rolebindings", binding("alice-writes", "Role", "rbac-writer", "alice"))[0] == 201
        yield server
    finally:
        server.stop()


def test_a_role_may_grant_only_what_its_writer_holds(s):
    held = role("readers", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["get"]},
                            {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"],
                             "verbs": ["update"]}])
    code, body = s.call("POST", f"{NS}/roles", held, headers=ALICE)
    assert code == 201, body
    more = role("too-much", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
                              "verbs": ["get", "delete", "update"]}])
    code, status = s.call("POST", f"{NS}/roles", more, headers=ALICE)
    assert code == 403
    assert status["message"] == (
        'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:["resource.k8s.io"], Resources:["resourceclaims"], Verbs:["delete" "update"]}')
    assert status["details"] == {"name": "too-much", "group": G, "kind": "roles"}
    assert s.call("GET", f"{NS}/roles/too-much")[0] == 404
    # an update that adds a verb is checked the same way
    code, current = s.call("GET", f"{NS}/roles/readers", headers=ALICE)
    current["rules"][0]["verbs"].append("watch")
    code, status = s.call("PUT", f"{NS}/roles/readers", current, headers=ALICE)
    assert code == 403 and 'Verbs:["watch"]' in status["message"]
    # in another namespace alice holds nothing
    code, status = s.call("POST", f"{RBAC}/namespaces/team-b/roles", held, headers=ALICE)
    assert code == 403 and "cannot create resource" in status["message"]


def test_escalate_lets_a_writer_grant_more(s):
    assert s.call("POST", f"{NS}/roles", role("escalator", [{"apiGroups": [G], "resources": ["roles"],
                                                               "verbs": ["escalate"]}]))[0] == 201
    assert s.call("POST", f"{NS}/rolebindings", binding("alice-escalates", "Role", "escalator", "alice"))[0] == 201
    more = role("allowed-now", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["*"]}])
    assert s.call("POST", f"{NS}/roles", more, headers=ALICE)[0] == 201


def test_a_binding_needs_the_roles_rules_or_bind(s):
    reader = role("claim-reader", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["list"]}])
    assert s.call("POST", f"{NS}/roles", reader)[0] == 201
    assert s.call("POST", f"{NS}/rolebindings", binding("bob-reads", "Role", "claim-reader"), headers=ALICE)[0] == 201
    code, status = s.call("POST", f"{NS}/rolebindings", binding("bob-admin", "ClusterRole", "cluster-admin"),
                          headers=ALICE)
    assert code == 403
    assert status["message"].startswith(
        'rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" (groups=["dev" '
        '"system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n')
    assert '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}' in status["message"]
    assert '{NonResourceURLs:["*"], Verbs:["*"]}' in status["message"]
    code, status = s.call("POST", f"{NS}/rolebindings", binding("ghost", "Role", "no-such-role"), headers=ALICE)
    assert (code, status["message"]) == (404, 'role.rbac.authorization.k8s.io "no-such-role" not found')
    # `bind` on that ClusterRole, in team-a, lets alice bind it there
    assert s.call("POST", f"{NS}/roles", role("binder", [{"apiGroups": [G], "resources": ["clusterroles"],
                                                           "verbs": ["bind"], "resourceNames": ["cluster-admin"]}]))[0] == 201
    assert s.call("POST", f"{NS}/rolebindings", binding("alice-binds", "Role", "binder", "alice"))[0] == 201
    assert s.call("POST", f"{NS}/rolebindings", binding("bob-admin", "ClusterRole", "cluster-admin"),
                  headers=ALICE)[0] == 201


def test_covers_unit():
    owner = [{"apiGroups": ["resource.k8s.io"], "resources": ["*/status", "resourceclaims"], "verbs": ["get", "update"]},
             {"apiGroups": ["*"], "resources": ["pods"], "verbs": ["list"], "resourceNames": ["p1"]},
             {"nonResourceURLs": ["/metrics*"], "verbs": ["get"]}]
    assert not escalation.missing_rules(owner, [{"apiGroups": ["resource.k8s.io"],
                                                 "resources": ["resourceclaims/status"], "verbs": ["update"]}])
    assert escalation.missing_rules(owner, [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}])
    assert not escalation.missing_rules(owner, [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"],
                                                 "resourceNames": ["p1"]}])
    assert not escalation.missing_rules(owner, [{"nonResourceURLs": ["/metrics/slis"], "verbs": ["get"]}])
    missing = escalation.missing_rules(owner, [{"nonResourceURLs": ["/healthz"], "verbs": ["get", "post"]}])
    assert [escalation.compact_string(r) for r in escalation.compact(missing)] == [
        '{NonResourceURLs:["/healthz"], Verbs:["get"]}', '{NonResourceURLs:["/healthz"], Verbs:["post"]}']
