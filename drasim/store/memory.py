"""A versioned object store with watch, shaped like the API server's storage.

Every write bumps one cluster-wide resourceVersion (as etcd's revision does),
assigns uid/creationTimestamp/generation on create, honours finalizers on
delete (deletionTimestamp first, removal once they are gone) and notifies
subscribers synchronously. Subscribers are informer event handlers: they only
enqueue work; the simulation loop runs it later.

Objects handed out are the stored dicts themselves: callers must not mutate
them (copy with `clone()` first). That keeps reads free on the hot path.
"""
from __future__ import annotations

import random
from typing import Callable, Iterable

from drasim.api.kinds import BY_KIND, STORED_KINDS, Kind
from drasim.api.nesting import clone
from drasim.errors import InputError
from drasim.sim.clock import Clock


class StoreError(InputError):
    """A request the API server would refuse (not found, conflict, already exists)."""

    def __init__(self, reason: str, message: str, code: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code


def not_found(kind: Kind, name: str) -> StoreError:
    return StoreError("NotFound", f'{kind.resource} "{name}" not found', 404)


def already_exists(kind: Kind, name: str) -> StoreError:
    return StoreError("AlreadyExists", f'{kind.resource} "{name}" already exists', 409)


def conflict(kind: Kind, name: str) -> StoreError:
    return StoreError("Conflict", f'Operation cannot be fulfilled on {kind.resource} "{name}": '
                      "the object has been modified; please apply your changes to the latest version and try again",
                      409)


ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"
# Kinds whose registry strategy sets no metadata.generation (the RBAC kinds' neither).
_NO_GENERATION = frozenset({"Pod", "Node", "Namespace", "Event", "ResourceQuota", "Role", "RoleBinding",
                            "ClusterRole", "ClusterRoleBinding"})

# k8s: apiserver names.SimpleNameGenerator: 5 characters from this alphabet (no vowels, no look-alikes).
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_BASE = 58  # 63 - 5
_ALPHABET_BITS = len(_GENERATE_ALPHABET).bit_length()   # what random._randbelow draws for choice()
# uuid.UUID(version=4): variant bits 10 (RFC 4122) and version nibble 4.
_UUID_CLEAR = ~((0xc000 << 48) | (0xf000 << 64)) & ((1 << 128) - 1)
_UUID_V4 = (0x8000 << 48) | (4 << 76)


class WatchEvent:
    """One change as watchers see it: ADDED/MODIFIED/DELETED, the kind, the object (and the one it
    replaced). A plain slotted class: several are made per write, and a frozen dataclass's
    __init__ costs a setattr call per field. Treat it as immutable."""

    __slots__ = ("type", "kind", "obj", "old")

    def __init__(self, type: str, kind: str, obj: dict, old: dict | None = None) -> None:
        self.type, self.kind, self.obj, self.old = type, kind, obj, old

    def __repr__(self) -> str:
        md = self.obj.get("metadata") or {}
        return f"WatchEvent({self.type}, {self.kind}, {md.get('namespace') or ''}/{md.get('name')})"


Key = tuple[str, str]  # (namespace or "", name)


def _held(kind_name: str, obj: dict) -> bool:
    """Deletion waits: metadata finalizers remain, or (a Namespace) spec.finalizers — the
    namespace controller's `kubernetes` (k8s: registry/core/namespace/storage Delete)."""
    if obj["metadata"].get("finalizers"):
        return True
    return kind_name == "Namespace" and bool((obj.get("spec") or {}).get("finalizers"))


def key_of(obj: dict) -> Key:
    md = obj["metadata"]
    return (md.get("namespace") or "", md["name"])


class MemoryStore:
    """All objects in memory, per kind, keyed by (namespace, name)."""

    def __init__(self, clock: Clock, seed: int = 0) -> None:
        self.clock = clock
        self._objects: dict[str, dict[Key, dict]] = {k: {} for k in STORED_KINDS}
        self._by_namespace: dict[str, dict[str, dict[str, dict]]] = {k: {} for k in STORED_KINDS}
        self._revision = 0
        self._rng = random.Random(seed)
        # uids objects came with (a snapshot's): a drawn uid is never one of them, as kube-apiserver's
        # random ones never are (default_uid).
        self._given_uids: set[str] = set()
        self._last_drawn: str | None = None
        self.last_event_nanos = 0   # the time in the newest Event's name (store/events.py)
        self._subscribers: dict[str, list[Callable[[WatchEvent], None]]] = {k: [] for k in STORED_KINDS}
        # A durable journal (drasim/store/sqlite.py, etcd.py) writes each change before it is applied
        # here: when it raises, the store is left as it was (nothing half applied, no one notified).
        self.journal: Callable[[WatchEvent], None] | None = None

    # -- reads ---------------------------------------------------------------
    @property
    def revision(self) -> int:
        return self._revision

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        return self._objects[kind].get((namespace or "", name))

    def list(self, kind: str, namespace: str | None = None) -> list[dict]:
        if namespace is None:
            return list(self._objects[kind].values())
        return list(self._by_namespace[kind].get(namespace, {}).values())

    def _put(self, kind: str, key: Key, obj: dict) -> None:
        self._objects[kind][key] = obj
        self._by_namespace[kind].setdefault(key[0], {})[key[1]] = obj

    def _drop(self, kind: str, key: Key) -> None:
        del self._objects[kind][key]
        names = self._by_namespace[kind][key[0]]
        del names[key[1]]
        if not names:
            del self._by_namespace[kind][key[0]]

    def any_in(self, kind: str, namespace: str) -> bool:
        """Whether the namespace holds an object of the kind (without listing them)."""
        return bool(self._by_namespace[kind].get(namespace))

    def count(self, kind: str) -> int:
        return len(self._objects[kind])

    def size(self) -> int:
        """Objects stored, of every kind."""
        return sum(map(len, self._objects.values()))

    def subscribe(self, handler: Callable[[WatchEvent], None], kinds: Iterable[str] | None = None) -> None:
        """Call handler on every write of the given kinds (all but Events when None), in subscription order."""
        for kind in (kinds if kinds is not None else [k for k in BY_KIND if k != "Event"]):
            self._subscribers[kind].append(handler)

    # -- writes --------------------------------------------------------------
    def _next_rv(self) -> str:
        self._revision += 1
        return str(self._revision)

    def new_uid(self) -> str:
        """A version-4 UUID from the seeded generator: str(uuid.UUID(int=bits, version=4)), formatted
        directly (tests/unit/store/test_memory_names.py holds it to the uuid module's)."""
        h = "%032x" % ((self._rng.getrandbits(128) & _UUID_CLEAR) | _UUID_V4)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def default_uid(self, md: dict) -> None:
        """md.setdefault("uid", self.new_uid()) as it was written, generator draw included when a
        uid is there already (so later uids and generated names stay the same), but without
        formatting a uid that is not used: a snapshot's objects all come with theirs."""
        uid = md.get("uid")
        if uid:   # an empty one is no uid
            self._rng.getrandbits(128)
            if uid is not self._last_drawn:   # admission drew it a moment ago: not given
                self._given_uids.add(uid)
        else:
            uid = self.new_uid()
            while uid in self._given_uids:   # a snapshot made with this seed holds the draws to come
                uid = self.new_uid()
            md["uid"] = self._last_drawn = uid

    def generate_name(self, kind: Kind, base: str, namespace: str) -> str:
        """k8s: names.SimpleNameGenerator — base (cut to 58) plus 5 random characters, unused so far.

        The characters are drawn as random.choice draws them (rejection sampling on 5 bits), so
        names are what `rng.choice` would give, without its per-call overhead."""
        base = base[:_MAX_GENERATED_BASE]
        bits = self._rng.getrandbits
        n = len(_GENERATE_ALPHABET)
        while True:
            chars = []
            for _ in range(5):
                r = bits(_ALPHABET_BITS)
                while r >= n:
                    r = bits(_ALPHABET_BITS)
                chars.append(_GENERATE_ALPHABET[r])
            name = base + "".join(chars)
            if (namespace, name) not in self._objects[kind.kind]:
                return name

    def _persist(self, event: WatchEvent, revision_before: int) -> None:
        """Write the change to the journal first; on failure undo the revision bump and re-raise."""
        if self.journal is None:
            return
        try:
            self.journal(event)
        except BaseException:
            self._revision = revision_before
            raise

    def _notify(self, event: WatchEvent) -> None:
        for handler in self._subscribers[event.kind]:
            handler(event)

    def create(self, obj: dict, *, copy: bool = True) -> dict:
        """Store a new object; fills uid, resourceVersion, creationTimestamp, generation.

        copy=False hands the dict over to the store (the caller built it and keeps no reference).
        """
        kind = STORED_KINDS[obj["kind"]]
        if copy:
            obj = clone(obj)
        md = obj.setdefault("metadata", {})
        ns = md.get("namespace") or "" if kind.namespaced else ""
        if not md.get("name") and md.get("generateName"):
            md["name"] = self.generate_name(kind, md["generateName"], ns)
        key = (ns, md["name"])
        table = self._objects[kind.kind]
        if key in table:
            raise already_exists(kind, md["name"])
        self.default_uid(md)
        if "creationTimestamp" not in md:   # not formatted for a snapshot's objects, which have one
            md["creationTimestamp"] = self.clock.timestamp()
        if kind.kind not in _NO_GENERATION:
            md.setdefault("generation", 1)
        before = self._revision
        md["resourceVersion"] = self._next_rv()
        added = WatchEvent(ADDED, kind.kind, obj)
        self._persist(added, before)
        self._put(kind.kind, key, obj)
        self._notify(added)
        if md.get("deletionTimestamp") and not _held(kind.kind, obj):
            # A snapshot of an object being deleted: with finalizers it waits for them, as in
            # the API server; without, its deletion completes now (graceful termination is
            # not modelled: pods go at once).
            gone = WatchEvent(DELETED, kind.kind, obj)
            self._persist(gone, self._revision)
            self._drop(kind.kind, key)
            self._notify(gone)
        return obj

    def restore(self, objects: list[dict], revision: int, seed: int = 0) -> None:
        """Put back objects a durable store kept, as they were (resourceVersion, uid), and tell
        the subscribers as informers would on start: an ADDED event for each. Generated names
        and uids continue from a generator seeded by the revision, so they do not repeat."""
        replaced = {}
        for obj in objects:
            kind = STORED_KINDS[obj["kind"]]
            key = key_of(obj)
            previous = self._objects[kind.kind].get(key)
            if previous is not None:   # e.g. a system namespace made at start: the kept one wins
                replaced[id(obj)] = previous
            self._put(kind.kind, key, obj)
            if obj["metadata"].get("uid"):
                self._given_uids.add(obj["metadata"]["uid"])
        self._revision = max(self._revision, revision)
        self._rng = random.Random(f"{seed}:{revision}")
        for obj in objects:
            old = replaced.get(id(obj))
            self._notify(WatchEvent(MODIFIED, obj["kind"], obj, old) if old is not None
                         else WatchEvent(ADDED, obj["kind"], obj))

    def _replace(self, kind: Kind, key: Key, new: dict, old: dict) -> dict:
        before = self._revision
        new["metadata"]["resourceVersion"] = self._next_rv()
        gone = new["metadata"].get("deletionTimestamp") and not _held(kind.kind, new)
        event = WatchEvent(DELETED if gone else MODIFIED, kind.kind, new, old)
        self._persist(event, before)
        if gone:
            self._drop(kind.kind, key)
        else:
            self._put(kind.kind, key, new)
        self._notify(event)
        return new

    def _current(self, obj: dict) -> tuple[Kind, Key, dict]:
        kind = STORED_KINDS[obj["kind"]]
        key = key_of(obj)
        old = self._objects[kind.kind].get(key)
        if old is None:
            raise not_found(kind, key[1])
        rv = obj["metadata"].get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise conflict(kind, key[1])
        return kind, key, old

    def update(self, obj: dict, *, copy: bool = True) -> dict:
        """Replace spec and metadata; status is kept for kinds with a status subresource."""
        kind, key, old = self._current(obj)
        new = clone(obj) if copy else dict(obj, metadata=dict(obj["metadata"]))
        md, old_md = new["metadata"], old["metadata"]
        for field in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
            if field in old_md:
                md[field] = old_md[field]
            else:
                md.pop(field, None)
        if kind.has_status:
            if "status" in old:
                new["status"] = clone(old["status"])
            else:
                new.pop("status", None)
        if "generation" in old_md and new.get("spec") != old.get("spec"):
            md["generation"] = old_md["generation"] + 1
        return self._replace(kind, key, new, old)

    def replace(self, obj: dict) -> dict:
        """Write a whole object, spec and status together, as a server-side subresource handler does
        (k8s: pods/binding sets spec.nodeName and the PodScheduled condition at once).

        The dict is handed over (not copied); server-owned metadata is kept.
        """
        kind, key, old = self._current(obj)
        md, old_md = obj["metadata"], old["metadata"]
        for field in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
            if field in old_md:
                md[field] = old_md[field]
        return self._replace(kind, key, obj, old)

    def update_status(self, obj: dict, *, copy: bool = True) -> dict:
        """Replace only status (the /status subresource)."""
        kind, key, old = self._current(obj)
        new = dict(old)
        new["metadata"] = dict(old["metadata"])
        if "status" in obj:
            new["status"] = clone(obj["status"]) if copy else obj["status"]
        else:
            new.pop("status", None)
        return self._replace(kind, key, new, old)

    def delete(self, kind_name: str, namespace: str | None, name: str, *, uid: str | None = None) -> dict | None:
        """Delete, or mark for deletion while finalizers remain. Returns the object or None."""
        kind = STORED_KINDS[kind_name]
        key = (namespace or "" if kind.namespaced else "", name)
        table = self._objects[kind_name]
        old = table.get(key)
        if old is None:
            raise not_found(kind, name)
        if uid is not None and old["metadata"].get("uid") != uid:
            raise StoreError("Conflict", f"Precondition failed: UID in precondition: {uid}, "
                             f"UID in object meta: {old['metadata'].get('uid')}", 409)
        if _held(kind_name, old):
            if old["metadata"].get("deletionTimestamp"):
                return old
            new = dict(old)
            new["metadata"] = dict(old["metadata"], deletionTimestamp=self.clock.timestamp())
            if kind_name == "Namespace":
                new["status"] = dict(old.get("status") or {}, phase="Terminating")
            return self._replace(kind, key, new, old)
        self._revision += 1
        gone = WatchEvent(DELETED, kind_name, old, old)
        self._persist(gone, self._revision - 1)
        self._drop(kind_name, key)
        self._notify(gone)
        return old

    def all_objects(self, kinds: Iterable[Kind]) -> list[dict]:
        out: list[dict] = []
        for kind in kinds:
            out.extend(self._objects[kind.kind][k] for k in sorted(self._objects[kind.kind]))
        return out
