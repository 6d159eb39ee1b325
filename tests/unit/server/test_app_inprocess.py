"""The aiohttp app in-process (no subprocess): watch expiry and Table watch events."""
from __future__ import annotations

import asyncio
import json

from aiohttp.test_utils import TestClient, TestServer

from drasim.cli.serve import build
from drasim.server.app import Server


def _pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "pause"}]}}


def _run(scenario, history=None):
    live, hub = build([], speed=1.0, seed=0)
    if history is not None:
        hub.limit = history
    server = Server(live, hub, "127.0.0.1:0")

    async def main():
        async with TestClient(TestServer(server.app(), host="127.0.0.1"),
                              headers={"Authorization": f"Bearer {server.admin_token}"}) as client:
            return await scenario(client, live)
    return asyncio.run(main())


def test_watch_from_an_expired_resource_version_is_410_expired():
    async def scenario(client, live):
        for i in range(5):
            live.cp.create(_pod(f"p{i}"))
        resp = await client.get("/api/v1/namespaces/default/pods?watch=1&resourceVersion=1")
        assert resp.status == 200
        return [json.loads(line) for line in (await resp.read()).splitlines()]
    events = _run(scenario, history=2)
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    status = events[0]["object"]
    assert (status["code"], status["reason"]) == (410, "Expired")
    assert status["message"].startswith("too old resource version: 1 (")


def test_table_watch_has_column_definitions_on_the_first_event_only():
    async def scenario(client, live):
        live.cp.create(_pod("a"))
        live.cp.create(_pod("b"))
        resp = await client.get("/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1",
                                headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        return [json.loads(line) for line in (await resp.read()).splitlines()]
    events = _run(scenario)
    assert [e["object"]["rows"][0]["cells"][0] for e in events] == ["a", "b"]
    assert [bool(e["object"]["columnDefinitions"]) for e in events] == [True, False]


def test_send_initial_events_ends_with_an_annotated_bookmark():
    async def scenario(client, live):
        live.cp.create(_pod("a"))
        resp = await client.get("/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true"
                                "&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
        return [json.loads(line) for line in (await resp.read()).splitlines()]
    events = _run(scenario)
    assert events[0]["type"] == "ADDED"
    assert events[1]["type"] == "BOOKMARK"
    assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
