"""PATCH as kube-apiserver answers it: a pod's immutable spec (ValidatePodUpdate) is 422 Invalid; a
JSON patch that does not apply is 422 with apiserver's generic message; server-side apply, which
drasim does not model, is 415 before the object is looked up (a missing object too, not 404)."""
from __future__ import annotations

PODS = "/api/v1/namespaces/default/pods"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"


def pod(name, **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"a": "1"}},
            "spec": {"containers": [{"name": "c", "image": "pause"}], "schedulerName": "nobody", **spec}}


def test_a_pod_spec_change_other_than_the_image_is_422(server):
    assert server.call("POST", PODS, pod("p-immutable", nodeName="n1"))[0] == 201
    code, s = server.call("PATCH", PODS + "/p-immutable", {"spec": {"nodeName": "n2"}}, content_type=STRATEGIC)
    assert (code, s["reason"]) == (422, "Invalid")
    assert s["message"].startswith('Pod "p-immutable" is invalid: spec: Forbidden: pod updates may not change fields '
                                   "other than `spec.containers[*].image`,")
    assert s["message"].endswith('(spec.nodeName: "n1" → "n2")')
    assert s["details"]["causes"][0]["field"] == "spec"
    code, s = server.call("PATCH", PODS + "/p-immutable", {"spec": {"containers": [{"name": "c", "image": "pause:2"}]}},
                          content_type=STRATEGIC)
    assert code == 200 and s["spec"]["containers"][0]["image"] == "pause:2" and s["spec"]["nodeName"] == "n1"


def test_a_json_patch_that_does_not_apply_is_422_with_the_generic_message(server):
    server.call("POST", PODS, pod("p-jsonpatch"))
    code, s = server.call("PATCH", PODS + "/p-jsonpatch", [{"op": "remove", "path": "/metadata/labels/nothere"}],
                          content_type=JSON_PATCH)
    assert (code, s["reason"], s["message"], s["details"]) == (
        422, "Invalid", "the server rejected our request due to an error in our request", {})
    assert server.call("GET", PODS + "/p-jsonpatch")[1]["metadata"]["labels"] == {"a": "1"}


def test_server_side_apply_is_415_whether_or_not_the_object_exists(server):
    server.call("POST", PODS, pod("p-ssa"))
    for name in ("p-ssa", "p-ssa-missing"):
        code, s = server.call("PATCH", f"{PODS}/{name}?fieldManager=kubectl", b"{}",
                              content_type="application/apply-patch+yaml")
        assert (code, s["reason"]) == (415, "UnsupportedMediaType"), name
        assert "server-side apply is not modelled" in s["message"]
    assert server.call("GET", PODS + "/p-ssa-missing")[0] == 404


def test_a_label_selector_typo_is_400_with_labels_parse_words(server):
    code, s = server.call("GET", PODS + "?labelSelector=app+in+(x")
    assert (code, s["reason"], s["message"]) == (400, "BadRequest", "unable to parse requirement: found '', expected: ',' or ')'")
    server.call("POST", PODS, pod("p-selected"))
    code, listed = server.call("GET", PODS + "?labelSelector=a+in+(1,2),!b")
    assert code == 200 and "p-selected" in [p["metadata"]["name"] for p in listed["items"]]


def test_pods_status_keeps_the_stored_spec(server):
    """A status writer's stale spec is ignored (k8s podStatusStrategy.PrepareForUpdate), not refused
    as a pod update."""
    server.call("POST", PODS, pod("p-status", nodeName="n1"))
    _, current = server.call("GET", PODS + "/p-status")
    body = dict(current, spec=dict(current["spec"], nodeName="n2"),
                status={"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}]})
    code, updated = server.call("PUT", PODS + "/p-status/status", body)
    assert code == 200, updated
    assert updated["spec"]["nodeName"] == "n1" and updated["status"]["conditions"][0]["type"] == "Ready"
