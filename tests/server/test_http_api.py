"""drasim serve over raw HTTP: discovery, CRUD, selectors, patches, Status errors, watch, Tables."""
from __future__ import annotations

import json
import subprocess
import urllib.request

from tests.server.harness import DRASIM, ROOT

PODS = "/api/v1/namespaces/default/pods"
CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def pod(name, labels=None, **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "pause"}], **spec}}


def node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def test_discovery_is_derived_from_the_kinds(server):
    code, body = server.call("GET", "/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"})
    assert code == 200 and body["kind"] == "APIGroupDiscoveryList"
    from drasim.api.kinds import ALL_KINDS
    served = {(g["metadata"]["name"], r["resource"]) for g in body["items"]
              for v in g["versions"] for r in v["resources"]}
    from drasim.api.kinds import GATED_KINDS
    assert {(k.group, k.plural) for k in ALL_KINDS if k.group and k.kind not in GATED_KINDS} <= served
    assert ("scheduling.k8s.io", "podgroups") not in served   # GenericWorkload is off by default (v1.37)
    code, legacy = server.call("GET", "/api/v1")
    names = {r["name"] for r in legacy["resources"]}
    assert {"pods", "pods/status", "pods/eviction", "pods/binding", "nodes", "namespaces"} <= names
    code, version = server.call("GET", "/version")
    assert (version["major"], version["minor"]) == ("1", "37")


def test_create_get_conflict_and_already_exists(server):
    code, created = server.call("POST", PODS, pod("p-crud"))
    assert code == 201 and created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    code, again = server.call("POST", PODS, pod("p-crud"))
    assert (code, again["reason"], again["details"]) == (409, "AlreadyExists", {"name": "p-crud", "kind": "pods"})
    stale = dict(created, metadata=dict(created["metadata"], resourceVersion="1", labels={"a": "b"}))
    code, conflict = server.call("PUT", PODS + "/p-crud", stale)
    assert (code, conflict["reason"]) == (409, "Conflict")
    code, missing = server.call("GET", PODS + "/nope")
    assert (code, missing["reason"], missing["message"]) == (404, "NotFound", 'pods "nope" not found')


def test_invalid_object_gives_422_with_the_message_simulate_gives(server, tmp_path):
    bad = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "bad"},
           "spec": {"selectors": [{"cel": {"expression": "device.driver =="}}], "extendedResourceName": "-x"}}
    code, status = server.call("POST", CLASSES, bad)
    assert (code, status["reason"], status["details"]["kind"]) == (422, "Invalid", "DeviceClass")
    assert len(status["details"]["causes"]) == 2
    assert {c["field"] for c in status["details"]["causes"]} == {"spec.selectors[0].cel.expression",
                                                                  "spec.extendedResourceName"}
    manifest = tmp_path / "bad.json"
    manifest.write_text(json.dumps(bad))
    batch = subprocess.run([*DRASIM, "simulate", str(manifest)],
                           capture_output=True, text=True, cwd=ROOT)
    assert batch.stderr.strip() == f"error: {manifest}#1: {status['message']}"


def test_bad_requests_get_a_status_with_the_right_code(server):
    code, s = server.call("POST", PODS, b"{not json")
    assert (code, s["kind"], s["reason"]) == (400, "Status", "BadRequest")
    code, s = server.call("POST", PODS, node("n-in-pods"))
    assert (code, s["reason"]) == (400, "BadRequest") and "kind" in s["message"]
    unknown = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "u"},
               "spec": {"bogus": 1}}
    code, s = server.call("POST", CLASSES + "?fieldValidation=Strict", unknown)
    assert (code, s["message"]) == (400, 'DeviceClass in version "v1" cannot be handled as a DeviceClass: '
                                         'strict decoding error: unknown field "spec.bogus"')
    code, s = server.call("POST", PODS, b" " * (3 * 1024 * 1024 + 10))
    assert (code, s["reason"]) == (413, "RequestEntityTooLarge")
    code, s = server.call("GET", "/apis/nothing.example.com/v1/widgets")
    assert (code, s["reason"]) == (404, "NotFound")
    code, s = server.call("POST", "/api/v1/namespaces/missing/pods", pod("p"))
    assert (code, s["message"]) == (404, 'namespaces "missing" not found')
    code, s = server.call("GET", PODS + "?labelSelector=a+in+(x")
    assert code == 400
    code, s = server.call("GET", PODS + "?fieldSelector=spec.bogus=1")
    assert (code, s["message"]) == (400, "field label not supported: spec.bogus")
    code, s = server.call("POST", PODS, b"a: [", content_type="application/yaml")
    assert code == 400
    # A truncated protobuf body is a 400 saying so; a media type drasim does not decode is a 415.
    code, s = server.call("POST", "/api/v1/namespaces", b"k8s\x00\x0a\x0f", content_type="application/vnd.kubernetes.protobuf")
    assert (code, s["reason"], s["message"]) == (400, "BadRequest", "the object provided is unrecognized: unexpected EOF")
    code, s = server.call("POST", "/api/v1/namespaces", b"\xa0", content_type="application/cbor")
    assert (code, s["reason"], s["message"]) == (415, "UnsupportedMediaType", (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf"))
    # the server still answers after all of that
    assert server.raw("GET", "/readyz")[0] == 200


def test_yaml_body_is_accepted(server):
    text = b"apiVersion: v1\nkind: Pod\nmetadata: {name: p-yaml}\nspec:\n  containers: [{name: c, image: pause}]\n"
    code, created = server.call("POST", PODS, text, content_type="application/yaml")
    assert code == 201 and created["metadata"]["name"] == "p-yaml"


def test_label_and_field_selectors(server):
    server.call("POST", PODS, pod("sel-a", {"app": "x", "tier": "web"}))
    server.call("POST", PODS, pod("sel-b", {"app": "x"}))
    server.call("POST", PODS, pod("sel-c", {"app": "y"}))

    def names(query):
        code, body = server.call("GET", PODS + "?" + query)
        assert code == 200, body
        return sorted(i["metadata"]["name"] for i in body["items"])
    assert names("labelSelector=app%3Dx") == ["sel-a", "sel-b"]
    assert names("labelSelector=app+in+(x,y),!tier") == ["sel-b", "sel-c"]
    assert names("labelSelector=app!%3Dx,app") == ["sel-c"]
    assert names("fieldSelector=metadata.name%3Dsel-b") == ["sel-b"]
    assert "sel-a" in names("fieldSelector=spec.nodeName%3D,status.phase%3DPending")


def test_list_has_resource_version_and_chunks(server):
    for i in range(3):
        server.call("POST", PODS, pod(f"chunk-{i}", {"chunk": "yes"}))
    code, first = server.call("GET", PODS + "?labelSelector=chunk&limit=2")
    assert int(first["metadata"]["resourceVersion"]) > 0 and len(first["items"]) == 2
    assert first["metadata"]["remainingItemCount"] == 1
    code, rest = server.call("GET", PODS + "?labelSelector=chunk&limit=2&continue=" + first["metadata"]["continue"])
    assert [i["metadata"]["name"] for i in rest["items"]] == ["chunk-2"]


def test_patches(server):
    server.call("POST", PODS, pod("p-patch", {"a": "1"}))
    code, merged = server.call("PATCH", PODS + "/p-patch", {"metadata": {"labels": {"a": None, "b": "2"}}},
                               content_type="application/merge-patch+json")
    assert code == 200 and merged["metadata"]["labels"] == {"b": "2"}
    code, patched = server.call("PATCH", PODS + "/p-patch", [{"op": "add", "path": "/metadata/labels/c", "value": "3"}],
                                content_type="application/json-patch+json")
    assert patched["metadata"]["labels"] == {"b": "2", "c": "3"}
    code, failed = server.call("PATCH", PODS + "/p-patch", [{"op": "test", "path": "/metadata/name", "value": "x"}],
                               content_type="application/json-patch+json")
    assert code == 422
    code, smp = server.call("PATCH", PODS + "/p-patch",
                            {"spec": {"containers": [{"name": "c", "image": "pause:2"}]}},
                            content_type="application/strategic-merge-patch+json")
    assert code == 200 and [c["image"] for c in smp["spec"]["containers"]] == ["pause:2"]


def test_status_subresource_and_delete_collection(server):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "rc-1"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "none"}}]}}}
    path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
    code, created = server.call("POST", path, claim)
    assert code == 201
    code, table = server.call("GET", path, headers={"Accept": TABLE})
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "State", "Age"]
    assert ["rc-1", "pending"] == table["rows"][0]["cells"][:2]
    code, s = server.call("DELETE", path)
    assert code == 200 and [i["metadata"]["name"] for i in s["items"]] == ["rc-1"]
    assert server.call("GET", path + "/rc-1")[0] == 404


def test_binding_and_eviction(server):
    server.call("POST", PODS, pod("p-bind", schedulerName="nobody"))
    code, s = server.call("POST", PODS + "/p-bind/binding",
                          {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p-bind"},
                           "target": {"kind": "Node", "name": "n-bind"}})
    assert (code, s["status"]) == (201, "Success")
    assert server.call("GET", PODS + "/p-bind")[1]["spec"]["nodeName"] == "n-bind"
    code, s = server.call("POST", PODS + "/p-bind/binding", {"target": {"name": "other"}})
    assert (code, s["reason"]) == (409, "Conflict")
    gated = pod("p-gated", schedulerName="nobody")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    server.call("POST", PODS, gated)
    code, s = server.call("POST", PODS + "/p-gated/binding", {"target": {"name": "n-bind"}})
    assert (code, s["message"]) == (409, 'Operation cannot be fulfilled on pods/binding "p-gated": '
                                         'pod p-gated has non-empty .spec.schedulingGates')
    code, s = server.call("POST", PODS + "/p-bind/eviction",
                          {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p-bind"}})
    assert code == 201
    assert server.call("GET", PODS + "/p-bind")[0] == 404


def test_watch_from_a_resource_version_with_bookmarks(server):
    code, listing = server.call("GET", PODS)
    rv = listing["metadata"]["resourceVersion"]
    server.call("POST", PODS, pod("p-watch"))
    req = urllib.request.Request(server.url + PODS + f"?watch=1&resourceVersion={rv}&allowWatchBookmarks=true"
                                 "&timeoutSeconds=3", headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(req, timeout=10, context=server.ssl) as resp:
        events = [json.loads(line) for line in resp]
    added = [e for e in events if e["type"] == "ADDED"]
    assert [e["object"]["metadata"]["name"] for e in added] == ["p-watch"]
    assert all(int(e["object"]["metadata"]["resourceVersion"]) > int(rv) for e in events if e["type"] != "BOOKMARK")
    assert any(e["type"] == "BOOKMARK" for e in events)


def test_metrics_and_health(server):
    code, headers, body = server.raw("GET", "/metrics")
    assert code == 200 and b"scheduler_schedule_attempts_total" in body
    for path in ("/healthz", "/livez", "/readyz"):
        assert server.raw("GET", path)[2] == b"ok"


def test_quota_refusal_is_403_forbidden(server):
    assert server.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                      "metadata": {"name": "quota-ns"}})[0] == 201
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "claims"},
             "spec": {"hard": {"count/resourceclaims.resource.k8s.io": "0"}}}
    assert server.call("POST", "/api/v1/namespaces/quota-ns/resourcequotas", quota)[0] == 201
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "one"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}}}
    path = "/apis/resource.k8s.io/v1/namespaces/quota-ns/resourceclaims"
    code, s = server.wait_until(lambda: (r := server.call("POST", path, claim))[0] == 403 and r)
    assert s["reason"] == "Forbidden" and s["details"] == {"name": "one", "group": "resource.k8s.io",
                                                            "kind": "resourceclaims"}
    assert s["message"].startswith('resourceclaims.resource.k8s.io "one" is forbidden: exceeded quota: claims')


def test_field_validation_warn_is_the_default_and_ignore_drops_silently(server):
    def slice_(name):
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
                "spec": {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "generation": 1,
                         "resourceSliceCount": 1}, "devices": [{"name": "a", "bogus": 1,
                                                                "attributes": {"x.example.com/y": {"string": "v", "bad": 1}}}]}}
    path = "/apis/resource.k8s.io/v1/resourceslices"
    code, headers, body = server.raw("POST", path, json.dumps(slice_("warned")).encode(),
                                     {"Content-Type": "application/json"})
    assert code == 201, body
    created = json.loads(body)
    assert created["spec"]["devices"][0] == {"name": "a", "attributes": {"x.example.com/y": {"string": "v"}}}
    assert headers.get_all("Warning") == ['299 - "unknown field \\"spec.devices[0].attributes.x.example.com/y.bad\\""',
                                          '299 - "unknown field \\"spec.devices[0].bogus\\""']
    code, headers, body = server.raw("POST", path + "?fieldValidation=Ignore", json.dumps(slice_("ignored")).encode(),
                                     {"Content-Type": "application/json"})
    assert code == 201 and headers.get_all("Warning") is None
    code, s = server.call("POST", path + "?fieldValidation=Strict", slice_("strict"))
    assert code == 400 and "strict decoding error" in s["message"]
    code, s = server.call("POST", path + "?fieldValidation=Loose", slice_("loose"))
    assert code == 400


def test_status_is_written_only_through_the_status_subresource(server):
    code, created = server.call("POST", "/api/v1/nodes", node("n-status"))
    assert code == 201
    changed = dict(created, status=dict(created["status"], capacity={"cpu": "64", "memory": "8Gi", "pods": "110"}))
    code, updated = server.call("PUT", "/api/v1/nodes/n-status", changed)
    assert code == 200 and updated["status"]["capacity"]["cpu"] == "4"      # a plain update keeps status
    code, updated = server.call("PUT", "/api/v1/nodes/n-status/status", dict(changed, metadata=updated["metadata"]))
    assert code == 200 and updated["status"]["capacity"]["cpu"] == "64"
    code, patched = server.call("PATCH", "/api/v1/nodes/n-status/status",
                                {"status": {"capacity": {"example.com/gpu": "2"}}},
                                content_type="application/merge-patch+json")
    assert code == 200 and patched["status"]["capacity"]["example.com/gpu"] == "2"
    assert patched["metadata"]["resourceVersion"] != updated["metadata"]["resourceVersion"]
    code, same = server.call("PATCH", "/api/v1/nodes/n-status", {"metadata": {}},
                             content_type="application/merge-patch+json")
    assert same["metadata"]["resourceVersion"] == patched["metadata"]["resourceVersion"]   # no-op: nothing written


def test_eviction_respects_the_pod_disruption_budget(server):
    """k8s eviction.go: with minAvailable 1 and one healthy pod the budget allows nothing: 429
    TooManyRequests with the DisruptionBudget cause; with two healthy pods one eviction is allowed,
    charged to the budget (disruptedPods) before the pod goes."""
    import time

    server.call("POST", "/api/v1/nodes", node("n-pdb"))
    base = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
    code, _ = server.call("POST", base, {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                         "metadata": {"name": "guard"},
                                         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}})
    assert code == 201
    for name in ("g-1", "g-2"):
        server.call("POST", PODS, pod(name, labels={"app": "guarded"}, nodeName="n-pdb"))

    def healthy():
        return server.call("GET", base + "/guard")[1].get("status", {}).get("currentHealthy")
    deadline = time.time() + 10
    while healthy() != 2 and time.time() < deadline:
        time.sleep(0.1)
    evict = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "g-1"}}
    code, s = server.call("POST", PODS + "/g-1/eviction", evict)
    assert code == 201, s
    assert server.call("GET", PODS + "/g-1")[0] == 404
    while server.call("GET", base + "/guard")[1]["status"].get("currentHealthy") != 1 and time.time() < deadline:
        time.sleep(0.1)
    code, s = server.call("POST", PODS + "/g-2/eviction", dict(evict, metadata={"name": "g-2"}))
    assert (code, s["reason"], s["message"]) == (429, "TooManyRequests",
                                                 "Cannot evict pod as it would violate the pod's disruption budget.")
    assert s["details"]["causes"] == [{"reason": "DisruptionBudget",
                                       "message": "The disruption budget guard needs 1 healthy pods and has 1 currently"}]
    assert server.call("GET", PODS + "/g-2")[0] == 200
