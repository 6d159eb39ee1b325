"""The aiohttp application: one catch-all route, routed by group/version/resource like
kube-apiserver's paths (`/api/v1/...`, `/apis/GROUP/VERSION/...`, namespaced and cluster-scoped).

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (the path shapes),
     handlers/rest.go (limitedReadBody: 3 MiB), negotiation (JSON and YAML bodies).
"""
from __future__ import annotations

import asyncio
import contextvars
import json
import sys
import traceback

import yaml
from aiohttp import web
from multidict import CIMultiDict

from drasim.errors import InputError
from drasim.store.sqlite import StorageError
from drasim.api import kinds
from drasim.auth.tokens import ADMIN_USER, MASTERS, User, new_token
from drasim.server import discovery, drastatus, fieldvalidation, nodeaccess, openapi, protobody, protowire, rbacobjects
from drasim.server import rbacguard, reviews, tables
from drasim.server import status as st
from drasim.server.encoded import EncodedObjects
from drasim.server.resources import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, Resources, Target
from drasim.server.runtime import LiveControlPlane
from drasim.server.security import Security
from drasim.server.serialize import outgoing
from drasim.server.watch import WatchHub
from drasim.server.watchstream import serve_watch

OBJECT_KINDS = frozenset(k.kind for k in kinds.ALL_KINDS)
# k8s: staging/src/k8s.io/apiserver/pkg/server/config.go NewConfig — MaxRequestBodyBytes
# 3 * 1024 * 1024 (a write larger than that is 413, handlers/rest.go limitedReadBody)
MAX_BODY = 3 * 1024 * 1024
JSON = "application/json"
# The authorized request being served (a contextvar: aiohttp serves each request in its own task).
REQUEST_ATTRIBUTES: contextvars.ContextVar = contextvars.ContextVar("request_attributes")


def _response(data: bytes, code: int = 200, content_type: str = JSON, warnings: list[str] = ()) -> web.Response:
    headers = CIMultiDict({"Content-Type": content_type})
    for text in warnings:   # k8s: warning.AddWarning → `Warning: 299 - "<text>"`
        headers.add("Warning", "299 - " + json.dumps(text))
    return web.Response(body=data, status=code, headers=headers)


def _json(body, code: int = 200, content_type: str = JSON, warnings: list[str] = ()) -> web.Response:
    if isinstance(body, dict) and body.get("kind") in OBJECT_KINDS:
        body = outgoing(body)
    return _response(json.dumps(body, separators=(",", ":")).encode(), code, content_type, warnings)


def _error(e: st.ApiError) -> web.Response:
    return _json(e.status(), e.code)


class Server:
    def __init__(self, live: LiveControlPlane, hub: WatchHub, address: str = "",
                 security: Security | None = None, admin_token: str | None = None) -> None:
        """Without a Security, an admin token (drasim-admin, system:masters) is the only credential."""
        self.admin_token = admin_token or new_token()
        self.rbac = rbacobjects.RbacObjects(live.cp.store)
        if security is None:
            security = Security({})
        security.tokens = {**security.tokens, self.admin_token: User(ADMIN_USER, "drasim-admin", (MASTERS,))}
        security.policy = self.rbac.policy
        security.graph = nodeaccess.StoreGraph(live.cp.store)
        self.security = security
        self.live = live
        self.cp = live.cp
        self.hub = hub
        self.address = address
        self.resources = Resources(self.cp, on_write=live.poke, status_check=self._status_check,
                                   admission_check=self._admission_check)
        self.encoded = EncodedObjects()
        # kinds whose gate is off: not in discovery, 404 on their paths (e.g. PodGroup without GenericWorkload)
        self.hidden = frozenset(k.kind for k in kinds.ALL_KINDS if self.cp.unserved(k))
        self.requests = 0

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY + 1)
        app.router.add_route("*", "/{tail:.*}", self.dispatch)
        return app

    def low_level(self) -> web.Server:
        """What `drasim serve` runs: aiohttp's low-level server calling dispatch directly. The
        one catch-all route of app() costs a router lookup per request (about 10% of a GET's
        server time in the profile of benchmarks/serve_api.py) and routes nothing."""
        return web.Server(self.dispatch, access_log=None)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1
        try:
            return await self._dispatch(request)
        except st.ApiError as e:
            return _error(e)
        except StorageError as e:   # the journal failed: 500, and the store is as before the request
            return _error(st.internal_error(str(e)))
        except InputError as e:
            return _error(st.bad_request(str(e)))
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception as e:   # a bug: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            return _error(st.ApiError(500, "InternalError", f"Internal error occurred: {e}", {}))

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path.rstrip("/") or "/"
        method = request.method
        accept = request.headers.get("Accept", "")
        user = self.security.impersonate(self.security.authenticate(request.headers), request.headers)
        REQUEST_ATTRIBUTES.set(self.security.authorize(user, method, path, request.query))
        if path in ("/healthz", "/livez", "/readyz"):
            return web.Response(text="ok", content_type="text/plain")
        if path == "/metrics":
            self.cp.scheduler.export_pending(self.cp.metrics)
            return web.Response(body=self.cp.metrics.exposition().encode(),
                                headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})
        if path == "/openapi/v2":
            # kubectl asks for the protobuf form (client-side validation, e.g. of `kind: List`
            # files). drasim does not encode gnostic protobuf: an empty document, with which
            # kubectl skips client-side checks; each object is still validated Strict here.
            if openapi.PROTOBUF_V2 in accept:
                return web.Response(body=b"", headers={"Content-Type": "application/octet-stream"})
            return _json(openapi.swagger_v2())
        if path == "/openapi/v3":
            return _json(openapi.root())
        if path.startswith("/openapi/v3/"):
            rest = path[len("/openapi/v3/"):].split("/")
            gv = ("", rest[1]) if rest[0] == "api" and len(rest) == 2 else (
                (rest[1], rest[2]) if rest[0] == "apis" and len(rest) == 3 else None)
            doc = openapi.group_version_document(*gv) if gv else None
            if doc is None:
                raise st.path_not_found()
            return _json(doc)
        if path == "/version":
            return _json(discovery.version_info())
        if path == "/api":
            if discovery.wants_aggregated(accept):
                return _json(discovery.aggregated(core=True, hidden=self.hidden), content_type=discovery.AGGREGATED_V2)
            return _json(discovery.api_versions(self.address))
        if path == "/apis":
            if discovery.wants_aggregated(accept):
                return _json(discovery.aggregated(core=False, hidden=self.hidden), content_type=discovery.AGGREGATED_V2)
            return _json(discovery.api_group_list(self.hidden))
        segs = path.strip("/").split("/")
        if segs[0] == "api" and len(segs) >= 2:
            group, version, rest = "", segs[1], segs[2:]
        elif segs[0] == "apis" and len(segs) >= 2:
            if len(segs) == 2:
                if segs[1] not in discovery.groups(self.hidden) or not segs[1]:
                    raise st.path_not_found()
                return _json(discovery.api_group(segs[1], hidden=self.hidden))
            group, version, rest = segs[1], segs[2], segs[3:]
        else:
            raise st.path_not_found()
        if not rest:
            listing = discovery.api_resource_list(group, version, self.hidden)
            if listing is None:
                raise st.path_not_found()
            return _json(listing)
        if group in (rbacobjects.RBAC_GROUP, rbacobjects.AUTHZ_GROUP, rbacobjects.SSR.group):
            return await self._serve_rbac(request, group, version, rest, user)
        target = self._target(group, version, rest)
        self.live.sync_clock()
        return await self._serve(request, target, method, accept)

    def _status_check(self, t: Target, obj: dict, old: dict) -> None:
        a = REQUEST_ATTRIBUTES.get(None)
        if t.kind.kind == "ResourceClaim" and a is not None:
            drastatus.check(self.security.decide, a, t.name, obj, old)

    def _admission_check(self, t: Target, operation: str, obj, old) -> None:
        a = REQUEST_ATTRIBUTES.get(None)
        if a is not None and self.security.node_restriction:
            nodeaccess.admission_check(a.user, t, operation, obj, old)

    def _target(self, group: str, version: str, rest: list[str]) -> Target:
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3 and discovery.by_resource(group, version, rest[2], self.hidden) is not None:
            namespace, rest = rest[1], rest[2:]
        kind = discovery.by_resource(group, version, rest[0], self.hidden)
        if kind is None or len(rest) > 3:
            raise st.path_not_found()
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if namespace is not None and not kind.namespaced:
            raise st.path_not_found()
        if kind.namespaced and namespace is None and name is not None:
            raise st.path_not_found()
        if sub is not None and sub not in {s for s, _, _ in discovery.subresources(kind)}:
            raise st.path_not_found()
        return Target(kind, namespace, name, sub)

    async def _body(self, request: web.Request) -> bytes:
        if request.content_length is not None and request.content_length > MAX_BODY:
            raise st.too_large(MAX_BODY)
        # StreamReader.read(n) answers with what has arrived so far: read until the end
        raw = bytearray()
        while len(raw) <= MAX_BODY:
            chunk = await request.content.read(MAX_BODY + 1 - len(raw))
            if not chunk:
                break
            raw += chunk
        if len(raw) > MAX_BODY:
            raise st.too_large(MAX_BODY)
        return bytes(raw)

    async def _decoded(self, request: web.Request, kind) -> object:
        """The body as JSON-shaped data: JSON, YAML or Kubernetes protobuf (kubectl's typed
        clients: `kubectl create namespace|quota|deployment|job|role ...`, `auth can-i`).
        A protobuf envelope without apiVersion or kind takes the URL's (copyKindDefaults)."""
        raw = await self._body(request)
        ctype = request.headers.get("Content-Type", JSON).split(";")[0].strip() or JSON
        if ctype == protowire.PROTOBUF:
            try:
                return protobody.decode(raw, kind.api_version, kind.kind)
            except protowire.ProtoError as e:
                # k8s: handlers/rest.go transformDecodeError → BadRequest with the decoder's error
                raise st.bad_request(f"the object provided is unrecognized: {e}") from None
        try:
            if ctype in ("application/yaml", "application/x-yaml", "text/yaml"):
                return yaml.safe_load(raw.decode("utf-8") or "null")
            if ctype not in (JSON, "*/*"):
                raise st.unsupported_media_type(ctype)
            return json.loads(raw or b"null")
        except (ValueError, yaml.YAMLError) as e:
            # k8s: transformDecodeError → BadRequest
            raise st.bad_request(f"couldn't get version/kind; json parse error: {str(e).splitlines()[0]}") from None

    async def _delete_options(self, request: web.Request) -> dict | None:
        """DeleteOptions: JSON (kubectl) or protobuf (client-go typed clients configured for it,
        e.g. a DRA driver's ResourceSlice controller); an empty body is no options."""
        raw = await self._body(request)
        if not raw.strip():   # k8s: handlers/delete.go decodes a body only when there is one
            return None
        if request.headers.get("Content-Type", "").split(";")[0].strip() == protowire.PROTOBUF:
            try:
                return protobody.decode(raw, "v1", "DeleteOptions")
            except protowire.ProtoError as e:
                raise st.bad_request(f"the object provided is unrecognized: {e}") from None
        try:
            options = json.loads(raw) if raw.strip() else None
        except ValueError as e:
            raise st.bad_request(f"couldn't get version/kind; json parse error: {e}") from None
        return options if isinstance(options, dict) else None

    def _object(self, obj: dict, code: int = 200, warnings: list[str] = ()) -> web.Response:
        """A stored object's response, its JSON encoded once per resourceVersion (encoded.py)."""
        if obj.get("kind") not in OBJECT_KINDS:
            return _json(obj, code, warnings=warnings)
        return _response(self.encoded.encode(obj), code, warnings=warnings)

    def _render(self, t: Target, obj: dict, accept: str, query) -> web.Response:
        if tables.wants_table(accept):
            return _json(tables.table(t.kind.kind, [obj], self.cp.clock.now,
                                      include=query.get("includeObject", "Metadata"),
                                      resource_version=obj["metadata"].get("resourceVersion", "")))
        return self._object(obj)

    async def _serve(self, request: web.Request, t: Target, method: str, accept: str) -> web.StreamResponse:
        q = request.query
        res = self.resources
        if t.name is None:
            if method == "GET":
                if q.get("watch") in ("1", "true"):
                    return await serve_watch(request, self, t)
                items, md = res.list(t, q)
                if tables.wants_table(accept):
                    return _json(tables.table(t.kind.kind, items, self.cp.clock.now,
                                              include=q.get("includeObject", "Metadata"),
                                              resource_version=md["resourceVersion"],
                                              continue_token=md.get("continue", "")))
                return _response(self.encoded.list_body(f"{t.kind.kind}List", t.kind.api_version, md, items))
            if method == "POST":
                if t.kind.namespaced and t.namespace is None:
                    raise st.method_not_allowed(method)
                code, obj = res.create(t, await self._decoded(request, t.kind), dry_run=q.get("dryRun") == "All",
                                       validation=fieldvalidation.mode(q))
                return self._object(obj, code, warnings=res.warnings)
            if method == "DELETE":
                code, obj = res.delete_collection(t, q)
                return _json(obj, code)
            raise st.method_not_allowed(method)
        if t.subresource in ("eviction", "binding"):
            if method != "POST":
                raise st.method_not_allowed(method)
            body = await self._decoded(request, t.kind)
            code, obj = res.evict(t, body) if t.subresource == "eviction" else res.bind(t, body)
            return _json(obj, code)
        if t.subresource == "scale":
            if method == "GET":
                return _json(res.get_scale(t))
            if method == "PUT":
                return _json(res.write_scale(t, await self._decoded(request, t.kind))[1])
            if method == "PATCH":
                ctype = request.headers.get("Content-Type", "").split(";")[0].strip()
                return _json(res.write_scale(t, content_type=ctype, raw=await self._body(request))[1])
            raise st.method_not_allowed(method)
        if method == "GET":
            return self._render(t, res.get(t), accept, q)
        dry_run = q.get("dryRun") == "All"
        if method == "PUT":
            code, obj = res.update(t, await self._decoded(request, t.kind), validation=fieldvalidation.mode(q),
                                   dry_run=dry_run)
            # a dry run's object is not the stored one of its resourceVersion: not from the encoded cache
            return _json(obj, code, warnings=res.warnings) if dry_run else self._object(obj, code, warnings=res.warnings)
        if method == "PATCH":
            ctype = request.headers.get("Content-Type", "").split(";")[0].strip()
            if ctype not in (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH):
                raise st.unsupported_media_type(ctype)
            code, obj = res.patch(t, ctype, await self._body(request), validation=fieldvalidation.mode(q),
                                  dry_run=dry_run)
            return _json(obj, code, warnings=res.warnings) if dry_run else self._object(obj, code, warnings=res.warnings)
        if method == "DELETE":
            code, obj = res.delete(t, await self._delete_options(request), dry_run=dry_run)
            return _json(obj, code)
        raise st.method_not_allowed(method)

    async def _rbac_patched(self, request: web.Request, kind, namespace, name) -> dict:
        from drasim.api import patch as patches

        ctype = request.headers.get("Content-Type", "").split(";")[0].strip()
        old = self.rbac.get(kind, namespace, name)
        try:
            body = json.loads(await self._body(request) or b"null")
            if ctype == JSON_PATCH:
                patched = patches.json_patch(old, body)
            elif ctype == MERGE_PATCH and isinstance(body, dict):
                patched = patches.merge_patch(old, body)
            elif ctype == STRATEGIC_PATCH:   # rules, subjects: lists without merge keys, replaced whole
                patched = patches.strategic_merge(old, body)
            else:
                raise st.unsupported_media_type(ctype)
        except patches.PatchError as e:
            raise (st.bad_request(str(e)) if e.malformed else st.ApiError(422, "Invalid", str(e), {})) from None
        except ValueError as e:
            raise st.bad_request(f"error decoding patch: {e}") from None
        if isinstance(body, dict) and "resourceVersion" not in (body.get("metadata") or {}):
            patched["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        return patched

    def _guard(self, user: User, kind, namespace, body, old=None) -> None:
        """RBAC escalation prevention (drasim/server/rbacguard.py)."""
        rbacguard.check_write(self.security.decide, self.rbac.policy(), user, kind, namespace,
                              body if isinstance(body, dict) else {}, old)

    def _review(self, kind, user: User, namespace, body) -> dict:
        if kind.namespaced and namespace is None:
            raise st.path_not_found()
        if kind is rbacobjects.SSR:   # k8s: pkg/registry/authentication/selfsubjectreview (spec-less)
            info = {"username": user.name, "groups": list(user.groups)}
            if user.uid:
                info["uid"] = user.uid
            return {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
                    "metadata": {"creationTimestamp": None}, "status": {"userInfo": info}}
        if kind is rbacobjects.SSAR:
            return self.rbac.access_review(self.security.decide, user, body)
        if kind is rbacobjects.SSRR:
            return reviews.self_subject_rules_review(self.security.rules_for, user, body)
        return reviews.subject_access_review(self.security.decide, body, namespace)

    async def _serve_rbac(self, request: web.Request, group: str, version: str, rest: list[str],
                          user: User) -> web.StreamResponse:
        """The RBAC kinds and SelfSubjectAccessReview, kept by the server (drasim/server/rbacobjects.py)."""
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        kind = rbacobjects.BY_PLURAL.get(rest[0])
        if kind is None or kind.group != group or kind.version != version or len(rest) > 2 or (
                namespace is not None and not kind.namespaced):
            raise st.path_not_found()
        name = rest[1] if len(rest) > 1 else None
        method, store = request.method, self.rbac
        if kind in rbacobjects.REVIEW_KINDS:
            if method != "POST" or name is not None:
                raise st.method_not_allowed(method)
            # a SelfSubjectReview has no spec: its body (protobuf from kubectl) is read, not decoded
            body = await self._body(request) if kind is rbacobjects.SSR else await self._decoded(request, kind)
            return _json(self._review(kind, user, namespace, body), 201)
        if name is None:
            if method == "GET":
                if request.query.get("watch") in ("1", "true"):
                    return await serve_watch(request, self, Target(kind, namespace, None, None))
                return _json(store.list(kind, namespace))
            if method == "POST":
                if kind.namespaced and namespace is None:
                    raise st.method_not_allowed(method)
                body = await self._decoded(request, kind)
                self._guard(user, kind, namespace, body)
                return _json(store.create(kind, namespace, body), 201)
            raise st.method_not_allowed(method)
        if kind.namespaced and namespace is None:
            raise st.path_not_found()
        if method == "GET":
            return _json(store.get(kind, namespace, name))
        if method == "PUT":
            body = await self._decoded(request, kind)
            self._guard(user, kind, namespace, body, store.get(kind, namespace, name))
            return _json(store.update(kind, namespace, name, body))
        if method == "PATCH" and kind is not rbacobjects.SSAR:   # kubectl apply of an existing object
            body = await self._rbac_patched(request, kind, namespace, name)
            self._guard(user, kind, namespace, body, store.get(kind, namespace, name))
            return _json(store.update(kind, namespace, name, body))
        if method == "DELETE":
            store.delete(kind, namespace, name)
            return _json(st.success_status({"name": name, "group": kind.group, "kind": kind.plural}))
        raise st.method_not_allowed(method)
