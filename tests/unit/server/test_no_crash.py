"""Whatever a client sends, the server answers with a Status below 500 and keeps serving."""
from __future__ import annotations

import asyncio
import json

from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.cli.serve import build
from drasim.server.app import Server

scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4) | st.floats(allow_nan=False)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) |
                      st.dictionaries(st.sampled_from(["metadata", "spec", "status", "name", "containers",
                                                       "devices", "x"]), inner, max_size=3), max_leaves=12)
KINDS = [("/api/v1/namespaces/default/pods", "v1", "Pod"), ("/api/v1/nodes", "v1", "Node"),
         ("/apis/resource.k8s.io/v1/deviceclasses", "resource.k8s.io/v1", "DeviceClass"),
         ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", "resource.k8s.io/v1", "ResourceClaim"),
         ("/apis/resource.k8s.io/v1/resourceslices", "resource.k8s.io/v1", "ResourceSlice")]
bodies = st.tuples(st.sampled_from(KINDS), st.dictionaries(st.sampled_from(["metadata", "spec", "status"]), values),
                   st.sampled_from(["x", "", None]))
patches = st.tuples(st.sampled_from(["application/merge-patch+json", "application/json-patch+json",
                                     "application/strategic-merge-patch+json"]), values)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bodies, min_size=1, max_size=6), st.lists(patches, max_size=4))
def test_random_writes_never_crash_the_server(writes, patch_bodies):
    live, hub = build([], speed=1.0, seed=0)
    server = Server(live, hub, "127.0.0.1:0")

    async def main():
        async with TestClient(TestServer(server.app(), host="127.0.0.1"),
                              headers={"Authorization": f"Bearer {server.admin_token}"}) as client:
            for (path, api_version, kind), obj, name in writes:
                obj = dict(obj, apiVersion=api_version, kind=kind)
                if name is not None:
                    md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
                    obj["metadata"] = dict(md, name=name)
                resp = await client.post(path, data=json.dumps(obj), headers={"Content-Type": "application/json"})
                assert resp.status < 500, await resp.text()
                assert (await resp.json())["kind"] in (kind, "Status")
            live.run_slice(budget=1.0)
            await client.post(KINDS[0][0], json={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "target"},
                                                 "spec": {"containers": [{"name": "c", "image": "i"}]}})
            for ctype, body in patch_bodies:
                resp = await client.patch(KINDS[0][0] + "/target", data=json.dumps(body),
                                          headers={"Content-Type": ctype})
                assert resp.status < 500, await resp.text()
            assert (await client.get("/readyz")).status == 200
    asyncio.run(main())
