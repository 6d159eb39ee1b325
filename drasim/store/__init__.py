"""Versioned object store with watch (memory today; SQLite and etcd backends share the interface)."""
from drasim.store.memory import (ADDED, DELETED, MODIFIED, MemoryStore, StoreError, WatchEvent, clone,
                                 key_of)

__all__ = ["ADDED", "DELETED", "MODIFIED", "MemoryStore", "StoreError", "WatchEvent", "clone", "key_of"]
