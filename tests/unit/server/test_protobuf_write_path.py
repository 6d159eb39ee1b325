"""The bundled examples sent as protobuf (as a typed Go client, e.g. a DRA driver publishing
ResourceSlices, sends them) give the same stored objects as the same Go objects sent as JSON
(encoding/json of the struct: zero-valued fields without omitempty included, as a Go client
writes them), and drasim's strict decoding accepts that shape for every example kind."""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import yaml
from aiohttp.test_utils import TestClient, TestServer

from drasim.api import kinds
from drasim.cli.serve import build
from drasim.server.app import Server
from drasim.server.protoschema import GROUP_VERSIONS
from tests.server.protoref import envelope, go_json, go_value, marshal

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
BY_KIND = {k.kind: k for k in kinds.ALL_KINDS}
VOLATILE = ("uid", "creationTimestamp", "resourceVersion")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def manifests(example: str) -> list[dict]:
    docs = []
    files = ("00-cluster.yaml", "01-dry-run.yaml") if example == "taint-maintenance" else ("cluster.yaml", "workload.yaml")
    for name in files:
        docs += [d for d in yaml.safe_load_all((EXAMPLES / example / name).read_text()) if d]
    return [d for d in docs if d.get("kind") in BY_KIND]


def collection(obj: dict) -> str:
    k = BY_KIND[obj["kind"]]
    prefix = f"/apis/{k.group}/{k.version}" if k.group else "/api/v1"
    ns = obj["metadata"].get("namespace") or "default"
    return f"{prefix}/namespaces/{ns}/{k.plural}" if k.namespaced else f"{prefix}/{k.plural}"


def stored(objects: list[dict], protobuf: bool) -> list[dict]:
    live, hub = build([], speed=1.0, seed=0)
    server = Server(live, hub, "127.0.0.1:0")

    async def main():
        out = []
        async with TestClient(TestServer(server.app(), host="127.0.0.1"),
                              headers={"Authorization": f"Bearer {server.admin_token}"}) as client:
            for obj in objects:
                message = f"{GROUP_VERSIONS[obj['apiVersion']]}.{obj['kind']}"
                value = go_value(message, obj)
                if protobuf:
                    body = envelope(obj["apiVersion"], obj["kind"], marshal(message, value))
                    resp = await client.post(collection(obj), data=body,
                                             headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
                else:
                    resp = await client.post(collection(obj), json={"apiVersion": obj["apiVersion"],
                                                                    "kind": obj["kind"], **go_json(message, value)})
                created = await resp.json()
                assert resp.status == 201, created["message"]
                md = created["metadata"]
                for key in VOLATILE:
                    md.pop(key, None)
                taint = created.get("spec", {}).get("taint")
                if taint is not None:
                    # Defaulted to the server's wall clock: the two runs may straddle a second.
                    assert TIME.fullmatch(taint.pop("timeAdded")), created
                out.append(created)
        return out
    return asyncio.run(main())


@pytest.mark.parametrize("example", ["extended-resource-explicit", "extended-resource-implicit", "gpu-64gi",
                                     "ledger-mig", "quota-three-keys", "statefulset-claims", "taint-maintenance"])
def test_protobuf_and_json_bodies_store_the_same_objects(example):
    objects = manifests(example)
    assert objects
    assert stored(objects, protobuf=True) == stored(objects, protobuf=False)
