"""REST verbs on the served kinds: get, list, create, update, patch, delete, deletecollection,
and the pods/eviction and pods/binding subresources. Framework-free: each returns (code, body).

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/handlers (create.go, update.go, patch.go,
     delete.go, get.go), pkg/registry/core/pod/storage (eviction.go, BindingREST).
Every write goes through ControlPlane (admission.prepare / admit: the one write path).
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from drasim.api.kinds import Kind
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from drasim.server import dryrun
from drasim.api import patch as patches
from drasim.server import scale
from drasim.server.fieldvalidation import drop_unknown
from drasim.server import status as st
from drasim.server.serialize import outgoing
from drasim.server.selectors import matches, parse_field_selector, parse_label_selector
from drasim.store import clone
from drasim.store.sqlite import StorageError
from drasim.store.memory import StoreError, already_exists

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
# k8s: pods return the deleted object (ReturnDeletedObject); other kinds a Success Status.
RETURNS_DELETED = frozenset({"Pod"})
# The kinds MemoryStore.create gives no metadata.generation (drasim/store/memory.py).
NO_GENERATION = frozenset({"Pod", "Node", "Namespace", "Event", "ResourceQuota"})


@dataclass(frozen=True, slots=True)
class Target:
    kind: Kind
    namespace: str | None
    name: str | None
    subresource: str | None


def _key(obj: dict) -> tuple[str, str]:
    md = obj["metadata"]
    return (md.get("namespace") or "", md["name"])


class Resources:
    def __init__(self, cp: ControlPlane, on_write=lambda: None, status_check=lambda t, obj, old: None,
                 admission_check=lambda t, operation, obj, old: None) -> None:
        self.status_check = status_check
        # the server's per-request admission (NodeRestriction): (target, create|update|delete, new, old)
        self.admission_check = admission_check
        self.cp = cp
        self.warnings: list[str] = []   # of the last write (single-threaded: read right after)
        self.on_write = on_write

    # -- reads --------------------------------------------------------------------------------
    def get(self, t: Target) -> dict:
        obj = self.cp.store.get(t.kind.kind, t.namespace, t.name)
        if obj is None:
            raise st.not_found(t.kind, t.name)
        return obj

    def select(self, t: Target, query) -> list[dict]:
        labels = parse_label_selector(query.get("labelSelector"))
        fields = parse_field_selector(t.kind.kind, query.get("fieldSelector"))
        objs = self.cp.store.list(t.kind.kind, t.namespace if t.kind.namespaced else None)
        objs = [o for o in objs if matches(o, labels, fields)]
        objs.sort(key=_key)   # etcd key order
        return objs

    def list(self, t: Target, query) -> tuple[list[dict], dict]:
        """Items and list metadata (resourceVersion, continue, remainingItemCount)."""
        objs = self.select(t, query)
        rv = str(self.cp.store.revision)
        token = query.get("continue")
        if token:
            try:
                start = tuple(json.loads(base64.urlsafe_b64decode(token.encode())))
            except (ValueError, TypeError):
                raise st.bad_request(f"continue key is not valid: {token}") from None
            objs = [o for o in objs if _key(o) >= start]
        md: dict = {"resourceVersion": rv}
        limit = query.get("limit")
        if limit and limit.isdigit() and 0 < int(limit) < len(objs):
            n = int(limit)
            nxt = _key(objs[n])
            md["continue"] = base64.urlsafe_b64encode(json.dumps(list(nxt)).encode()).decode()
            md["remainingItemCount"] = len(objs) - n
            objs = objs[:n]
        return objs, md

    def list_body(self, t: Target, items: list[dict], md: dict) -> dict:
        return {"kind": f"{t.kind.kind}List", "apiVersion": t.kind.api_version, "metadata": md,
                "items": [outgoing(i) for i in items]}

    # -- writes -------------------------------------------------------------------------------
    def _check_body(self, t: Target, obj) -> dict:
        if not isinstance(obj, dict):
            raise st.bad_request(f"the object provided is unrecognized (must be of type {t.kind.kind})")
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if api_version and api_version != t.kind.api_version:
            # k8s: handlers/create.go — AcceptsGroupVersion
            raise st.bad_request(f"the API version in the data ({api_version}) does not match the expected "
                                 f"API version ({t.kind.api_version})")
        if kind and kind != t.kind.kind:
            raise st.bad_request(f"the kind in the data ({kind}) does not match the expected kind ({t.kind.kind})")
        obj = dict(obj, apiVersion=t.kind.api_version, kind=t.kind.kind)
        md = obj.get("metadata")
        if md is not None and not isinstance(md, dict):
            raise st.bad_request(f'{t.kind.kind} in version "{t.kind.version}" cannot be handled as a {t.kind.kind}: '
                                 "json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta")
        md = dict(md or {})
        if t.kind.namespaced:
            ns = md.get("namespace")
            if ns and ns != t.namespace:
                # k8s: rest.BeforeCreate / EnsureObjectNamespaceMatchesRequestNamespace
                raise st.bad_request("the namespace of the provided object does not match the namespace sent on the request")
            md["namespace"] = t.namespace
        else:
            md.pop("namespace", None)
        obj["metadata"] = md
        return obj

    def _namespace_exists(self, t: Target) -> None:
        if t.kind.namespaced and self.cp.store.get("Namespace", None, t.namespace) is None:
            raise st.namespace_not_found(t.namespace)

    def create(self, t: Target, body, dry_run: bool = False, validation: str = "Strict") -> tuple[int, dict]:
        obj = self._check_body(t, body)
        self.warnings = drop_unknown(t.kind.kind, obj, validation)
        self._namespace_exists(t)
        self.admission_check(t, "create", obj, None)
        try:
            if dry_run:
                from drasim import admission
                obj = admission.prepare(self.cp.store, t.kind, obj, None, "", gates=self.cp.options.gates)
                admission.admit(self.cp.store, self.cp.er_cache, t.kind, obj, "", dry_run=True)
                return 201, self._dry_run_created(t, obj)
            stored = self.cp.create(obj)
        except InputError as e:
            raise st.from_drasim(e, t.kind) from None
        self.on_write()
        return 201, stored

    def _dry_run_created(self, t: Target, obj: dict) -> dict:
        """k8s: registry/generic/registry/dryrun.go — a dry-run create still meets the storage's
        AlreadyExists and gets what BeforeCreate / PrepareForCreate set (creationTimestamp,
        generation; name and uid came from admission.prepare), but no resourceVersion."""
        md = obj["metadata"]
        if self.cp.store.get(t.kind.kind, t.namespace, md["name"]) is not None:
            raise st.from_drasim(already_exists(t.kind, md["name"]), t.kind)
        md.setdefault("creationTimestamp", self.cp.clock.timestamp())
        if t.kind.kind not in NO_GENERATION:
            md.setdefault("generation", 1)
        return obj

    def update(self, t: Target, body, validation: str = "Strict", dry_run: bool = False) -> tuple[int, dict]:
        obj = self._check_body(t, body)
        self.warnings = drop_unknown(t.kind.kind, obj, validation)
        name = obj["metadata"].get("name")
        if name != t.name:
            # k8s: handlers/update.go
            raise st.bad_request(f"the name of the object ({name}) does not match the name on the URL ({t.name})")
        old = self.get(t)
        return 200, self._store_update(t, obj, old, dry_run)

    def _store_update(self, t: Target, obj: dict, old: dict, dry_run: bool = False) -> dict:
        self.admission_check(t, "update", obj, old)
        if t.subresource == "status":
            self.status_check(t, obj, old)   # the server's authorization of status fields (drastatus.py)
        try:
            if dry_run:   # every check, nothing written (dryrun.py)
                return dryrun.updated(self.cp, t.kind, obj, old, status_only=t.subresource == "status")
            stored = self.cp.update(obj, old, status_only=t.subresource == "status")
        except InputError as e:
            raise st.from_drasim(e, t.kind) from None
        self.on_write()
        return stored

    def patch(self, t: Target, content_type: str, raw: bytes, validation: str = "Strict",
              dry_run: bool = False) -> tuple[int, dict]:
        # k8s: handlers/patch.go PatchResource checks the patch type before it reads the object,
        # so a server-side apply of an object that does not exist is the same 415, not a 404.
        if content_type not in (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH):
            raise _unsupported_patch(content_type)
        old = self.get(t)
        try:
            body = json.loads(raw or b"null")
        except ValueError as e:
            raise st.bad_request(f"error decoding patch: {e}") from None
        try:
            if content_type == JSON_PATCH:
                patched = patches.json_patch(old, body)
            elif content_type == MERGE_PATCH:
                if not isinstance(body, dict):
                    raise patches.PatchError("merge patch must be a JSON object", malformed=True)
                patched = patches.merge_patch(old, body)
            elif content_type == STRATEGIC_PATCH:
                patched = patches.strategic_merge(old, body)
            else:
                raise _unsupported_patch(content_type)
        except patches.PatchError as e:
            if e.malformed:
                raise st.bad_request(str(e)) from None
            if content_type == JSON_PATCH:
                # k8s: handlers/patch.go applyJSPatch answers a patch that does not apply with
                # NewGenericServerResponse(422), whose message is the generic one (details empty).
                raise st.ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                                  {}) from None
            raise st.ApiError(422, "Invalid", str(e), {}) from None
        if not isinstance(patched, dict):
            raise st.bad_request("the patch does not produce an object")
        md = patched.get("metadata") if isinstance(patched.get("metadata"), dict) else {}
        if md.get("name") != t.name:
            raise st.bad_request(f"the name of the object ({md.get('name')}) does not match the name on the URL ({t.name})")
        patched = self._check_body(t, patched)
        self.warnings = drop_unknown(t.kind.kind, patched, validation)
        if "resourceVersion" not in (body.get("metadata") or {} if isinstance(body, dict) else {}):
            patched["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        return 200, self._store_update(t, patched, old, dry_run)

    def delete(self, t: Target, options: dict | None, dry_run: bool = False) -> tuple[int, dict]:
        options = options or {}
        pre = options.get("preconditions") or {}
        current = self.get(t)
        self.admission_check(t, "delete", None, current)
        if pre.get("resourceVersion") and pre["resourceVersion"] != current["metadata"]["resourceVersion"]:
            raise st.ApiError(409, "Conflict", f"Operation cannot be fulfilled on {t.kind.resource} \"{t.name}\": "
                              f"Precondition failed: ResourceVersion in precondition: {pre['resourceVersion']}, "
                              f"ResourceVersion in object meta: {current['metadata']['resourceVersion']}",
                              {"name": t.name, "kind": t.kind.plural, **({"group": t.kind.group} if t.kind.group else {})})
        if dry_run or dryrun.wants_dry_run(None, options):   # k8s: dryrun.go Delete — nothing removed
            if pre.get("uid") and pre["uid"] != current["metadata"].get("uid"):
                raise st.from_drasim(StoreError("Conflict", f"Precondition failed: UID in precondition: {pre['uid']}, "
                                                f"UID in object meta: {current['metadata'].get('uid')}", 409), t.kind)
            return 200, clone(current) if t.kind.kind in RETURNS_DELETED or current["metadata"].get("finalizers") \
                else st.success_status(self._deleted_details(t, current))
        try:
            obj = self.cp.store.delete(t.kind.kind, t.namespace, t.name, uid=pre.get("uid"))
        except InputError as e:
            raise st.from_drasim(e, t.kind) from None
        self.on_write()
        pending = self.cp.store.get(t.kind.kind, t.namespace, t.name) is not None
        if pending:   # finalizers remain: the object, marked for deletion
            # k8s: handlers/delete.go — 202 only when the client asked orphanDependents=false
            return (202 if options.get("orphanDependents") is False else 200), obj
        if t.kind.kind in RETURNS_DELETED:
            return 200, obj
        return 200, st.success_status(self._deleted_details(t, obj))

    @staticmethod
    def _deleted_details(t: Target, obj: dict) -> dict:
        details = {"name": t.name, "kind": t.kind.plural, "uid": obj["metadata"].get("uid")}
        if t.kind.group:
            details["group"] = t.kind.group
        return details

    def delete_collection(self, t: Target, query) -> tuple[int, dict]:
        deleted = []
        chosen = self.select(t, query)
        for obj in chosen:   # k8s: DeleteCollection admits each object; here all before any is deleted
            self.admission_check(Target(t.kind, t.namespace, obj["metadata"]["name"], None), "delete", None, obj)
        for obj in chosen:
            md = obj["metadata"]
            try:
                deleted.append(self.cp.store.delete(t.kind.kind, md.get("namespace"), md["name"]))
            except StorageError:
                raise
            except InputError:
                continue
        if deleted:
            self.on_write()
        return 200, self.list_body(t, deleted, {"resourceVersion": str(self.cp.store.revision)})

    # -- scale (Deployments, ReplicaSets, StatefulSets) -----------------------------------------
    def get_scale(self, t: Target) -> dict:
        return scale.scale_of(self.get(t))

    def write_scale(self, t: Target, body=None, content_type: str | None = None, raw: bytes = b"") -> tuple[int, dict]:
        """PUT (body) or PATCH (content_type, raw) of the Scale; the parent takes spec.replicas."""
        parent = self.get(t)
        if content_type is not None:
            body = scale.patched_scale(scale.scale_of(parent), content_type, raw)
        replicas = scale.replicas_from(parent, body, t.kind)
        new = clone(parent)
        new["spec"]["replicas"] = replicas
        stored = self._store_update(Target(t.kind, t.namespace, t.name, None), new, parent)
        return 200, scale.scale_of(stored)

    # -- pods subresources --------------------------------------------------------------------
    def evict(self, t: Target, body) -> tuple[int, dict]:
        """k8s: pod/storage/eviction.go — the pod's PodDisruptionBudget is checked and charged
        (drasim/evictionapi.py: 429 when it allows no disruption); then the pod gets the
        DisruptionTarget condition and is deleted."""
        from drasim import evictionapi

        if not isinstance(body, dict) or body.get("kind") not in (None, "Eviction"):
            raise st.bad_request("the object provided is unrecognized (must be of type Eviction)")
        pod = self.get(t)
        try:
            charged = evictionapi.check(pod, self.cp.store.list("PodDisruptionBudget", t.namespace),
                                        self.cp.clock.timestamp())
        except evictionapi.EvictionRefused as e:
            raise st.ApiError(e.code, e.reason, e.message, e.details()) from None
        if charged is not None:
            self.cp.store.update_status(charged)
        status = clone(pod.get("status") or {})
        conditions = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionTarget"]
        conditions.append({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                           "message": "Eviction API: evicting", "lastProbeTime": None,
                           "lastTransitionTime": self.cp.clock.timestamp()})
        status["conditions"] = conditions
        self.cp.store.update_status(dict(pod, status=status), copy=False)
        self.cp.store.delete("Pod", t.namespace, t.name)
        self.on_write()
        return 201, st.success_status()

    def bind(self, t: Target, body) -> tuple[int, dict]:
        """k8s: pod/storage BindingREST.setPodNodeAndMetadata — only an unassigned pod can be bound."""
        target = (body or {}).get("target") if isinstance(body, dict) else None
        if not isinstance(target, dict) or not target.get("name"):
            raise st.ApiError(422, "Invalid", 'Binding "" is invalid: target.name: Required value', {})
        pod = self.get(t)
        if pod["metadata"].get("deletionTimestamp"):
            refused = f"pod {t.name} is being deleted, cannot be assigned to a host"
        elif pod["spec"].get("nodeName"):
            refused = f'pod {t.name} is already assigned to node "{pod["spec"]["nodeName"]}"'
        elif pod["spec"].get("schedulingGates"):
            refused = f"pod {t.name} has non-empty .spec.schedulingGates"   # a scheduling un-ready pod
        else:
            refused = None
        if refused is not None:
            raise st.ApiError(409, "Conflict", f'Operation cannot be fulfilled on pods/binding "{t.name}": {refused}',
                              {"name": t.name, "kind": "pods/binding"})
        new = clone(pod)
        new["spec"]["nodeName"] = target["name"]
        status = new.setdefault("status", {})
        status["conditions"] = [c for c in status.get("conditions") or () if c.get("type") != "PodScheduled"] + [
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": self.cp.clock.timestamp()}]
        self.cp.store.replace(new)
        self.on_write()
        return 201, st.success_status()


def _unsupported_patch(content_type: str) -> st.ApiError:
    return st.ApiError(415, "UnsupportedMediaType",
                       f'the server does not support patch type "{content_type}" '
                       "(server-side apply is not modelled; use kubectl apply without --server-side)", {})
