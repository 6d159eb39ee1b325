"""A watch response: newline-delimited watch events streamed over one chunked response.

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go (serveWatch: ADDED /
     MODIFIED / DELETED / BOOKMARK / ERROR events, Table conversion with column definitions
     on the first event only), cacher (bookmarks; `sendInitialEvents` ends the initial
     events with a bookmark annotated `k8s.io/initial-events-end: "true"`).
"""
from __future__ import annotations

import asyncio
import json
import time

from aiohttp import web

from drasim.server import status as st
from drasim.server import tables
from drasim.server.serialize import outgoing
from drasim.server.selectors import matches, parse_field_selector, parse_label_selector

BOOKMARK_INTERVAL = 2.0   # seconds between bookmarks while idle (k8s: about once a minute)


def _line(type_: str, obj: dict) -> bytes:
    return json.dumps({"type": type_, "object": obj}, separators=(",", ":")).encode() + b"\n"


async def serve_watch(request: web.Request, server, t) -> web.StreamResponse:
    q = request.query
    labels = parse_label_selector(q.get("labelSelector"))
    fields = parse_field_selector(t.kind.kind, q.get("fieldSelector"))
    rv_text = q.get("resourceVersion") or ""
    initial_events = q.get("sendInitialEvents") in ("true", "1")
    bookmarks = q.get("allowWatchBookmarks") in ("true", "1")
    timeout = q.get("timeoutSeconds")
    deadline = time.monotonic() + float(timeout) if timeout and timeout.isdigit() else None
    as_table = tables.wants_table(request.headers.get("Accept", ""))
    include = q.get("includeObject", "Metadata")
    if rv_text and not rv_text.isdigit():
        raise st.bad_request(f'resourceVersion: Invalid value: "{rv_text}": must be a non-negative integer')
    since = int(rv_text) if rv_text else 0
    store = server.cp.store
    initial = None
    if initial_events or since == 0:
        initial = sorted(store.list(t.kind.kind, t.namespace if t.kind.namespaced else None),
                         key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))
    resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json",
                                                    "Transfer-Encoding": "chunked"})
    try:
        watcher = server.hub.open(t.kind.kind, t.namespace if t.kind.namespaced else None,
                                  lambda o: matches(o, labels, fields), None if initial is not None else since,
                                  initial)
    except ValueError as oldest:
        await resp.prepare(request)
        await resp.write(_line("ERROR", st.too_old(since, oldest.args[0]).status()))
        return resp
    await resp.prepare(request)
    headers_sent = False

    def encode(type_: str, obj: dict) -> bytes:
        nonlocal headers_sent
        if not as_table or type_ == "BOOKMARK":
            return server.encoded.watch_line(type_, obj)   # encoded once for every watcher (encoded.py)
        obj = tables.table(t.kind.kind, [outgoing(obj)], server.cp.clock.now, include=include,
                           headers=not headers_sent, resource_version=obj["metadata"].get("resourceVersion", ""))
        headers_sent = True
        return _line(type_, obj)

    def bookmark(end_of_initial: bool = False) -> bytes:
        md: dict = {"resourceVersion": str(store.revision)}
        if end_of_initial:
            md["annotations"] = {"k8s.io/initial-events-end": "true"}
        return _line("BOOKMARK", {"kind": t.kind.kind, "apiVersion": t.kind.api_version, "metadata": md})

    try:
        if initial_events:
            while not watcher.queue.empty():
                await resp.write(encode(*watcher.queue.get_nowait()))
            if bookmarks:
                await resp.write(bookmark(end_of_initial=True))
        while True:
            wait = BOOKMARK_INTERVAL if bookmarks else 30.0
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    break
            try:
                type_, obj = await asyncio.wait_for(watcher.queue.get(), wait)
            except asyncio.TimeoutError:
                if bookmarks:
                    await resp.write(bookmark())
                continue
            chunk = [encode(type_, obj)]
            while not watcher.queue.empty():
                chunk.append(encode(*watcher.queue.get_nowait()))
            await resp.write(b"".join(chunk))
    except ConnectionResetError:   # the client went away
        pass
    finally:
        server.hub.close(watcher)
    return resp
