"""SQLite under the in-memory store: every acknowledged write is on disk, a restart resumes.

The in-memory store stays the one the control plane reads (as fast as `simulate` needs); this
journal subscribes to every kind and writes each change in its own transaction before the
store call returns, so before the API server answers the client. WAL mode with
`synchronous=FULL`: a committed transaction survives `kill -9` and power loss, and the file
always opens. The cluster-wide resourceVersion is a column of each row and a meta value, so a
restart brings back the same objects, resourceVersions and uids, and the virtual clock where it
stopped. SQLite is in Python's standard library (sqlite3): no server to install.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from drasim.errors import InputError
from drasim.api.kinds import STORED_KINDS
from drasim.store.memory import DELETED, MemoryStore, WatchEvent

SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
    rv INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (kind, namespace, name));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY, rv INTEGER NOT NULL, kind TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL);
"""
# Watch events kept for watches that resume after a restart (etcd keeps its revisions until
# kube-apiserver compacts them, every 5 minutes by default; drasim keeps a count). A watch from a
# resourceVersion older than this window gets 410 Expired, as from a compacted etcd.
HISTORY_KEEP = 10_000
PRUNE_EVERY = 500


class StorageError(InputError):
    """The data directory's database cannot be used (corrupt, not a database, unwritable)."""


class SqliteJournal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            result = self.db.execute("PRAGMA quick_check").fetchone()[0]
            if result != "ok":
                raise sqlite3.DatabaseError(result)
            self.db.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise StorageError(f"{self.path}: cannot use the database: {e}") from None

    # -- reading back ----------------------------------------------------------------------------
    def load(self) -> tuple[list[dict], int, float | None]:
        """Every stored object (in resourceVersion order), the revision and the clock."""
        try:
            rows = self.db.execute("SELECT body FROM objects ORDER BY rv").fetchall()
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
            objects = [json.loads(body) for (body,) in rows]
        except (sqlite3.Error, ValueError) as e:
            raise StorageError(f"{self.path}: cannot read the database: {e}") from None
        clock = float(meta["clock"]) if "clock" in meta else None
        return objects, int(meta.get("revision", 0)), clock

    def history(self) -> tuple[list[tuple[int, str, str, dict]], int | None]:
        """The kept watch events (rv, kind, type, object) in order, and the revision before the first
        (None when none are kept: the window starts at the restart)."""
        try:
            rows = self.db.execute("SELECT rv, kind, type, body FROM history ORDER BY id").fetchall()
            events = [(rv, kind, type_, json.loads(body)) for rv, kind, type_, body in rows]
        except (sqlite3.Error, ValueError) as e:
            raise StorageError(f"{self.path}: cannot read the database: {e}") from None
        return events, (events[0][0] - 1 if events else None)

    # -- writing ---------------------------------------------------------------------------------
    def attach(self, store: MemoryStore) -> None:
        """From now on, every write to the store is committed here first."""
        self._store = store
        store.journal = self._on_event   # called before the store applies a change (memory.py _persist)

    def dump(self, store: MemoryStore) -> None:
        """Write everything the store holds now, in one transaction (a new data directory)."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            for kind in STORED_KINDS:
                for obj in store.list(kind):
                    md = obj["metadata"]
                    self.db.execute("INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?, ?)",
                                    (kind, md.get("namespace") or "", md["name"], int(md["resourceVersion"]),
                                     json.dumps(obj, separators=(",", ":"))))
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (("revision", str(store.revision)), ("clock", repr(store.clock.now))))
            self.db.execute("COMMIT")
        except sqlite3.Error as e:
            raise StorageError(f"{self.path}: write failed: {e}") from None

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        key = (ev.kind, md.get("namespace") or "", md["name"])
        try:
            self.db.execute("BEGIN IMMEDIATE")
            body = json.dumps(ev.obj, separators=(",", ":"))
            if ev.type == DELETED:
                self.db.execute("DELETE FROM objects WHERE kind=? AND namespace=? AND name=?", key)
                # the deletion has its own revision (as the watch cache reports it, watch.py)
                rv = self._store.revision
                body = json.dumps(dict(ev.obj, metadata=dict(md, resourceVersion=str(rv))), separators=(",", ":"))
            else:
                rv = int(md["resourceVersion"])
                self.db.execute("INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?, ?)", (*key, rv, body))
            cursor = self.db.execute("INSERT INTO history (rv, kind, type, body) VALUES (?, ?, ?, ?)",
                                     (rv, ev.kind, ev.type, body))
            if cursor.lastrowid % PRUNE_EVERY == 0:
                self.db.execute("DELETE FROM history WHERE id <= ?", (cursor.lastrowid - HISTORY_KEEP,))
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (("revision", str(self._store.revision)), ("clock", repr(self._store.clock.now))))
            self.db.execute("COMMIT")
        except sqlite3.Error as e:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise StorageError(f"{self.path}: write failed: {e}") from None

    def close(self) -> None:
        self.db.close()


def open_data_dir(folder: str | Path) -> SqliteJournal:
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StorageError(f"--data-dir {folder}: cannot create: {e.strerror or e}") from None
    return SqliteJournal(path / "drasim.db")
