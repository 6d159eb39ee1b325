"""The Node authorizer (`--authorization-mode=Node`) and the NodeRestriction admission checks for the
kinds drasim serves, as kube-apiserver v1.37 applies them to kubelets.

k8s: pkg/auth/nodeidentifier/default.go (NodeIdentity: a user `system:node:<name>` in group
`system:nodes` is node <name>; the prefix without a name is a node that cannot be identified);
plugin/pkg/auth/authorizer/node/node_authorizer.go (Authorize and its authorize* helpers) and
plugin/pkg/admission/noderestriction/admission.go (Admit, admitResourceSlice, admitNode,
admitPodStatus). The node authorizer never denies: it allows or has no opinion (with a reason),
and the next mode of the list (RBAC) decides.

The graph kube-apiserver keeps (node <- pod <- ResourceClaim, node <- ResourceSlice) is read
from the objects the server holds, through the `Graph` the caller passes: pure here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from drasim.auth.attributes import Attributes
from drasim.auth.rbac import Decision, rule_allows
from drasim.auth.tokens import User

NODE_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
NO_OPINION = Decision(False, "")
ALLOW = Decision(True, "")


class Graph(Protocol):
    def slice_node(self, name: str) -> str | None: ...           # spec.nodeName of a ResourceSlice
    def pod_node(self, namespace: str, name: str) -> str | None: ...
    def claim_nodes(self, namespace: str, name: str) -> set[str]: ...   # nodes of the pods using it


def node_identity(user: User) -> tuple[str, bool]:
    """k8s: nodeidentifier.NodeIdentity — (node name, is a node)."""
    if NODES_GROUP not in user.groups or not user.name.startswith(NODE_PREFIX):
        return "", False
    return user.name[len(NODE_PREFIX):], True


def _rule(groups, resources, verbs) -> dict:
    return {"apiGroups": list(groups), "resources": list(resources), "verbs": list(verbs)}


# The statically defined node rules for the resources the authorizer does not subdivide
# (k8s: plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go NodeRules), the part that names
# kinds drasim serves or reviews a kubelet makes.
NODE_RULES = (
    _rule(["authentication.k8s.io"], ["tokenreviews"], ["create"]),
    _rule(["authorization.k8s.io"], ["subjectaccessreviews", "localsubjectaccessreviews"], ["create"]),
    _rule([""], ["services"], ["get", "list", "watch"]),
    _rule(["", "events.k8s.io"], ["events"], ["create", "update", "patch"]),
    _rule(["node.k8s.io"], ["runtimeclasses"], ["get", "list", "watch"]),
)


def _deny(reason: str) -> Decision:
    return Decision(False, reason)


def _related(ok: bool, node: str) -> Decision:
    # k8s: NodeAuthorizer.authorize — a graph path from the object to the node, else this reason
    return ALLOW if ok else _deny(f"no relationship found between node '{node}' and this object")


def _field_selects_node(a: Attributes, field: str, node: str) -> bool:
    return any(f == field and op in ("=", "==") and v == node for f, op, v in a.field_selector)


def _resource_slice(graph: Graph, node: str, a: Attributes) -> Decision:
    # k8s: authorizeResourceSlice. create is allowed here: NodeRestriction checks spec.nodeName.
    if a.subresource:
        return _deny("cannot authorize ResourceSlice subresources")
    if a.verb == "create":
        return ALLOW
    if a.verb in ("get", "update", "patch", "delete"):
        if not a.name:
            return _deny("No Object name found")
        return _related(graph.slice_node(a.name) == node, node)
    if a.verb in ("watch", "list", "deletecollection"):
        # AuthorizeNodeWithSelectors (GA, on in v1.37): only with fieldSelector spec.nodeName=<node>
        if _field_selects_node(a, "spec.nodeName", node):
            return ALLOW
        return _deny("can only list/watch/deletecollection resourceslices with nodeName field selector")
    return _deny("only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, "
                 "patch, delete, deletecollection")


def _resource_claim(graph: Graph, node: str, a: Attributes) -> Decision:
    # k8s: authorizeGet(resourceClaimVertexType): get only, of a claim a pod on the node uses
    if a.verb != "get":
        return _deny("can only get individual resources of this type")
    if a.subresource:
        return _deny("cannot get subresource")
    if not a.name:
        return _deny("No Object name found")
    return _related(node in graph.claim_nodes(a.namespace, a.name), node)


def _node(node: str, a: Attributes) -> Decision:
    # k8s: authorizeNode (AuthorizeNodeWithSelectors): write its own Node (NodeRestriction checks the
    # name), read only its own
    if not a.subresource:
        if a.verb in ("create", "update", "patch"):
            return ALLOW
        if a.verb in ("get", "list", "watch"):
            if a.name == node:
                return ALLOW
            if not a.name:
                return _deny(f"node '{node}' cannot read all nodes, only its own Node object")
            return _deny(f"node '{node}' cannot read '{a.name}', only its own Node object")
    elif a.subresource == "status" and a.verb in ("update", "patch"):
        return ALLOW
    return NO_OPINION


def _pod(graph: Graph, node: str, a: Attributes) -> Decision:
    # k8s: authorizePod (AuthorizeNodeWithSelectors)
    if not a.subresource:
        if a.verb == "get":
            return _related(bool(a.name) and graph.pod_node(a.namespace, a.name) == node, node)
        if a.verb in ("list", "watch"):
            if _field_selects_node(a, "spec.nodeName", node):
                return ALLOW
            if a.name:
                return _related(graph.pod_node(a.namespace, a.name) == node, node)
            return _deny("can only list/watch pods with spec.nodeName field selector")
        if a.verb in ("create", "delete"):   # mirror pods; NodeRestriction limits them
            return ALLOW
    elif a.subresource == "status" and a.verb in ("update", "patch"):
        return ALLOW
    elif a.subresource == "eviction" and a.verb == "create":
        return ALLOW
    return NO_OPINION


def authorize(graph: Graph, a: Attributes) -> Decision:
    """k8s: NodeAuthorizer.Authorize — allow, or no opinion with a reason."""
    node, is_node = node_identity(a.user)
    if not is_node:
        return NO_OPINION
    if not node:
        return _deny(f'unknown node for user "{a.user.name}"')
    if a.resource_request:
        if a.api_group == "resource.k8s.io" and a.resource == "resourceslices":
            return _resource_slice(graph, node, a)
        if a.api_group == "resource.k8s.io" and a.resource == "resourceclaims":
            return _resource_claim(graph, node, a)
        if a.api_group == "" and a.resource == "nodes":
            return _node(node, a)
        if a.api_group == "" and a.resource == "pods":
            return _pod(graph, node, a)
    return ALLOW if any(rule_allows(a, r) for r in NODE_RULES) else NO_OPINION


# -- NodeRestriction admission --------------------------------------------------------------------

@dataclass(frozen=True)
class Refusal:
    """admission.NewForbidden(a, err): the Forbidden status of the object, with this reason."""
    reason: str


def admit(user: User, operation: str, kind: str, subresource: str, name: str,
          obj: dict | None, old: dict | None) -> Refusal | None:
    """k8s: noderestriction Plugin.Admit for create / update / delete by a node (None: admitted)."""
    node, is_node = node_identity(user)
    if not is_node:
        return None
    if not node:
        return Refusal(f'could not determine node from user "{user.name}"')
    if kind == "ResourceSlice":
        # k8s: admitResourceSlice — create and delete only for slices of this node (the node
        # authorizer checks the rest; a DeleteCollection is checked object by object)
        if operation == "create" and ((obj or {}).get("spec") or {}).get("nodeName") != node:
            return Refusal("can only create ResourceSlice with the same NodeName as the requesting node")
        if operation == "delete" and ((old or {}).get("spec") or {}).get("nodeName") != node:
            return Refusal("can only delete ResourceSlice with the same NodeName as the requesting node")
        return None
    if kind == "Node":
        # k8s: admitNode — a node modifies only its own Node object
        target = name or ((obj or {}).get("metadata") or {}).get("name", "")
        if target != node:
            return Refusal(f'node "{node}" is not allowed to modify node "{target}"')
        return None
    if kind == "Pod" and subresource == "status" and operation == "update":
        # k8s: admitPodStatus — only status of pods bound to this node
        if ((old or {}).get("spec") or {}).get("nodeName") != node:
            return Refusal(f'node "{node}" can only update pod status for pods with spec.nodeName set to itself')
        return None
    if kind == "Pod" and not subresource and operation == "delete":
        if ((old or {}).get("spec") or {}).get("nodeName") != node:
            return Refusal(f'node "{node}" can only delete pods with spec.nodeName set to itself')
        return None
    if kind == "Pod" and not subresource and operation == "create":
        # k8s: admitPodCreate — a node creates only mirror pods, bound to itself
        if "kubernetes.io/config.mirror" not in (((obj or {}).get("metadata") or {}).get("annotations") or {}):
            return Refusal('pod does not have "kubernetes.io/config.mirror" annotation, node '
                           f'"{node}" can only create mirror pods')
        if ((obj or {}).get("spec") or {}).get("nodeName") != node:
            return Refusal(f'node "{node}" can only create pods with spec.nodeName set to itself')
    return None
