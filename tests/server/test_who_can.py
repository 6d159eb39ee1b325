"""`drasim rbac who-can` over manifest files."""
from __future__ import annotations

import json
import subprocess

import yaml

from tests.server.harness import DRASIM, ROOT

RBAC = "rbac.authorization.k8s.io/v1"


def _docs():
    return [
        {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "cluster-admin"},
         "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]},
        {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "gpu-driver"},
         "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"], "verbs": ["update"]},
                   {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["create", "delete"]}]},
        {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": "claims", "namespace": "team-a"},
         "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["*"], "verbs": ["get", "update"]}]},
        {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "admins"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
             "subjects": [{"kind": "User", "name": "root"}]},
            {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "gpu-driver"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gpu-driver"},
             "subjects": [{"kind": "ServiceAccount", "name": "gpu-driver", "namespace": "dra-system"}]},
            {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "team-a-claims", "namespace": "team-a"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "claims"},
             "subjects": [{"kind": "Group", "name": "team-a-devs"}]}]},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ignored"}},
    ]


def who_can(tmp_path, *args):
    f = tmp_path / "rbac.yaml"
    f.write_text(yaml.safe_dump_all(_docs()))
    return subprocess.run([*DRASIM, "rbac", "who-can", *args, "-f", str(f)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, env={"COLUMNS": "160", "PATH": "/usr/bin:/bin"})


def test_json_lists_subjects_bindings_roles_and_flags(tmp_path):
    r = who_can(tmp_path, "update", "resourceclaims/status", "-o", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["group"], out["resource"], out["subresource"]) == ("resource.k8s.io", "resourceclaims", "status")
    got = {(s["subjectKind"], s["subject"], s["binding"], s["namespace"], s["role"], tuple(s["flags"]))
           for s in out["subjects"]}
    assert got == {("Group", "system:masters", "", "", "", ("cluster-admin",)),
                   ("User", "root", "admins", "", "cluster-admin", ("cluster-admin", "wildcard")),
                   ("ServiceAccount", "dra-system/gpu-driver", "gpu-driver", "", "gpu-driver", ()),
                   # the Role's `*` resources include resourceclaims/status, in team-a only
                   ("Group", "team-a-devs", "team-a-claims", "team-a", "claims", ("wildcard",))}


def test_namespace_narrows_role_bindings_and_verbs_must_match(tmp_path):
    out = json.loads(who_can(tmp_path, "update", "resourceclaims/status", "-n", "team-b", "-o", "json").stdout)
    assert "team-a-devs" not in {s["subject"] for s in out["subjects"]}
    out = json.loads(who_can(tmp_path, "create", "deviceclasses", "-o", "json").stdout)
    assert {s["subject"] for s in out["subjects"]} == {"system:masters", "root"}


def test_table_output(tmp_path):
    r = who_can(tmp_path, "delete", "resourceslices")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].strip() == "who can delete resourceslices"
    assert lines[1].split() == ["SUBJECT", "KIND", "SUBJECT", "BINDING", "NAMESPACE", "ROLE", "FLAGS"]
    rows = [line.split() for line in lines[2:]]
    assert ["ServiceAccount", "dra-system/gpu-driver", "ClusterRoleBinding/gpu-driver", "(all)",
            "ClusterRole/gpu-driver", "-"] in rows
    assert ["User", "root", "ClusterRoleBinding/admins", "(all)", "ClusterRole/cluster-admin",
            "cluster-admin,wildcard"] in rows


def test_bad_input_is_one_error_line(tmp_path):
    r = who_can(tmp_path, "get", "widgets")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == ('error: widgets: the server doesn\'t have a resource type "widgets" '
                                "(name it RESOURCE.GROUP)")
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "x"}, "rules": "all"}))
    r = subprocess.run([*DRASIM, "rbac", "who-can", "get", "pods", "-f", str(bad)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip() == f'error: {bad}: ClusterRole "x": rules: must be a list of objects'
