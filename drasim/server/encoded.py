"""JSON bytes of stored objects, encoded once per resourceVersion and reused by every GET, list
and watch event that sends the same object.

Stored objects are never changed in place, only replaced, and every write gets a new
resourceVersion, so (kind, namespace, name, uid, resourceVersion) names one content. The
same idea as kube-apiserver's CachingObject (apiserver/pkg/storage/cacher/caching_object.go),
which serialises a watch event's object once for all watchers.
"""
from __future__ import annotations

import json

from drasim.server.serialize import outgoing

LIMIT = 50_000   # entries; the cache is dropped whole when full (objects re-encode on demand)
_dumps = json.JSONEncoder(separators=(",", ":")).encode


class EncodedObjects:
    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._bytes: dict[tuple, bytes] = {}

    def encode(self, obj: dict) -> bytes:
        md = obj.get("metadata")
        rv = md.get("resourceVersion") if isinstance(md, dict) else None
        if not rv:   # not a stored object (a dry run, a body being refused): nothing to reuse
            return _dumps(outgoing(obj)).encode()
        key = (obj.get("kind"), md.get("namespace"), md.get("name"), md.get("uid"), rv)
        data = self._bytes.get(key)
        if data is None:
            if len(self._bytes) >= self.limit:
                self._bytes.clear()
            data = self._bytes[key] = _dumps(outgoing(obj)).encode()
        return data

    def list_body(self, kind: str, api_version: str, metadata: dict, items: list[dict]) -> bytes:
        """A KindList: the list's own fields, then the items' cached bytes joined."""
        head = _dumps({"kind": kind, "apiVersion": api_version, "metadata": metadata})
        return b"".join((head[:-1].encode(), b',"items":[', b",".join(map(self.encode, items)), b"]}"))

    def watch_line(self, type_: str, obj: dict) -> bytes:
        return b"".join((b'{"type":', _dumps(type_).encode(), b',"object":', self.encode(obj), b"}\n"))
