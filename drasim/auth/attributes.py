"""Request attributes from the URL and method, as kube-apiserver's RequestInfoFactory derives them.

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (NewRequestInfo: `/api` and
`/apis` prefixes are resource requests, the rest non-resource; GET is get, list without a name,
watch with `?watch=true|1`; POST create, PUT update, PATCH patch, DELETE delete, deletecollection
without a name; a non-resource request's verb is the lowercased method).
"""
from __future__ import annotations

from dataclasses import dataclass

from drasim.auth.tokens import User

_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(frozen=True)
class Attributes:
    user: User
    verb: str
    resource_request: bool
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    # (field, operator, value) of ?fieldSelector= (k8s: attributes GetFieldSelector, used by the
    # node authorizer under AuthorizeNodeWithSelectors)
    field_selector: tuple[tuple[str, str, str], ...] = ()


def field_requirements(text: str | None) -> tuple[tuple[str, str, str], ...]:
    """k8s: fields.ParseSelector — `a=b,c==d,e!=f`; what does not parse is no requirement."""
    out = []
    for term in (text or "").split(","):
        for op in ("!=", "==", "="):
            if op in term:
                field, value = term.split(op, 1)
                out.append((field.strip(), op, value.strip()))
                break
    return tuple(out)


def request_attributes(user: User, method: str, path: str, query) -> Attributes:
    segs = [s for s in path.split("/") if s]
    # `/api/v1` and `/apis/GROUP/VERSION` (discovery) are non-resource paths
    if not segs or segs[0] not in ("api", "apis") or len(segs) < (3 if segs[0] == "api" else 4):
        return Attributes(user, method.lower(), False, path=path)
    if segs[0] == "api":
        group, version, rest = "", segs[1], segs[2:]
    else:
        group, version, rest = segs[1], segs[2], segs[3:]
    verb = _VERBS.get(method.upper(), method.lower())
    namespace = ""
    if rest and rest[0] == "namespaces" and len(rest) > 1:
        # k8s: `/namespaces/NAME[/status|/finalize]` is the namespace object (namespace NAME too);
        # anything else after the name is a namespaced resource
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in ("status", "finalize"):
            rest = rest[2:]
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if not name:
        if verb == "get":
            verb = "watch" if query.get("watch") in ("1", "true") else "list"
        elif verb == "delete":
            verb = "deletecollection"
    elif verb == "get" and query.get("watch") in ("1", "true"):
        verb = "watch"
    return Attributes(user, verb, True, group, version, resource, sub, namespace, name, path,
                      field_requirements(query.get("fieldSelector")))
