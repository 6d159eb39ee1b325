"""kubectl's typed commands send protobuf bodies (`kubectl create namespace|quota|deployment|job`);
drasim serve decodes them into the same objects a JSON body gives, through the same write path."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.server.harness import Serve

GOLDEN = {c["command"]: c for c in json.loads((Path(__file__).parent / "data" / "kubectl_protobuf.json").read_text())}
PROTOBUF = "application/vnd.kubernetes.protobuf"


@pytest.fixture(scope="module")
def s(kubectl_available, tmp_path_factory):
    server = Serve(tmp_path_factory.mktemp("kubectl-protobuf"))
    try:
        yield server
    finally:
        server.stop()


def get(s: Serve, *args: str) -> dict:
    return json.loads(s.kubectl("get", *args, "-o", "json").stdout)


def test_create_namespace_and_quota(s):
    assert s.kubectl("create", "namespace", "team-a").stdout == "namespace/team-a created\n"
    ns = get(s, "namespace", "team-a")
    assert ns["status"] == {"phase": "Active"} and ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}
    out = s.kubectl("create", "quota", "gpus", "--hard=cpu=2,pods=1,requests.example.com/gpu=1", "-n", "team-a")
    assert out.stdout == "resourcequota/gpus created\n"
    quota = get(s, "resourcequota", "gpus", "-n", "team-a")
    assert quota["spec"] == {"hard": {"cpu": "2", "pods": "1", "requests.example.com/gpu": "1"}}
    s.wait_until(lambda: get(s, "resourcequota", "gpus", "-n", "team-a").get("status", {}).get("used"))
    # the quota the protobuf body made is enforced with the API server's 403s: it limits cpu, so a
    # pod whose container sets no cpu request is refused (k8s: podEvaluator.Constraints), and a
    # second pod is over its pods=1
    bare = s.kubectl("run", "bare", "--image=pause", "-n", "team-a", check=False)
    assert bare.returncode == 1 and bare.stderr == ('Error from server (Forbidden): pods "bare" is forbidden: '
                                                    'failed quota: gpus: must specify cpu for: bare\n'), bare.stderr
    def run_with_cpu(name: str, check: bool = True):
        overrides = {"spec": {"containers": [{"name": name, "image": "pause",
                                              "resources": {"requests": {"cpu": "100m"}}}]}}
        return s.kubectl("run", name, "--image=pause", "-n", "team-a", f"--overrides={json.dumps(overrides)}",
                         check=check)
    run_with_cpu("one")
    refused = run_with_cpu("two", check=False)
    assert refused.returncode == 1 and "exceeded quota: gpus, requested: pods=1, used: pods=1, limited: pods=1" \
        in refused.stderr, refused.stderr


def test_create_deployment_runs_its_pods(s):
    out = s.kubectl("create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80", "-n", "default")
    assert out.stdout == "deployment.apps/web created\n"
    d = get(s, "deployment", "web")
    assert d["spec"]["replicas"] == 2 and d["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    assert d["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 80
    pods = s.wait_until(lambda: [p for p in get(s, "pods", "-l", "app=web")["items"]
                                 if p["metadata"]["name"].startswith("web-")] or None)
    assert pods[0]["spec"]["containers"][0]["image"] == "nginx"


def test_create_job(s):
    assert s.kubectl("create", "job", "once", "--image=busybox", "--", "sleep", "1").stdout == "job.batch/once created\n"
    job = get(s, "job", "once")
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["sleep", "1"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_errors_are_the_json_paths_errors(s):
    """The same invalid namespace, sent as protobuf (create namespace) and as JSON (create -f)."""
    typed = s.kubectl("create", "namespace", "Not_A_Name", check=False)
    manifest = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Not_A_Name"}})
    untyped = s.kubectl("create", "-f", "-", input=manifest, check=False)
    assert typed.returncode == untyped.returncode == 1
    assert typed.stderr == untyped.stderr and "is invalid: metadata.name: Invalid value" in typed.stderr
    again = s.kubectl("create", "namespace", "default", check=False)
    assert again.stderr == 'Error from server (AlreadyExists): namespaces "default" already exists\n'


def test_a_protobuf_body_for_the_wrong_url_or_broken_is_a_400(s):
    body = bytes.fromhex(GOLDEN["kubectl create namespace golden"]["protobuf"])
    code, status = s.call("POST", "/api/v1/namespaces/default/resourcequotas", body, content_type=PROTOBUF)
    assert (code, status["reason"], status["message"]) == (
        400, "BadRequest", "the kind in the data (Namespace) does not match the expected kind (ResourceQuota)")
    code, status = s.call("POST", "/api/v1/namespaces", body[:-3], content_type=PROTOBUF)
    assert (code, status["message"]) == (400, "the object provided is unrecognized: unexpected EOF")
    assert s.raw("GET", "/readyz")[0] == 200


def test_server_dry_run_creates_nothing_and_meets_already_exists(s):
    out = json.loads(s.kubectl("create", "deployment", "dry", "--image=nginx", "--dry-run=server", "-o", "json").stdout)
    md = out["metadata"]
    assert md["generation"] == 1 and md["creationTimestamp"].endswith("Z") and md["uid"]
    assert "resourceVersion" not in md
    assert s.kubectl("get", "deployment", "dry", check=False).returncode == 1   # nothing stored
    again = s.kubectl("create", "namespace", "default", "--dry-run=server", check=False)
    assert again.stderr == 'Error from server (AlreadyExists): namespaces "default" already exists\n'


def test_delete_options_in_protobuf(s):
    """client-go's typed Delete sends DeleteOptions in the client's encoding (a DRA driver's
    ResourceSlice controller uses protobuf); a stale uid precondition is refused, then it goes."""
    from tests.server.protoref import envelope, ld, tag

    s.kubectl("create", "namespace", "doomed")
    uid = json.loads(s.kubectl("get", "namespace", "doomed", "-o", "json").stdout)["metadata"]["uid"]
    for api_version in ("v1", "meta.k8s.io/v1"):
        stale = envelope(api_version, "DeleteOptions", ld(2, ld(1, b"not-the-uid")))
        code, status = s.call("DELETE", "/api/v1/namespaces/doomed", stale, content_type=PROTOBUF)
        assert (code, status["reason"]) == (409, "Conflict"), status
    good = envelope("v1", "DeleteOptions", ld(2, ld(1, uid.encode())) + ld(4, b"Background"))
    code, ns = s.call("DELETE", "/api/v1/namespaces/doomed", good, content_type=PROTOBUF)
    # the namespace's finalizer holds it: 200 with the object marked for deletion (202 is only
    # for orphanDependents=false, handlers/delete.go)
    assert code == 200 and ns["metadata"]["deletionTimestamp"] and ns["status"]["phase"] == "Terminating"
    s.kubectl("create", "namespace", "doomed-too")
    orphan_false = envelope("v1", "DeleteOptions", tag(3, 0) + b"\x00")
    code, _ = s.call("DELETE", "/api/v1/namespaces/doomed-too", orphan_false, content_type=PROTOBUF)
    assert code == 202
