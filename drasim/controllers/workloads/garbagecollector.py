"""The garbage collector: cascading deletion by ownerReferences.

k8s: pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem, classifyReferences,
     processDeletingDependentsItem, orphanDependents), graph_builder.go (the uid → dependents graph).

- An object whose owners are all gone (no object of that kind, namespace and name with that uid)
  is deleted, with the propagation its own finalizers ask for (Background otherwise).
- An object with some owner still there loses only the references to the owners that are gone.
- An owner deleted in the foreground (`foregroundDeletion` finalizer) has its dependents deleted
  (in the foreground when they have dependents of their own); once none that block its deletion
  (blockOwnerDeletion) remain, the finalizer is removed and the owner goes.
- An owner deleted with `orphan` has the references to it removed from its dependents, then the
  finalizer.
An owner of a kind drasim does not simulate (skipped or unknown) cannot be looked up: its
dependents are kept, as kube-controller-manager keeps them while a kind cannot be resolved —
so the pods of a snapshot's skipped workloads stay.
"""
from __future__ import annotations

from drasim import smallsets
from drasim.api import kinds
from drasim.controllers.batching import run_batch
from drasim.controllers.workloads.common import ControllerContext, KeyQueue
from drasim.deletion import BACKGROUND, FOREGROUND, FOREGROUND_FINALIZER, ORPHAN, ORPHAN_FINALIZER
from drasim.errors import InputError
from drasim.store import DELETED, WatchEvent, clone

Ref = tuple[str, str, str]   # (kind, namespace, name)


def controller(ctx: ControllerContext) -> "GarbageCollector":
    return GarbageCollector(ctx)


def owner_kind(ref: dict) -> kinds.Kind | None:
    """The simulated kind an owner reference names (group must match; any version)."""
    memo_key = (ref.get("kind"), ref.get("apiVersion"))
    try:
        return _OWNER_KINDS[memo_key]
    except KeyError:
        pass
    except TypeError:   # not strings: no memo
        return _owner_kind(ref)
    if len(_OWNER_KINDS) >= 1024:
        _OWNER_KINDS.clear()
    found = _OWNER_KINDS[memo_key] = _owner_kind(ref)
    return found


def _owner_kind(ref: dict) -> kinds.Kind | None:
    kind = kinds.BY_KIND.get(ref.get("kind") or "")
    api_version = ref.get("apiVersion") or ""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    if kind is None or kind is kinds.EVENT or kind.group != group:
        return None
    return kind


# (kind, apiVersion) -> owner_kind: every dependent of a kind names it alike
_OWNER_KINDS: dict[tuple, kinds.Kind | None] = {}


class GarbageCollector:
    name = "garbage-collector"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self._dependents: dict[str, object] = {}   # owner uid -> dependents (graph_builder's graph; smallsets)
        self._check = KeyQueue(ctx.clock)             # dependents to classify (attemptToDelete)
        self._owners = KeyQueue(ctx.clock)            # owners being deleted in foreground / orphaning
        ctx.store.subscribe(self._on_event)

    def _on_event(self, ev: WatchEvent) -> None:
        obj, old = ev.obj, ev.old
        md = obj["metadata"]
        refs = md.get("ownerReferences")
        old_refs = (old or {}).get("metadata", {}).get("ownerReferences") if old is not None and old is not obj else None
        if ev.type != DELETED and not md.get("deletionTimestamp") and (
                (old_refs is None and not refs) or (old_refs is not None and (old_refs is refs or old_refs == refs))):
            return   # no owners, or an update that leaves them as they are (the common cases): nothing to do
        ref: Ref = (ev.kind, md.get("namespace") or "", md["name"])
        if old_refs and old_refs is not refs and old_refs != refs:
            for r in old_refs:
                smallsets.discard(self._dependents, r.get("uid"), ref)
        if ev.type == DELETED:
            for r in refs or ():
                smallsets.discard(self._dependents, r.get("uid"), ref)
                if isinstance(r, dict) and self._waiting(r, md.get("namespace") or ""):
                    kind = owner_kind(r)
                    ns = (md.get("namespace") or "") if kind.namespaced else ""
                    self._owners.add((ns, r.get("name"), kind.kind))   # type: ignore[arg-type]
            for dep in sorted(smallsets.pop(self._dependents, md.get("uid"))):
                self._enqueue_check(dep)
            return
        if refs and (old_refs is None or old_refs != refs):
            # k8s: graph_builder processGraphChanges — only references added (a new object or
            # changed references) join the graph and are checked for a missing owner.
            for r in refs:
                smallsets.add(self._dependents, r.get("uid"), ref)
            ns = md.get("namespace") or ""
            for r in refs:
                if isinstance(r, dict) and self._gone(r, ns):
                    self._enqueue_check(ref)
                    break
        finalizers = md.get("finalizers") or ()
        if md.get("deletionTimestamp") and (FOREGROUND_FINALIZER in finalizers or ORPHAN_FINALIZER in finalizers):
            self._owners.add(ref[1:] + (ev.kind,))   # type: ignore[arg-type]

    def _enqueue_check(self, ref: Ref) -> None:
        self._check.add(ref)   # type: ignore[arg-type]

    def _gone(self, ref: dict, namespace: str) -> bool:
        """The owner is absent (a dangling reference). Unresolvable kinds are never gone."""
        kind = owner_kind(ref)
        if kind is None:
            return False
        owner = self.store.get(kind.kind, namespace if kind.namespaced else None, ref.get("name") or "")
        return owner is None or owner["metadata"].get("uid") != ref.get("uid")

    def _waiting(self, ref: dict, namespace: str) -> bool:
        """The owner is being deleted in the foreground (waitingForDependentsDeletion)."""
        kind = owner_kind(ref)
        if kind is None:
            return False
        owner = self.store.get(kind.kind, namespace if kind.namespaced else None, ref.get("name") or "")
        return owner is not None and bool(owner["metadata"].get("deletionTimestamp")) and \
            FOREGROUND_FINALIZER in (owner["metadata"].get("finalizers") or ())

    def _classify(self, ref: dict, namespace: str) -> int:
        """0 when _gone, else 1 when _waiting, else 2 (k8s: classifyReferences), from one look-up."""
        kind = owner_kind(ref)
        if kind is None:
            return 2
        owner = self.store.get(kind.kind, namespace if kind.namespaced else None, ref.get("name") or "")
        if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
            return 0
        if owner["metadata"].get("deletionTimestamp") and \
                FOREGROUND_FINALIZER in (owner["metadata"].get("finalizers") or ()):
            return 1
        return 2

    def has_work(self) -> bool:
        return bool(self._check or self._owners)

    def run_once(self) -> None:
        run_batch(self, self._run_one)   # a settle after a snapshot load checks every dependent, writing nothing

    def _run_one(self) -> None:
        if self._owners:
            ns, name, kind = self._owners.pop()   # type: ignore[misc]
            self._process_deleting_owner(kind, ns, name)
        else:
            kind, ns, name = self._check.pop()    # type: ignore[misc]
            self._attempt_to_delete(kind, ns, name)

    # -- k8s: attemptToDeleteItem ------------------------------------------------------------------
    def _attempt_to_delete(self, kind: str, ns: str, name: str) -> None:
        obj = self.store.get(kind, ns or None, name)
        if obj is None:
            return
        md = obj["metadata"]
        if md.get("deletionTimestamp") and FOREGROUND_FINALIZER not in (md.get("finalizers") or ()):
            return
        solid, dangling, waiting = [], [], []
        for ref in md.get("ownerReferences") or ():
            if not isinstance(ref, dict):
                continue
            (dangling, waiting, solid)[self._classify(ref, ns)].append(ref)
        if solid:
            if dangling or waiting:
                drop = {r.get("uid") for r in dangling + waiting}
                self._write_refs(obj, [r for r in md.get("ownerReferences") or () if r.get("uid") not in drop])
            return
        if md.get("deletionTimestamp"):
            return
        if waiting and md.get("uid") in self._dependents:
            policy = FOREGROUND
        elif ORPHAN_FINALIZER in (md.get("finalizers") or ()):
            policy = ORPHAN
        elif FOREGROUND_FINALIZER in (md.get("finalizers") or ()):
            policy = FOREGROUND
        else:
            policy = BACKGROUND
        try:
            self.ctx.delete(kind, ns or None, name, propagation=policy)
        except InputError:
            pass   # gone meanwhile, or refused: nothing more the collector can do

    def _write_refs(self, obj: dict, refs: list[dict]) -> None:
        updated = clone(obj)
        if refs:
            updated["metadata"]["ownerReferences"] = refs
        else:
            updated["metadata"].pop("ownerReferences", None)
        updated["metadata"].pop("resourceVersion", None)
        self.store.update(updated)

    # -- k8s: processDeletingDependentsItem, orphanDependents --------------------------------------
    def _process_deleting_owner(self, kind: str, ns: str, name: str) -> None:
        owner = self.store.get(kind, ns or None, name)
        if owner is None or not owner["metadata"].get("deletionTimestamp"):
            return
        md = owner["metadata"]
        uid = md["uid"]
        finalizers = md.get("finalizers") or ()
        deps = [d for d in sorted(smallsets.values(self._dependents, uid)) if self.store.get(d[0], d[1] or None, d[2])]
        if ORPHAN_FINALIZER in finalizers:
            for d in deps:
                dep = self.store.get(d[0], d[1] or None, d[2])
                self._write_refs(dep, [r for r in dep["metadata"].get("ownerReferences") or () if r.get("uid") != uid])
            self._remove_finalizer(owner, ORPHAN_FINALIZER)
            return
        blocking = []
        for d in deps:
            dep = self.store.get(d[0], d[1] or None, d[2])
            if any(r.get("uid") == uid and r.get("blockOwnerDeletion") for r in dep["metadata"].get("ownerReferences") or ()):
                blocking.append(d)
            self._enqueue_check(d)
        if not blocking:
            self._remove_finalizer(owner, FOREGROUND_FINALIZER)

    def _remove_finalizer(self, obj: dict, finalizer: str) -> None:
        updated = clone(obj)
        rest = [f for f in updated["metadata"].get("finalizers") or () if f != finalizer]
        if rest:
            updated["metadata"]["finalizers"] = rest
        else:
            updated["metadata"].pop("finalizers", None)
        updated["metadata"].pop("resourceVersion", None)
        self.store.update(updated)
