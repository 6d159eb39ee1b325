"""The server's side of the Node authorizer and NodeRestriction (the rules are in drasim/auth/node.py).

StoreGraph answers the node authorizer's graph questions from the objects the store holds now
(k8s: plugin/pkg/auth/authorizer/node/graph_populator.go keeps the same edges from informers:
node <- pod (spec.nodeName), pod <- ResourceClaim (spec.resourceClaims, status.resourceClaimStatuses),
node <- ResourceSlice (spec.nodeName)). `refusal_error` is admission.NewForbidden's Status.
"""
from __future__ import annotations

from drasim.auth import node
from drasim.server import status as st


class StoreGraph:
    def __init__(self, store) -> None:
        self.store = store

    def slice_node(self, name: str) -> str | None:
        piece = self.store.get("ResourceSlice", None, name)
        return None if piece is None else (piece.get("spec") or {}).get("nodeName")

    def pod_node(self, namespace: str, name: str) -> str | None:
        pod = self.store.get("Pod", namespace, name)
        return None if pod is None else (pod.get("spec") or {}).get("nodeName")

    def claim_nodes(self, namespace: str, name: str) -> set[str]:
        nodes = set()
        for pod in self.store.list("Pod", namespace):
            where = (pod.get("spec") or {}).get("nodeName")
            if not where:
                continue
            names = {r.get("resourceClaimName") for r in (pod.get("spec") or {}).get("resourceClaims") or ()}
            names |= {s.get("resourceClaimName") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}
            if name in names:
                nodes.add(where)
        return nodes


def refusal_error(kind, name: str, refusal: node.Refusal) -> st.ApiError:
    """k8s: admission.NewForbidden → apierrors.NewForbidden(group resource, name, err)."""
    qualified = f"{kind.plural}.{kind.group}" if kind.group else kind.plural
    head = f'{qualified} "{name}" is forbidden' if name else f"{qualified} is forbidden"
    details = {"name": name, "kind": kind.plural} if name else {"kind": kind.plural}
    if kind.group:
        details["group"] = kind.group
    return st.ApiError(403, "Forbidden", f"{head}: {refusal.reason}", details)


def admission_check(user, target, operation: str, obj: dict | None, old: dict | None) -> None:
    """NodeRestriction for one write by `user`; raises the Forbidden Status when refused."""
    name = target.name or ((obj or old or {}).get("metadata") or {}).get("name", "")
    refusal = node.admit(user, operation, target.kind.kind, target.subresource or "", name, obj, old)
    if refusal is not None:
        raise refusal_error(target.kind, name, refusal)
