"""A journal write that fails while serving (full disk, I/O error) is a 500 InternalError and leaves
nothing half applied: the store in memory is as before, subscribers heard nothing, and the data
directory still opens with every acknowledged write."""
from __future__ import annotations

import resource
import sqlite3
from pathlib import Path

import pytest

from drasim.sim.clock import Clock
from drasim.store.memory import MemoryStore
from drasim.store.sqlite import SqliteJournal, StorageError
from tests.server.harness import Serve

CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"


class FullDisk:
    """A sqlite3 connection whose writes fail as on a full disk while `full` is set."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.full = db, False

    def execute(self, sql, *args):
        if self.full and sql.startswith(("INSERT", "DELETE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def executemany(self, sql, *args):
        return self.db.executemany(sql, *args)

    def __getattr__(self, name):
        return getattr(self.db, name)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}]}}


def test_a_failed_journal_write_leaves_the_store_as_it_was(tmp_path):
    store = MemoryStore(Clock(), seed=1)
    journal = SqliteJournal(tmp_path / "d.db")
    journal.attach(store)
    heard = []
    store.subscribe(heard.append, kinds=("Pod",))
    kept = store.create(pod("kept"))
    journal.db = disk = FullDisk(journal.db)
    disk.full = True
    revision = store.revision
    for write in (lambda: store.create(pod("lost")),
                  lambda: store.update(dict(kept, metadata=dict(kept["metadata"], labels={"a": "b"}))),
                  lambda: store.delete("Pod", "default", "kept")):
        with pytest.raises(StorageError, match="database or disk is full"):
            write()
        assert store.revision == revision
    assert store.get("Pod", "default", "lost") is None
    assert store.get("Pod", "default", "kept") is kept and "labels" not in kept["metadata"]
    assert [e.obj["metadata"]["name"] for e in heard] == ["kept"]
    disk.full = False   # room again: writing resumes with the next resourceVersion
    after = store.create(pod("after"))
    assert after["metadata"]["resourceVersion"] == str(revision + 1)
    journal.close()
    objects, kept_revision, _ = SqliteJournal(tmp_path / "d.db").load()
    assert {o["metadata"]["name"] for o in objects} == {"kept", "after"} and kept_revision == store.revision


def _limit_file_size(limit: int):
    def apply():   # Python ignores SIGXFSZ: a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_serve_on_a_disk_that_fills_answers_500_and_the_data_dir_still_opens(tmp_path, monkeypatch):
    data = tmp_path / "data"
    s = Serve(tmp_path, extra=("--data-dir", str(data)))   # create the data directory, then stop
    s.stop()
    size = max(p.stat().st_size for p in Path(data).iterdir())
    import subprocess
    real_popen = subprocess.Popen

    def limited(*args, **kwargs):
        return real_popen(*args, preexec_fn=_limit_file_size(size + 400_000), **kwargs)
    monkeypatch.setattr(subprocess, "Popen", limited)
    s = Serve(tmp_path, extra=("--data-dir", str(data)))
    monkeypatch.undo()
    acknowledged, failure = [], None
    try:
        pad = "x" * 60_000
        for i in range(200):
            cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                   "metadata": {"name": f"c{i}", "annotations": {"pad": pad}}}
            code, body = s.call("POST", CLASSES, cls)
            if code == 201:
                acknowledged.append(f"c{i}")
                continue
            failure = (f"c{i}", code, body)
            break
        assert failure is not None, "the file size limit was never reached"
        name, code, body = failure
        assert (code, body["reason"]) == (500, "InternalError"), body["message"]
        assert body["message"].startswith("Internal error occurred: ") and "drasim.db" in body["message"]
        assert s.call("GET", f"{CLASSES}/{name}")[0] == 404          # not applied
        assert s.call("GET", f"{CLASSES}/{acknowledged[-1]}")[0] == 200
        assert s.raw("GET", "/readyz")[0] == 200                      # still serving reads
    finally:
        s.stop()
    s = Serve(tmp_path, extra=("--data-dir", str(data)))   # no limit: the store opens with every acked write
    try:
        names = {c["metadata"]["name"] for c in s.call("GET", CLASSES)[1]["items"]}
        assert set(acknowledged) <= names and failure[0] not in names
    finally:
        s.stop()
