"""encoded.py: cached JSON bytes are the JSON the uncached path writes, per resourceVersion."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.server.encoded import EncodedObjects
from drasim.server.serialize import outgoing


def pod(name: str, rv: str, cpu) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": "u-" + name, "resourceVersion": rv},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}}


def test_same_bytes_as_json_dumps_of_outgoing_and_reused():
    enc = EncodedObjects()
    p = pod("a", "5", 1)
    first = enc.encode(p)
    assert json.loads(first) == outgoing(p) and json.loads(first)["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "1"}}
    assert enc.encode(p) is first   # encoded once
    newer = pod("a", "6", 2)   # a write gives a new resourceVersion: new bytes
    assert json.loads(enc.encode(newer))["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "2"


def test_objects_without_resource_version_are_not_cached():
    enc = EncodedObjects()
    p = pod("a", "", 1)
    enc.encode(p)
    p["spec"]["containers"][0]["image"] = "changed"
    assert json.loads(enc.encode(p))["spec"]["containers"][0]["image"] == "changed"


def test_full_cache_starts_over():
    enc = EncodedObjects(limit=3)
    for i in range(10):
        enc.encode(pod(f"p{i}", "1", 1))
    assert len(enc._bytes) <= 3


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=5), st.integers(1, 10**6)), max_size=6),
       st.dictionaries(st.sampled_from(["resourceVersion", "continue"]), st.text(max_size=5)))
def test_list_body_is_the_list_json(items, metadata):
    enc = EncodedObjects()
    objs = [pod(name, str(rv), rv) for name, rv in items]
    body = json.loads(enc.list_body("PodList", "v1", metadata, objs))
    assert body == {"kind": "PodList", "apiVersion": "v1", "metadata": metadata, "items": [outgoing(o) for o in objs]}
    line = json.loads(enc.watch_line("ADDED", objs[0])) if objs else None
    assert line is None or line == {"type": "ADDED", "object": outgoing(objs[0])}
