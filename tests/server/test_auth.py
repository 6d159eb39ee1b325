"""Authentication and RBAC authorization of drasim serve, with raw HTTP, kubectl and the python client."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.server.harness import DRASIM, EXAMPLES, ROOT, Serve

EXPLICIT = EXAMPLES / "extended-resource-explicit"
CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
SLICES = "/apis/resource.k8s.io/v1/resourceslices"
CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
DRIVER = "system:serviceaccount:dra-system:gpu-driver"
TOKENS = f'alice-token,alice,1001,"dev,qa"\nbob-token,bob,1002\ndriver-token,{DRIVER},1003\n'


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rbac")
    (tmp / "tokens.csv").write_text(TOKENS)
    s = Serve(tmp, EXPLICIT / "cluster.yaml", extra=("--token-auth-file", str(tmp / "tokens.csv"),
                                                      "--authorization-mode", "RBAC"))
    try:
        for ns in ("team-a", "team-p"):   # RBAC objects, like others, need their namespace
            assert s.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": ns}})[0] == 201
        yield s
    finally:
        s.stop()


def test_no_token_or_a_bad_token_is_401_in_always_allow_mode(server):
    for headers in ({"Authorization": None}, bearer("wrong"), {"Authorization": "Basic eDp5"}):
        for path in ("/api/v1/pods", "/healthz", "/version"):
            code, status = server.call("GET", path, headers=headers)
            assert code == 401, (path, headers)
            assert status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
    assert server.call("GET", "/api/v1/pods")[0] == 200


def test_a_body_over_3_mib_is_413(server):
    big = b'{"metadata": {"name": "x"}, "pad": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    code, status = server.call("POST", "/api/v1/namespaces/default/pods", big)
    assert (code, status["reason"]) == (413, "RequestEntityTooLarge")


def test_rbac_mode_lets_anonymous_read_health_only(rbac_server):
    anon = {"Authorization": None}
    assert rbac_server.raw("GET", "/healthz", headers=anon)[0] == 200
    assert rbac_server.call("GET", "/version", headers=anon)[0] == 200
    code, status = rbac_server.call("GET", "/api/v1/namespaces/default/pods", headers=anon)
    assert (code, status["reason"]) == (403, "Forbidden")
    assert status["message"] == ('pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" '
                                 'in the namespace "default"')
    # a bad token is never anonymous
    assert rbac_server.call("GET", "/healthz", headers=bearer("nope"))[0] == 401


def test_token_user_without_a_binding_is_403_with_the_api_server_message(rbac_server):
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "alice-class"}}
    code, status = rbac_server.call("POST", CLASSES, cls, headers=bearer("alice-token"))
    assert code == 403
    assert status["message"] == ('deviceclasses.resource.k8s.io is forbidden: User "alice" cannot create resource '
                                 '"deviceclasses" in API group "resource.k8s.io" at the cluster scope')
    assert status["details"] == {"group": "resource.k8s.io", "kind": "deviceclasses"}
    code, status = rbac_server.call("GET", CLASSES + "/gpu.example.com", headers=bearer("bob-token"))
    assert status["message"] == ('deviceclasses.resource.k8s.io "gpu.example.com" is forbidden: User "bob" cannot get '
                                 'resource "deviceclasses" in API group "resource.k8s.io" at the cluster scope')
    # discovery is open to every authenticated user (system:discovery)
    assert rbac_server.call("GET", "/apis", headers=bearer("bob-token"))[0] == 200


def _grant(s, name, rules, subject, namespace=None):
    role_kind = "Role" if namespace else "ClusterRole"
    binding_kind = "RoleBinding" if namespace else "ClusterRoleBinding"
    prefix = f"{RBAC}/namespaces/{namespace}" if namespace else RBAC
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": role_kind, "metadata": {"name": name}, "rules": rules}
    assert s.call("POST", f"{prefix}/{role_kind.lower()}s", role)[0] == 201
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": binding_kind, "metadata": {"name": name},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name},
               "subjects": [subject]}
    assert s.call("POST", f"{prefix}/{binding_kind.lower()}s", binding)[0] == 201


def test_kubectl_auth_can_i_follows_the_bindings(kubectl_available, rbac_server):
    def can_i(*args):
        r = rbac_server.kubectl("auth", "can-i", *args, check=False)
        return r.stdout.strip()
    assert can_i("create", "deviceclasses") == "yes"          # the kubeconfig's admin (system:masters)
    assert can_i("create", "deviceclasses", "--as=alice") == "no"
    assert can_i("list", "resourceclaims", "-n", "team-a", "--as=alice") == "no"
    _grant(rbac_server, "claims-reader", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
                                           "verbs": ["get", "list", "watch"]}],
           {"kind": "Group", "name": "dev", "apiGroup": "rbac.authorization.k8s.io"}, namespace="team-a")
    assert can_i("list", "resourceclaims", "-n", "team-a", "--as=alice", "--as-group=dev") == "yes"
    assert can_i("list", "resourceclaims", "-n", "default", "--as=alice", "--as-group=dev") == "no"
    _grant(rbac_server, "class-admin", [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"],
                                         "verbs": ["*"]}], {"kind": "User", "name": "alice"})
    assert can_i("create", "deviceclasses", "--as=alice") == "yes"
    assert can_i("create", "deviceclasses", "--as=bob") == "no"
    # only who may impersonate may use --as
    r = rbac_server.kubectl("--token=bob-token", "auth", "can-i", "get", "pods", "--as=alice", check=False)
    assert r.returncode != 0 and 'User "bob" cannot impersonate resource "users"' in r.stderr


def test_a_dra_driver_with_the_documented_permissions_publishes_slices_but_cannot_touch_classes(rbac_server):
    # The DRA driver permissions (k8s.io/dynamic-resource-allocation kubeletplugin, the example driver's
    # ClusterRole): read claims, write claim status, manage ResourceSlices.
    _grant(rbac_server, "gpu-driver", [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"], "verbs": ["update", "patch"]},
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"],
         "verbs": ["get", "list", "watch", "create", "update", "delete"]}],
        {"kind": "ServiceAccount", "name": "gpu-driver", "namespace": "dra-system"})
    driver = bearer("driver-token")
    piece = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "driver-slice"},
             "spec": {"driver": "gpu.example.com", "nodeName": "gpu-node-1",
                      "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "g0"}]}}
    code, created = rbac_server.call("POST", SLICES, piece, headers=driver)
    assert code == 201, created
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c1"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    assert rbac_server.call("POST", CLAIMS, claim)[0] == 201
    code, got = rbac_server.call("GET", CLAIMS + "/c1", headers=driver)
    assert code == 200
    code, updated = rbac_server.call("PUT", CLAIMS + "/c1/status", got, headers=driver)
    assert code == 200, updated
    code, status = rbac_server.call("PUT", CLAIMS + "/c1", got, headers=driver)
    assert code == 403 and 'cannot update resource "resourceclaims" in API group' in status["message"]
    code, status = rbac_server.call("DELETE", CLASSES + "/gpu.example.com", headers=driver)
    assert code == 403
    assert status["message"] == (f'deviceclasses.resource.k8s.io "gpu.example.com" is forbidden: User "{DRIVER}" '
                                 'cannot delete resource "deviceclasses" in API group "resource.k8s.io" at the cluster scope')


def test_python_client_with_a_token_user(rbac_server, tmp_path):
    client = pytest.importorskip("kubernetes.client")
    from kubernetes import config
    bob = tmp_path / "bob.kubeconfig"   # the generated kubeconfig with bob's token instead of the admin's
    bob.write_text(rbac_server.kubeconfig.read_text().replace(rbac_server.token, "bob-token"))
    api_client = config.new_client_from_config(config_file=str(bob), context="drasim")
    with pytest.raises(client.ApiException) as e:
        client.ResourceV1Api(api_client).list_device_class()
    assert e.value.status == 403
    assert json.loads(e.value.body)["message"].startswith('deviceclasses.resource.k8s.io is forbidden: User "bob"')


def test_a_malformed_token_file_is_one_error_line(tmp_path):
    (tmp_path / "t.csv").write_text("tok,only-two\n")
    r = subprocess.run([*DRASIM, "serve", "--kubeconfig", str(tmp_path / "kc"), "--token-auth-file",
                        str(tmp_path / "t.csv")], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 1 and not r.stdout
    assert r.stderr.strip().splitlines()[-1].endswith(
        "must have at least 3 columns (token, user name, user uid), found 2")
    assert "Traceback" not in r.stderr


def test_who_can_reads_a_live_server_through_the_kubeconfig(rbac_server):
    _grant(rbac_server, "slice-writer", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"],
                                          "verbs": ["create"]}], {"kind": "User", "name": "carol"})
    r = subprocess.run([*DRASIM, "rbac", "who-can", "create", "resourceslices", "--kubeconfig",
                        str(rbac_server.kubeconfig), "-o", "json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    subjects = {(s["subjectKind"], s["subject"], s["binding"]) for s in json.loads(r.stdout)["subjects"]}
    assert ("User", "carol", "slice-writer") in subjects
    # the bootstrap cluster-admin binding (system:masters) is served like kube-apiserver's
    assert ("Group", "system:masters", "cluster-admin") in subjects


def test_claim_status_fields_need_the_synthetic_dra_subresources(rbac_server):
    """v1.37 DRAResourceClaimGranularStatusAuthorization: resourceclaims/binding for allocation and
    reservedFor, resourceclaims/driver (arbitrary-node:VERB, named by driver) for status.devices."""
    _grant(rbac_server, "status-writer", [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims", "resourceclaims/status"],
         "verbs": ["get", "update"]}], {"kind": "User", "name": "dave"})
    tokens = rbac_server.tmp / "tokens.csv"
    assert "dave" not in tokens.read_text()   # dave acts through impersonation by the admin
    dave = {"Impersonate-User": "dave"}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c2"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    assert rbac_server.call("POST", CLAIMS, claim)[0] == 201
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "uses-c2"},
           "spec": {"containers": [{"name": "c", "image": "pause"}], "resourceClaims": [{"name": "g",
                    "resourceClaimName": "c2"}]}}
    assert rbac_server.call("POST", "/api/v1/namespaces/default/pods", pod)[0] == 201
    got = rbac_server.wait_until(lambda: (c := rbac_server.call("GET", CLAIMS + "/c2")[1]).get("status", {})
                                 .get("allocation") and c)
    result = got["status"]["allocation"]["devices"]["results"][0]
    # reservedFor is the scheduler's: dave may not drop it
    dropped = dict(got, status=dict(got["status"], reservedFor=[]))
    code, status = rbac_server.call("PUT", CLAIMS + "/c2/status", dropped, headers=dave)
    assert (code, status["reason"]) == (422, "Invalid")
    assert status["message"] == (
        'ResourceClaim.resource.k8s.io "c2" is invalid: status: Forbidden: changing status.allocation or '
        'status.reservedFor requires resource="resourceclaims/binding", verb="update" permission: '
        'resourceclaims.resource.k8s.io is forbidden: User "dave" cannot update resource "resourceclaims/binding" '
        'in API group "resource.k8s.io" at the cluster scope')
    device_status = {"driver": result["driver"], "pool": result["pool"], "device": result["device"],
                     "conditions": [{"type": "Ready", "status": "True", "reason": "Up", "message": "",
                                     "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    with_devices = dict(got, status=dict(got["status"], devices=[device_status]))
    code, status = rbac_server.call("PUT", CLAIMS + "/c2/status", with_devices, headers=dave)
    assert code == 422
    assert 'verb="[arbitrary-node:update]" permission: resourceclaims.resource.k8s.io "gpu.example.com" is ' \
           'forbidden: User "dave" cannot arbitrary-node:update resource "resourceclaims/driver"' in status["message"]
    _grant(rbac_server, "gpu-status", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/driver"],
                                        "verbs": ["arbitrary-node:update"], "resourceNames": ["other.example.com"]}],
           {"kind": "User", "name": "dave"})
    assert rbac_server.call("PUT", CLAIMS + "/c2/status", with_devices, headers=dave)[0] == 422   # wrong driver
    _grant(rbac_server, "gpu-status-2", [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/driver"],
                                          "verbs": ["arbitrary-node:update"], "resourceNames": ["gpu.example.com"]}],
           {"kind": "User", "name": "dave"})
    code, updated = rbac_server.call("PUT", CLAIMS + "/c2/status", with_devices, headers=dave)
    assert code == 200, updated
    assert updated["status"]["devices"][0]["device"] == result["device"]


def test_kubectl_creates_roles_and_bindings_in_protobuf(kubectl_available, rbac_server):
    k = rbac_server.kubectl
    k("create", "role", "slice-reader", "-n", "team-p", "--verb=get,list", "--resource=resourceclaims.resource.k8s.io",
      "--resource-name=c1")
    k("create", "rolebinding", "erin-reads", "-n", "team-p", "--role=slice-reader", "--user=erin",
      "--serviceaccount=team-p:robot")
    role = json.loads(k("get", "role", "slice-reader", "-n", "team-p", "-o", "json").stdout)
    assert role["rules"] == [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
                              "resourceNames": ["c1"], "verbs": ["get", "list"]}]
    binding = json.loads(k("get", "rolebinding", "erin-reads", "-n", "team-p", "-o", "json").stdout)
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "slice-reader"}
    assert {(s["kind"], s["name"]) for s in binding["subjects"]} == {("User", "erin"), ("ServiceAccount", "robot")}

    def can_i(*args):
        return k("auth", "can-i", *args, check=False).stdout.strip()
    assert can_i("get", "resourceclaims/c1", "-n", "team-p", "--as=erin") == "yes"
    assert can_i("get", "resourceclaims/c9", "-n", "team-p", "--as=erin") == "no"      # resourceNames
    assert can_i("get", "resourceclaims/c1", "-n", "default", "--as=erin") == "no"     # a RoleBinding's namespace
    assert can_i("get", "resourceclaims/c1", "-n", "team-p", "--as=system:serviceaccount:team-p:robot") == "yes"
    k("delete", "rolebinding", "erin-reads", "-n", "team-p")
    assert can_i("get", "resourceclaims/c1", "-n", "team-p", "--as=erin") == "no"


def test_kubectl_apply_creates_then_patches_a_cluster_role(kubectl_available, rbac_server):
    manifest = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: applied}\nrules:\n"
                "- {apiGroups: [resource.k8s.io], resources: [deviceclasses], verbs: [%s]}\n")
    assert "created" in rbac_server.kubectl("apply", "-f", "-", input=manifest % "get").stdout
    assert "configured" in rbac_server.kubectl("apply", "-f", "-", input=manifest % "get, list").stdout
    rules = json.loads(rbac_server.kubectl("get", "clusterrole", "applied", "-o", "jsonpath={.rules}").stdout)
    assert rules == [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"], "verbs": ["get", "list"]}]
    code, status = rbac_server.call("PATCH", RBAC + "/clusterroles/applied", b"[{", "application/json-patch+json")
    assert (code, status["reason"]) == (400, "BadRequest")
