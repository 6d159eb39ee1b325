"""Dry-run PUT, PATCH and DELETE (what kubectl diff, apply --dry-run=server and delete --dry-run=server
send) check everything and write nothing (k8s registry/generic/registry/dryrun.go): the answer is
the object as it would be, at the resourceVersion it has now; invalid ones get the real error."""
from __future__ import annotations

PODS = "/api/v1/namespaces/default/pods"
STRATEGIC = "application/strategic-merge-patch+json"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"a": "1"}},
            "spec": {"containers": [{"name": "c", "image": "pause"}], "schedulerName": "nobody"}}


def test_a_dry_run_patch_answers_the_patched_object_and_stores_nothing(server):
    _, created = server.call("POST", PODS, pod("p-dry-patch"))
    rv = created["metadata"]["resourceVersion"]
    code, answer = server.call("PATCH", PODS + "/p-dry-patch?dryRun=All",
                               {"metadata": {"labels": {"b": "2"}}, "spec": {"containers": [{"name": "c", "image": "pause:2"}]}},
                               content_type=STRATEGIC)
    assert code == 200 and answer["metadata"]["labels"] == {"a": "1", "b": "2"}
    assert answer["spec"]["containers"][0]["image"] == "pause:2" and answer["metadata"]["resourceVersion"] == rv
    _, stored = server.call("GET", PODS + "/p-dry-patch")
    assert stored["metadata"]["labels"] == {"a": "1"} and stored["spec"]["containers"][0]["image"] == "pause"
    assert stored["metadata"]["resourceVersion"] == rv
    code, s = server.call("PATCH", PODS + "/p-dry-patch?dryRun=All", {"spec": {"nodeName": "n9"}}, content_type=STRATEGIC)
    assert (code, s["reason"]) == (422, "Invalid") and "pod updates may not change fields" in s["message"]


def test_a_dry_run_put_stores_nothing_and_still_meets_a_stale_resource_version(server):
    _, created = server.call("POST", PODS, pod("p-dry-put"))
    body = dict(created, metadata=dict(created["metadata"], labels={"c": "3"}))
    code, answer = server.call("PUT", PODS + "/p-dry-put?dryRun=All", body)
    assert code == 200 and answer["metadata"]["labels"] == {"c": "3"}
    assert server.call("GET", PODS + "/p-dry-put")[1]["metadata"]["labels"] == {"a": "1"}
    stale = dict(body, metadata=dict(body["metadata"], resourceVersion="1"))
    assert server.call("PUT", PODS + "/p-dry-put?dryRun=All", stale)[1]["reason"] == "Conflict"


def test_a_dry_run_delete_leaves_the_object(server):
    server.call("POST", PODS, pod("p-dry-delete"))
    code, answer = server.call("DELETE", PODS + "/p-dry-delete", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                                    "dryRun": ["All"]})
    assert code == 200 and answer["metadata"]["name"] == "p-dry-delete"
    assert server.call("DELETE", PODS + "/p-dry-delete?dryRun=All")[0] == 200
    assert server.call("GET", PODS + "/p-dry-delete")[0] == 200
    assert server.call("DELETE", PODS + "/p-dry-delete")[0] == 200
    assert server.call("GET", PODS + "/p-dry-delete")[0] == 404
