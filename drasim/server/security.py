"""Who is asking and may they: the server's authentication, impersonation and authorization.

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go (WithAuthentication: no
or a bad credential → 401 Status "Unauthorized"), filters/impersonation.go (Impersonate-User /
Impersonate-Group need the `impersonate` verb on users / groups; an impersonated user without
groups gets system:authenticated), filters/authorization.go and handlers/responsewriters/errors.go
(Forbidden, forbiddenMessage).

Anonymous requests: kube-apiserver's --anonymous-auth defaults to true, but
pkg/kubeapiserver/options/authentication.go (ApplyAuthorization) turns it off when the only
authorization mode is AlwaysAllow ("AnonymousAuth is not allowed with the AlwaysAllow
authorizer"). drasim does the same: with AlwaysAllow every request needs a token (even /healthz);
with RBAC a request without a token is system:anonymous, which the bootstrap ClusterRole
system:public-info-viewer lets read /healthz, /livez, /readyz and /version.
"""
from __future__ import annotations

from drasim.auth import node, rbac
from drasim.auth.attributes import Attributes, request_attributes
from drasim.auth.tokens import AUTHENTICATED, MASTERS, User, anonymous, bearer_token, with_authenticated_group
from drasim.errors import InputError
from drasim.server import status as st

UNSECURED = "system:unsecured"
ALWAYS_ALLOW = "AlwaysAllow"
RBAC = "RBAC"
NODE = "Node"
MODES = (ALWAYS_ALLOW, NODE, RBAC)


def parse_modes(text: str) -> tuple[str, ...]:
    """--authorization-mode: an ordered, comma-separated list (k8s: pkg/kubeapiserver/options/
    authorization.go Validate — each a known mode, none twice, at least one)."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    if not modes:
        raise InputError("--authorization-mode: at least one authorization-mode must be passed")
    for m in modes:
        if m not in MODES:
            raise InputError(f'--authorization-mode: authorization-mode "{m}" is not a valid mode '
                             f"(drasim serves {', '.join(MODES)})")
    if len(set(modes)) != len(modes):
        listed = " ".join(f'"{m}"' for m in modes)
        raise InputError(f"--authorization-mode: authorization-mode [{listed}] has mode specified more than once")
    return modes


def unauthorized() -> st.ApiError:
    # k8s: filters/authentication.go → apierrors.NewUnauthorized("Unauthorized")
    return st.ApiError(401, "Unauthorized", "Unauthorized", None)


def forbidden(a: Attributes, reason: str = "") -> st.ApiError:
    """k8s: responsewriters.Forbidden — NewForbidden(group resource, name, forbiddenMessage[: reason])."""
    user = a.user.name
    if not a.resource_request:
        message = f'User "{user}" cannot {a.verb} path "{a.path}"'
        return st.ApiError(403, "Forbidden", f"forbidden: {message}" + (f": {reason}" if reason else ""), {})
    resource = f"{a.resource}/{a.subresource}" if a.subresource else a.resource
    if a.namespace:
        message = (f'User "{user}" cannot {a.verb} resource "{resource}" in API group "{a.api_group}" '
                   f'in the namespace "{a.namespace}"')
    else:
        message = f'User "{user}" cannot {a.verb} resource "{resource}" in API group "{a.api_group}" at the cluster scope'
    if reason:
        message = f"{message}: {reason}"
    qualified = f"{a.resource}.{a.api_group}" if a.api_group else a.resource
    head = f'{qualified} "{a.name}" is forbidden' if a.name else f"{qualified} is forbidden"
    details = {"kind": a.resource}
    if a.name:
        details = {"name": a.name, **details}
    if a.api_group:
        details["group"] = a.api_group
    return st.ApiError(403, "Forbidden", f"{head}: {message}", details)


class Security:
    def __init__(self, tokens: dict[str, User], mode: str = ALWAYS_ALLOW, policy=lambda: rbac.Policy(),
                 graph: node.Graph | None = None, insecure: bool = False) -> None:
        self.tokens = tokens
        # --insecure-http: a request without a token is kube-apiserver's insecure-port superuser
        # (pkg/kubeapiserver/server/insecure_handler.go before v1.20: user system:unsecured in
        # system:masters), since client-go sends no bearer token over plain HTTP
        self.insecure = insecure
        self.modes = parse_modes(mode)
        self.policy = policy   # () → rbac.Policy: the RBAC objects as they are now
        self.graph = graph     # the node authorizer's view of the objects (set by the server)

    @property
    def anonymous_allowed(self) -> bool:
        return self.modes != (ALWAYS_ALLOW,)

    @property
    def node_restriction(self) -> bool:
        """NodeRestriction admission runs with the Node mode (as kubeadm and kind configure both)."""
        return NODE in self.modes

    def authenticate(self, headers) -> User:
        token = bearer_token(headers.get("Authorization"))
        if token is None:
            if self.insecure:
                return User(UNSECURED, "", (MASTERS, AUTHENTICATED))
            if self.anonymous_allowed:
                return anonymous()
            raise unauthorized()
        user = self.tokens.get(token)
        if user is None:   # k8s: a bad token fails even when anonymous requests are allowed (FailOnError)
            raise unauthorized()
        return with_authenticated_group(user)

    def decide(self, a: Attributes) -> rbac.Decision:
        """The privileged group first, then each mode in order; the first allow wins, and a request
        no mode allows carries their reasons (k8s: pkg/kubeapiserver/authorizer/reload.go newForConfig
        — NewPrivilegedGroups(system:masters) before the modes; authorization/union Authorize joins
        the reasons with newlines)."""
        if MASTERS in a.user.groups:   # k8s: authorizerfactory privilegedGroupAuthorizer (no reason)
            return rbac.Decision(True, "")
        reasons = []
        for mode in self.modes:
            if mode == ALWAYS_ALLOW:
                return rbac.always_allow(self.policy(), a)
            decision = rbac.authorize(self.policy(), a) if mode == RBAC else node.authorize(self.graph, a)
            if decision.allowed:
                return decision
            if decision.reason:
                reasons.append(decision.reason)
        return rbac.Decision(False, "\n".join(reasons))

    def rules_for(self, user: User, namespace: str) -> tuple[list[dict], list[dict], bool, str]:
        """The union of the modes' rule resolvers (k8s: reload.go newForConfig ruleResolvers — the
        privileged group has none; union.NewRuleResolvers concatenates, incomplete if any is)."""
        resource_rules: list[dict] = []
        non_resource_rules: list[dict] = []
        incomplete, errors = False, []
        for mode in self.modes:
            if mode == ALWAYS_ALLOW:   # k8s: alwaysAllowAuthorizer.RulesFor
                resource_rules.append({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
                non_resource_rules.append({"verbs": ["*"], "nonResourceURLs": ["*"]})
            elif mode == RBAC:
                more, more_nr = rbac.rules_for(self.policy(), user, namespace)
                resource_rules += more
                non_resource_rules += more_nr
            elif node.node_identity(user)[1]:   # k8s: NodeAuthorizer.RulesFor
                incomplete = True
                errors.append("node authorizer does not support user rule resolution")
        error = errors[0] if len(errors) == 1 else ("[" + ", ".join(errors) + "]" if errors else "")
        return resource_rules, non_resource_rules, incomplete, error

    def impersonate(self, user: User, headers) -> User:
        target = headers.get("Impersonate-User")
        groups = tuple(headers.getall("Impersonate-Group", ())) if hasattr(headers, "getall") else ()
        if not target:
            if groups:   # k8s: "requested [...] without impersonating a user"
                raise st.ApiError(500, "InternalError", "Internal error occurred: requested "
                                  f"{[f'{{Group {g} }}' for g in groups]} without impersonating a user", {})
            return user
        checks = [("users", target)] + [("groups", g) for g in groups]
        for resource, name in checks:
            a = Attributes(user, "impersonate", True, "", "v1", resource, "", "", name)
            if not self.decide(a).allowed:
                raise forbidden(a)
        # k8s: impersonation.go — system:authenticated joins the impersonated groups (system:unauthenticated
        # for system:anonymous) unless one of the two was asked for
        if not {"system:authenticated", "system:unauthenticated"} & set(groups):
            groups = (*groups, "system:unauthenticated" if target == "system:anonymous" else "system:authenticated")
        return User(target, "", groups)

    def authorize(self, user: User, method: str, path: str, query) -> Attributes:
        a = request_attributes(user, method, path, query)
        decision = self.decide(a)
        if not decision.allowed:
            raise forbidden(a, decision.reason)
        return a
