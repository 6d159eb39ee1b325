"""The RBAC evaluator (drasim/auth/rbac.py), the request attributes and the token file."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drasim.auth import rbac
from drasim.auth.attributes import Attributes, request_attributes
from drasim.auth.tokens import User, bearer_token, parse_token_csv
from drasim.errors import InputError

ALICE = User("alice", "1", ("dev", "system:authenticated"))


def res(verb, resource, group="resource.k8s.io", namespace="", name="", sub="", user=ALICE):
    return Attributes(user, verb, True, group, "v1", resource, sub, namespace, name)


def cluster_role(name, rules, labels=None, aggregate=None):
    obj = {"kind": "ClusterRole", "metadata": {"name": name, "labels": labels or {}}, "rules": rules}
    if aggregate is not None:
        obj["aggregationRule"] = {"clusterRoleSelectors": aggregate}
    return obj


def crb(name, role, *subjects):
    return {"kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": list(subjects)}


def rb(name, ns, kind, role, *subjects):
    return {"kind": "RoleBinding", "metadata": {"name": name, "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role}, "subjects": list(subjects)}


USER_ALICE = {"kind": "User", "name": "alice"}


def test_wildcards_subresources_and_resource_names():
    rule = {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status", "deviceclasses"],
            "verbs": ["update"], "resourceNames": ["gpu"]}
    assert rbac.rule_allows(res("update", "deviceclasses", name="gpu"), rule)
    assert not rbac.rule_allows(res("update", "deviceclasses", name="other"), rule)
    assert not rbac.rule_allows(res("update", "deviceclasses"), rule)   # a named rule never matches a list
    assert rbac.rule_allows(res("update", "resourceclaims", name="gpu", sub="status"), rule)
    assert not rbac.rule_allows(res("update", "resourceclaims", name="gpu"), rule)
    star_sub = {"apiGroups": ["*"], "resources": ["*/status"], "verbs": ["get"]}
    assert rbac.rule_allows(res("get", "pods", group="", name="p", sub="status"), star_sub)
    assert not rbac.rule_allows(res("get", "pods", group="", name="p"), star_sub)
    assert not rbac.rule_allows(res("get", "deviceclasses", group="apps"),
                                {"apiGroups": ["resource.k8s.io"], "resources": ["*"], "verbs": ["*"]})


def test_non_resource_urls_with_a_trailing_star():
    rule = {"nonResourceURLs": ["/healthz", "/apis/*"], "verbs": ["get"]}
    assert rbac.rule_allows(Attributes(ALICE, "get", False, path="/healthz"), rule)
    assert rbac.rule_allows(Attributes(ALICE, "get", False, path="/apis/resource.k8s.io/v1"), rule)
    assert not rbac.rule_allows(Attributes(ALICE, "get", False, path="/healthz/etcd"), rule)
    assert not rbac.rule_allows(Attributes(ALICE, "post", False, path="/healthz"), rule)
    # a resource rule never allows a path
    assert not rbac.rule_allows(Attributes(ALICE, "get", False, path="/healthz"),
                                {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]})


def test_cluster_and_namespace_bindings_and_subject_kinds():
    reader = cluster_role("reader", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
                                      "verbs": ["get", "list"]}])
    role = {"kind": "Role", "metadata": {"name": "writer", "namespace": "a"},
            "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["create"]}]}
    policy = rbac.Policy(roles=(role,), cluster_roles=(reader,), role_bindings=(
        rb("read-in-a", "a", "ClusterRole", "reader", {"kind": "Group", "name": "dev"}),
        rb("write-in-a", "a", "Role", "writer", {"kind": "ServiceAccount", "name": "drv"}),
        rb("write-in-b", "b", "Role", "writer", USER_ALICE)))   # Role "writer" is in a, not b
    assert rbac.authorize(policy, res("list", "resourceclaims", namespace="a")).allowed
    assert not rbac.authorize(policy, res("list", "resourceclaims", namespace="b")).allowed
    assert not rbac.authorize(policy, res("list", "resourceclaims")).allowed   # cluster-wide: no
    assert not rbac.authorize(policy, res("create", "resourceclaims", namespace="b")).allowed
    sa = User("system:serviceaccount:a:drv", "", ("system:serviceaccounts",))
    decision = rbac.authorize(policy, res("create", "resourceclaims", namespace="a", user=sa))
    assert decision.allowed
    assert decision.reason == ('RBAC: allowed by RoleBinding "write-in-a" of namespace "a" of Role "writer" to '
                               'ServiceAccount "a/drv"')
    other_ns_sa = User("system:serviceaccount:b:drv")
    assert not rbac.authorize(policy, res("create", "resourceclaims", namespace="a", user=other_ns_sa)).allowed


def test_aggregated_cluster_role_unions_the_selected_roles():
    agg = cluster_role("dra-admin", [], aggregate=[{"matchLabels": {"rbac.example.com/aggregate-to-dra": "true"}}])
    part = cluster_role("slices", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["*"]}],
                        labels={"rbac.example.com/aggregate-to-dra": "true"})
    unlabelled = cluster_role("classes", [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"],
                                           "verbs": ["*"]}])
    policy = rbac.Policy(cluster_roles=(agg, part, unlabelled), cluster_role_bindings=(crb("b", "dra-admin", USER_ALICE),))
    assert rbac.authorize(policy, res("create", "resourceslices")).allowed
    assert not rbac.authorize(policy, res("create", "deviceclasses")).allowed


def test_system_masters_is_always_allowed_and_a_missing_role_grants_nothing():
    admin = User("root", "", ("system:masters",))
    assert rbac.authorize(rbac.Policy(), res("delete", "nodes", group="", user=admin)).allowed
    policy = rbac.Policy(cluster_role_bindings=(crb("dangling", "nope", USER_ALICE),))
    assert not rbac.authorize(policy, res("get", "nodes", group="")).allowed


VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
names = st.sampled_from(["pods", "deviceclasses", "resourceclaims", "resourceslices", "nodes"])


@given(verb=st.sampled_from(VERBS), resource=names, sub=st.sampled_from(["", "status"]),
       rule_verbs=st.lists(st.sampled_from(VERBS + ["*"]), max_size=3),
       rule_resources=st.lists(st.one_of(names, st.just("*"), names.map(lambda r: r + "/status")), max_size=3))
def test_rule_matching_is_exactly_set_membership_with_wildcards(verb, resource, sub, rule_verbs, rule_resources):
    rule = {"apiGroups": ["*"], "resources": rule_resources, "verbs": rule_verbs}
    combined = f"{resource}/{sub}" if sub else resource
    expected = (("*" in rule_verbs or verb in rule_verbs)
                and ("*" in rule_resources or combined in rule_resources))
    assert rbac.rule_allows(res(verb, resource, sub=sub), rule) == expected


@pytest.mark.parametrize("method,path,query,want", [
    ("GET", "/api/v1/namespaces/default/pods", {}, ("list", "", "pods", "", "default", "")),
    ("GET", "/api/v1/namespaces/default/pods", {"watch": "true"}, ("watch", "", "pods", "", "default", "")),
    ("GET", "/api/v1/namespaces/default/pods/p", {}, ("get", "", "pods", "", "default", "p")),
    ("PUT", "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims/c/status", {},
     ("update", "resource.k8s.io", "resourceclaims", "status", "a", "c")),
    ("DELETE", "/apis/resource.k8s.io/v1/deviceclasses", {}, ("deletecollection", "resource.k8s.io", "deviceclasses",
                                                              "", "", "")),
    ("PATCH", "/apis/resource.k8s.io/v1/resourceslices/s", {}, ("patch", "resource.k8s.io", "resourceslices", "", "", "s")),
    ("POST", "/api/v1/namespaces/default/pods/p/eviction", {}, ("create", "", "pods", "eviction", "default", "p")),
    ("GET", "/api/v1/namespaces/team", {}, ("get", "", "namespaces", "", "team", "team")),
    ("PUT", "/api/v1/namespaces/team/status", {}, ("update", "", "namespaces", "status", "team", "team")),
])
def test_request_attributes_follow_request_info(method, path, query, want):
    a = request_attributes(ALICE, method, path, query)
    assert a.resource_request
    assert (a.verb, a.api_group, a.resource, a.subresource, a.namespace, a.name) == want


@pytest.mark.parametrize("path", ["/healthz", "/version", "/api", "/api/v1", "/apis", "/apis/resource.k8s.io/v1",
                                  "/openapi/v3"])
def test_discovery_and_health_are_non_resource_paths(path):
    a = request_attributes(ALICE, "GET", path, {})
    assert (a.resource_request, a.verb, a.path) == (False, "get", path)


def test_token_file_format():
    tokens = parse_token_csv('t1,alice,1,"dev,qa"\n\n,nobody,2\nt2,bob,3\nt1,carol,4\n', "f.csv")
    assert tokens == {"t1": User("carol", "4", ()), "t2": User("bob", "3", ())}
    assert parse_token_csv('t1,alice,1,"dev,qa"\n', "f.csv")["t1"].groups == ("dev", "qa")
    with pytest.raises(InputError, match=r"record 2: token file 'f.csv' must have at least 3 columns"):
        parse_token_csv("t1,a,1\nt2,b\n", "f.csv")


@pytest.mark.parametrize("header,token", [("Bearer abc", "abc"), ("bearer abc", "abc"), ("Basic abc", None),
                                          ("Bearer ", None), ("", None), (None, None)])
def test_bearer_header(header, token):
    assert bearer_token(header) == token


USERS = ["u1", "u2", "u3"]
rule_st = st.fixed_dictionaries({
    "apiGroups": st.lists(st.sampled_from(["", "resource.k8s.io", "*"]), min_size=1, max_size=2),
    "resources": st.lists(st.sampled_from(["pods", "deviceclasses", "resourceclaims/status", "*"]), min_size=1,
                          max_size=2),
    "verbs": st.lists(st.sampled_from(["get", "create", "*"]), min_size=1, max_size=2)})


@given(roles=st.lists(st.lists(rule_st, max_size=3), min_size=1, max_size=3),
       bindings=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(USERS), st.sampled_from(["", "a", "b"])),
                         max_size=5),
       verb=st.sampled_from(["get", "create", "delete"]),
       target=st.sampled_from([("", "pods", ""), ("resource.k8s.io", "deviceclasses", ""),
                               ("resource.k8s.io", "resourceclaims", "status")]),
       namespace=st.sampled_from(["a", "b"]))
def test_who_can_names_exactly_the_users_the_authorizer_allows(roles, bindings, verb, target, namespace):
    from drasim.auth.whocan import who_can
    cluster_roles = tuple(cluster_role(f"r{i}", rules) for i, rules in enumerate(roles))
    crbs, rbs = [], []
    for n, (role, user, ns) in enumerate(bindings):
        role = min(role, len(roles) - 1)
        if ns:
            rbs.append(rb(f"b{n}", ns, "ClusterRole", f"r{role}", {"kind": "User", "name": user}))
        else:
            crbs.append(crb(f"b{n}", f"r{role}", {"kind": "User", "name": user}))
    policy = rbac.Policy(cluster_roles=cluster_roles, role_bindings=tuple(rbs), cluster_role_bindings=tuple(crbs))
    group, resource, sub = target
    rows = who_can(policy, verb, group, resource, sub, namespace)
    listed = {r["subject"] for r in rows if r["subjectKind"] == "User"}
    allowed = {u for u in USERS
               if rbac.authorize(policy, res(verb, resource, group, namespace, sub=sub, user=User(u))).allowed}
    assert listed == allowed
