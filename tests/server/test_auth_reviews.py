"""SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview (`kubectl auth can-i --list`)."""
from __future__ import annotations

import pytest

from tests.server.harness import EXAMPLES, Serve

AUTHZ = "/apis/authorization.k8s.io/v1"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
TOKENS = 'alice-token,alice,1001,"dev"\nbob-token,bob,1002\nn1-token,system:node:gpu-node-1,2001,"system:nodes"\n'


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reviews")
    (tmp / "tokens.csv").write_text(TOKENS)
    s = Serve(tmp, EXAMPLES / "extended-resource-explicit" / "cluster.yaml",
              extra=("--token-auth-file", str(tmp / "tokens.csv"), "--authorization-mode", "Node,RBAC"))
    try:
        for ns in ("team-a",):   # RBAC objects, like others, need their namespace
            assert s.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                      "metadata": {"name": ns}})[0] == 201
        claims = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                  "metadata": {"name": "claims", "namespace": "team-a"},
                  "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
                             "verbs": ["get", "list", "watch"]},
                            {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"],
                             "verbs": ["update"], "resourceNames": ["c1"]}]}
        binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "dev-claims", "namespace": "team-a"},
                   "subjects": [{"kind": "Group", "name": "dev", "apiGroup": "rbac.authorization.k8s.io"}],
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "claims"}}
        assert s.call("POST", f"{RBAC}/namespaces/team-a/roles", claims)[0] == 201
        assert s.call("POST", f"{RBAC}/namespaces/team-a/rolebindings", binding)[0] == 201
        yield s
    finally:
        s.stop()


def _sar(user=None, groups=None, **attrs):
    spec = {"resourceAttributes": attrs}
    if user:
        spec["user"] = user
    if groups:
        spec["groups"] = groups
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}


def test_subject_access_review_answers_for_the_named_subject(rbac_server):
    s = rbac_server
    review = _sar("alice", ["dev"], verb="list", group="resource.k8s.io", resource="resourceclaims", namespace="team-a")
    code, answer = s.call("POST", f"{AUTHZ}/subjectaccessreviews", review)
    assert code == 201, answer
    assert answer["status"]["allowed"] is True
    assert answer["status"]["reason"] == ('RBAC: allowed by RoleBinding "dev-claims" of namespace "team-a" of Role '
                                          '"claims" to Group "dev"')
    # the groups are taken as given: alice without "dev" holds nothing there
    code, answer = s.call("POST", f"{AUTHZ}/subjectaccessreviews", _sar("alice", None, verb="list",
                          group="resource.k8s.io", resource="resourceclaims", namespace="team-a"))
    assert answer["status"] == {"allowed": False}
    # the node authorizer answers for node identities, with its reason
    code, answer = s.call("POST", f"{AUTHZ}/subjectaccessreviews", _sar(
        "system:node:gpu-node-1", ["system:nodes"], verb="delete", group="resource.k8s.io",
        resource="resourceslices", name="someone-elses"))
    assert answer["status"] == {"allowed": False,
                                "reason": "no relationship found between node 'gpu-node-1' and this object"}


def test_subject_access_review_needs_create_permission_and_a_valid_spec(rbac_server):
    s = rbac_server
    review = _sar("alice", ["dev"], verb="list", resource="pods")
    code, status = s.call("POST", f"{AUTHZ}/subjectaccessreviews", review, headers=bearer("bob-token"))
    assert code == 403
    assert status["message"] == ('subjectaccessreviews.authorization.k8s.io is forbidden: User "bob" cannot create '
                                 'resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope')
    code, status = s.call("POST", f"{AUTHZ}/subjectaccessreviews", {"kind": "SubjectAccessReview", "spec": {}})
    assert code == 422
    assert status["message"] == (
        'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of '
        'nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one '
        'of user or group must be specified]')


def test_local_subject_access_review_is_bound_to_its_namespace(rbac_server):
    s = rbac_server
    review = dict(_sar("alice", ["dev"], verb="get", group="resource.k8s.io", resource="resourceclaims",
                       namespace="team-a"), kind="LocalSubjectAccessReview")
    code, answer = s.call("POST", f"{AUTHZ}/namespaces/team-a/localsubjectaccessreviews", review)
    assert code == 201 and answer["status"]["allowed"] is True
    code, status = s.call("POST", f"{AUTHZ}/namespaces/team-b/localsubjectaccessreviews", review)
    assert (code, status["message"]) == (400, "spec.resourceAttributes.namespace must match namespace: team-b")


def test_self_subject_rules_review_lists_the_requesters_rules(rbac_server):
    s = rbac_server
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "team-a"}}
    code, answer = s.call("POST", f"{AUTHZ}/selfsubjectrulesreviews", review, headers=bearer("alice-token"))
    assert code == 201, answer
    rules = answer["status"]["resourceRules"]
    assert {"verbs": ["get", "list", "watch"], "apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"]} in rules
    assert {"verbs": ["update"], "apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"],
            "resourceNames": ["c1"]} in rules
    assert {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]} in rules   # system:basic-user
    assert answer["status"]["incomplete"] is False
    # another namespace: only the cluster-wide rules
    review["spec"]["namespace"] = "team-b"
    rules = s.call("POST", f"{AUTHZ}/selfsubjectrulesreviews", review, headers=bearer("alice-token"))[1]["status"]
    assert not any("resourceclaims" in r["resources"] for r in rules["resourceRules"])
    # a node: the node authorizer cannot list its rules
    answer = s.call("POST", f"{AUTHZ}/selfsubjectrulesreviews", review, headers=bearer("n1-token"))[1]
    assert answer["status"]["incomplete"] is True
    assert answer["status"]["evaluationError"] == "node authorizer does not support user rule resolution"
    code, status = s.call("POST", f"{AUTHZ}/selfsubjectrulesreviews", {"spec": {}})
    assert (code, status["message"]) == (400, "no namespace on request")


def test_kubectl_auth_can_i_list(kubectl_available, rbac_server):
    out = rbac_server.kubectl("auth", "can-i", "--list", "-n", "team-a", "--as=alice", "--as-group=dev").stdout
    lines = {" ".join(line.split()) for line in out.splitlines()}
    assert "resourceclaims.resource.k8s.io [] [] [get list watch]" in lines, out
    assert "resourceclaims.resource.k8s.io/status [] [c1] [update]" in lines, out
    out = rbac_server.kubectl("auth", "can-i", "--list", "-n", "team-b", "--as=alice", "--as-group=dev").stdout
    assert "resourceclaims.resource.k8s.io" not in out
    out = rbac_server.kubectl("auth", "can-i", "--list").stdout   # the admin: cluster-admin's wildcard
    assert "*.* [] [] [*]" in {" ".join(line.split()) for line in out.splitlines()}, out


def test_python_client_subject_access_review(rbac_server):
    client = pytest.importorskip("kubernetes.client")
    from kubernetes import config
    api = client.AuthorizationV1Api(config.new_client_from_config(config_file=str(rbac_server.kubeconfig),
                                                                   context="drasim"))
    review = client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user="alice", groups=["dev"], resource_attributes=client.V1ResourceAttributes(
            verb="watch", group="resource.k8s.io", resource="resourceclaims", namespace="team-a")))
    answer = api.create_subject_access_review(review)
    assert answer.status.allowed is True
    rules = api.create_self_subject_rules_review(client.V1SelfSubjectRulesReview(
        spec=client.V1SelfSubjectRulesReviewSpec(namespace="team-a")))
    assert any(r.resources == ["*"] for r in rules.status.resource_rules)   # the admin: cluster-admin


def test_kubectl_auth_whoami(kubectl_available, rbac_server):
    """SelfSubjectReview (authentication.k8s.io/v1): the requester's user info, impersonation included."""
    out = rbac_server.kubectl("auth", "whoami", "--as=alice", "--as-group=dev").stdout
    rows = {tuple(line.split(None, 1)) for line in out.splitlines()[1:] if line.strip()}
    assert ("Username", "alice") in rows, out
    assert any(r[0] == "Groups" and "dev" in r[1] and "system:authenticated" in r[1] for r in rows), out
    code, review = rbac_server.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                    {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert code == 201 and review["status"]["userInfo"]["username"]
