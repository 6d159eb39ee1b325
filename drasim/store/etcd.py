"""etcd under the in-memory store, as kube-apiserver keeps the cluster: `serve --etcd-servers URL`.

Same interface as the SQLite journal (drasim/store/sqlite.py: load, dump, attach, close): the
in-memory store stays the one the control plane reads; every change is written to etcd in its
own transaction before the store call returns, so before the API server answers the client.

Key layout (k8s.io/apiserver pkg/storage/etcd3/store.go, with the registry's key functions
NamespaceKeyFunc / NoNamespaceKeyFunc in pkg/registry/generic/registry/store.go):
`/registry/<prefix>/<namespace>/<name>`, cluster-scoped `/registry/<prefix>/<name>`. The prefix is
the resource's plural name except the historical ones kube-apiserver compiles in
(SpecialDefaultResourcePrefixes, pkg/kubeapiserver/default_storage_factory_builder.go):
nodes live under `/registry/minions`. Values are the objects' JSON (kube-apiserver can store
JSON too: --storage-media-type=application/json; its default is protobuf).

resourceVersion: drasim's MemoryStore owns the cluster-wide counter (one per write, as etcd's
revision is), because the control plane writes synchronously and many writes of one request
(admission, controllers) must see their resourceVersions at once. kube-apiserver instead drops
metadata.resourceVersion before storing (APIObjectVersioner.PrepareObjectForStorage) and reads
it back from the key's mod_revision. drasim keeps its resourceVersion in the stored JSON and the
counter and virtual clock in one more key, `/registry/drasim.io/state`, written in the same
transaction as each object: a restart resumes with the same objects, resourceVersions and uids.
etcd's own revisions serve compare-and-swap: each write is a Txn comparing the key's
mod_revision with the one drasim last wrote (0 for a create), as GuaranteedUpdate / Create do in
store.go; a mismatch means someone else wrote the key, and the write fails.

The client is etcd's v3 JSON gRPC gateway (POST /v3/kv/range, /v3/kv/txn, base64 keys and
values; etcd 3.4+) over http.client from the standard library, one kept-alive connection: the Python etcd3 clients are
unmaintained and pin old protobuf / grpcio releases, which would clash with the test extras.
"""
from __future__ import annotations

import base64
import json
import http.client
import urllib.parse

from drasim.api.kinds import STORED_KINDS
from drasim.store.memory import DELETED, MemoryStore, WatchEvent
from drasim.store import sqlite as sqlite_journal
from drasim.store.sqlite import StorageError

ROOT = "/registry/"
STATE_KEY = ROOT + "drasim.io/state"
# Watch events for watches that resume after a restart, one key each (`<rv>-<n>`, in order), pruned
# to the last sqlite.HISTORY_KEEP: drasim's resourceVersions are not etcd's revisions, so etcd's own
# history cannot answer "everything after resourceVersion N".
EVENTS_PREFIX = ROOT + "drasim.io/events/"
# SpecialDefaultResourcePrefixes (pkg/kubeapiserver/default_storage_factory_builder.go).
SPECIAL_PREFIXES = {("", "nodes"): "minions"}
MAX_TXN_OPS = 100        # etcd's --max-txn-ops defaults to 128
PAGE = 500               # keys per range request while loading
TIMEOUT = 10.0


class EtcdUnreachable(StorageError):
    """No etcd answers at the given URLs (serve prints it as one line and exits 1)."""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _unb64(text: str) -> str:
    return base64.b64decode(text).decode()


def resource_prefix(kind) -> str:
    return SPECIAL_PREFIXES.get((kind.group, kind.plural), kind.plural)


def key_for(kind_name: str, namespace: str | None, name: str) -> str:
    """Where kube-apiserver's registry keeps this object in etcd."""
    kind = STORED_KINDS[kind_name]
    prefix = ROOT + resource_prefix(kind)
    return f"{prefix}/{namespace}/{name}" if kind.namespaced else f"{prefix}/{name}"


class EtcdJournal:
    def __init__(self, servers: str) -> None:
        self.urls = [u.strip().rstrip("/") for u in servers.split(",") if u.strip()]
        if not self.urls:
            raise StorageError("--etcd-servers: give at least one URL")
        self.url = self.urls[0]
        self._mod: dict[str, int] = {}     # key -> etcd mod_revision drasim last wrote or read
        self._conn: http.client.HTTPConnection | None = None
        self._conn_url: str | None = None
        self._last_event = (0, 0)          # (rv, n) of the last event key written
        self._writes = 0
        self._connect()

    # -- the gateway -----------------------------------------------------------------------------
    def _post(self, path: str, body: dict, url: str | None = None) -> dict:
        """One gateway call on a kept-alive connection (one reconnect if etcd closed it)."""
        url = url or self.url
        data = json.dumps(body).encode()
        for attempt in (0, 1):
            conn = self._conn if url == self._conn_url else None
            try:
                if conn is None:
                    parts = urllib.parse.urlsplit(url)
                    if parts.scheme not in ("http", "https") or not parts.hostname:
                        raise ValueError("not an http(s) URL")
                    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
                    conn = cls(parts.hostname, parts.port or 2379, timeout=TIMEOUT)
                    self._conn, self._conn_url = conn, url
                conn.request("POST", path, data, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                payload = resp.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                self._drop_connection()
                if attempt:
                    raise EtcdUnreachable(f"cannot reach etcd at {url}: {e}") from None
            except (OSError, http.client.HTTPException, ValueError) as e:
                self._drop_connection()
                raise EtcdUnreachable(f"cannot reach etcd at {url}: {getattr(e, 'strerror', None) or e}") from None
        if resp.status != 200:
            detail = payload.decode(errors="replace")
            try:
                detail = json.loads(detail).get("error") or detail
            except (ValueError, AttributeError):
                pass
            raise StorageError(f"etcd at {url}: {path}: {resp.status} {detail}")
        try:
            return json.loads(payload or b"{}")
        except ValueError:
            raise StorageError(f"etcd at {url}: {path}: not a JSON answer (is this etcd's gateway?)") from None

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn, self._conn_url = None, None

    def _connect(self) -> None:
        """The first URL whose etcd answers a range request becomes the one written to."""
        error = None
        for url in self.urls:
            try:
                self._post("/v3/kv/range", {"key": _b64(STATE_KEY)}, url)
                self.url = url
                return
            except EtcdUnreachable as e:
                error = e
        raise error

    # -- reading back ----------------------------------------------------------------------------
    def load(self) -> tuple[list[dict], int, float | None]:
        """Every stored object (in resourceVersion order), the revision and the clock."""
        objects, state = [], None
        start, end = ROOT, ROOT[:-1] + chr(ord(ROOT[-1]) + 1)   # the whole /registry/ prefix
        while True:
            page = self._post("/v3/kv/range", {"key": _b64(start), "range_end": _b64(end), "limit": PAGE})
            kvs = page.get("kvs", [])
            for kv in kvs:
                key = _unb64(kv["key"])
                try:
                    value = json.loads(base64.b64decode(kv.get("value", "")))
                except ValueError as e:
                    raise StorageError(f"etcd at {self.url}: {key}: not JSON: {e}") from None
                self._mod[key] = int(kv["mod_revision"])
                if key.startswith(EVENTS_PREFIX):
                    continue
                if key == STATE_KEY:
                    state = value
                elif isinstance(value, dict) and "kind" in value and "metadata" in value:
                    objects.append(value)   # other keys (a real apiserver's, protobuf) are not drasim's
            if not page.get("more") or not kvs:
                break
            start = _unb64(kvs[-1]["key"]) + "\0"
        objects.sort(key=lambda o: int(o["metadata"].get("resourceVersion") or 0))
        if state is None:
            return objects, 0, None
        return objects, int(state["revision"]), state.get("clock")

    def history(self) -> tuple[list[tuple[int, str, str, dict]], int | None]:
        """The kept watch events (rv, kind, type, object) in order, and the revision before the first."""
        events = []
        start, end = EVENTS_PREFIX, EVENTS_PREFIX[:-1] + chr(ord(EVENTS_PREFIX[-1]) + 1)
        while True:
            page = self._post("/v3/kv/range", {"key": _b64(start), "range_end": _b64(end), "limit": PAGE})
            kvs = page.get("kvs", [])
            for kv in kvs:
                try:
                    value = json.loads(base64.b64decode(kv.get("value", "")))
                    events.append((int(value["rv"]), value["kind"], value["type"], value["object"]))
                except (ValueError, KeyError, TypeError) as e:
                    raise StorageError(f"etcd at {self.url}: {_unb64(kv['key'])}: not a watch event: {e}") from None
            if not page.get("more") or not kvs:
                break
            start = _unb64(kvs[-1]["key"]) + "\0"
        if events:
            self._last_event = (events[-1][0], 0)
        return events, (events[0][0] - 1 if events else None)

    def _event_ops(self, ev: WatchEvent) -> list[dict]:
        md = ev.obj["metadata"]
        obj = ev.obj
        if ev.type == DELETED:   # the deletion's own revision, as the watch cache reports it
            obj = dict(obj, metadata=dict(md, resourceVersion=str(self._store.revision)))
        rv = int(obj["metadata"]["resourceVersion"])
        n = self._last_event[1] + 1 if self._last_event[0] == rv else 0
        self._last_event = (rv, n)
        value = {"rv": rv, "kind": ev.kind, "type": ev.type, "object": obj}
        ops = [{"request_put": {"key": _b64(f"{EVENTS_PREFIX}{rv:020d}-{n:04d}"),
                                "value": _b64(json.dumps(value, separators=(",", ":")))}}]
        self._writes += 1
        oldest = rv - sqlite_journal.HISTORY_KEEP
        if self._writes % sqlite_journal.PRUNE_EVERY == 0 and oldest > 0:
            ops.append({"request_delete_range": {"key": _b64(EVENTS_PREFIX),
                                                 "range_end": _b64(f"{EVENTS_PREFIX}{oldest:020d}")}})
        return ops

    # -- writing ---------------------------------------------------------------------------------
    def attach(self, store: MemoryStore) -> None:
        """From now on, every write to the store is committed here first."""
        self._store = store
        store.journal = self._on_event   # called before the store applies a change (memory.py _persist)

    def _state_put(self, store: MemoryStore) -> dict:
        state = {"revision": store.revision, "clock": store.clock.now}
        return {"request_put": {"key": _b64(STATE_KEY), "value": _b64(json.dumps(state))}}

    def _txn(self, compares: list[dict], ops: list[dict], keys: list[str]) -> None:
        answer = self._post("/v3/kv/txn", {"compare": compares, "success": ops})
        if not answer.get("succeeded"):
            raise StorageError(f"etcd at {self.url}: {', '.join(keys)}: changed by another writer "
                               f"(mod_revision compare failed); drasim must be etcd's only writer")
        revision = int(answer["header"]["revision"])   # every put of a txn gets its revision
        for key in keys:
            self._mod[key] = revision
        self._mod[STATE_KEY] = revision

    def _compare(self, key: str) -> dict:
        return {"target": "MOD", "key": _b64(key), "result": "EQUAL", "mod_revision": str(self._mod.get(key, 0))}

    def dump(self, store: MemoryStore) -> None:
        """Write everything the store holds now (an empty etcd), in transactions of MAX_TXN_OPS."""
        pending: list[tuple[str, dict]] = []
        for kind in STORED_KINDS:
            for obj in store.list(kind):
                md = obj["metadata"]
                pending.append((key_for(kind, md.get("namespace"), md["name"]), obj))
        for i in range(0, len(pending), MAX_TXN_OPS):
            chunk = pending[i:i + MAX_TXN_OPS]
            ops = [{"request_put": {"key": _b64(k), "value": _b64(json.dumps(o, separators=(",", ":")))}}
                   for k, o in chunk]
            self._txn([self._compare(k) for k, _ in chunk], ops + [self._state_put(store)], [k for k, _ in chunk])
        if not pending:
            self._txn([], [self._state_put(store)], [])

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        key = key_for(ev.kind, md.get("namespace"), md["name"])
        if ev.type == DELETED:
            op = {"request_delete_range": {"key": _b64(key)}}
        else:
            op = {"request_put": {"key": _b64(key), "value": _b64(json.dumps(ev.obj, separators=(",", ":")))}}
        self._txn([self._compare(key)], [op, *self._event_ops(ev), self._state_put(self._store)], [key])
        if ev.type == DELETED:
            self._mod.pop(key, None)   # gone: the next create compares with 0 again

    def close(self) -> None:
        self._drop_connection()


def open_etcd(servers: str) -> EtcdJournal:
    return EtcdJournal(servers)
