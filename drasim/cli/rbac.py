"""`drasim rbac who-can VERB RESOURCE`: which subjects may, through which bindings and roles.

    drasim rbac who-can VERB RESOURCE[/SUBRESOURCE][.GROUP] [NAME] [-n NS] (-f FILE ... | --kubeconfig FILE)
                [-o table|json]

RBAC objects come from manifest files (a `kubectl get clusterroles,clusterrolebindings,roles,
rolebindings -A -o yaml` dump; other kinds are ignored) or a live cluster (drasim serve or any
API server) through a kubeconfig. Without -n, RoleBindings of every namespace are listed with
their namespace (they grant only there).
"""
from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import yaml

from drasim.errors import InputError

RBAC_KINDS = {"Role": "roles", "ClusterRole": "cluster_roles", "RoleBinding": "role_bindings",
              "ClusterRoleBinding": "cluster_role_bindings"}
PATHS = {"roles": "/apis/rbac.authorization.k8s.io/v1/roles",
         "cluster_roles": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
         "role_bindings": "/apis/rbac.authorization.k8s.io/v1/rolebindings",
         "cluster_role_bindings": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"}


def add_arguments(p) -> None:
    p.add_argument("query", choices=("who-can",), help="the question (who-can)")
    p.add_argument("verb", metavar="VERB", help="get, list, watch, create, update, patch, delete, deletecollection, …")
    p.add_argument("resource", metavar="RESOURCE",
                   help="a resource as kubectl names it: deviceclasses, resourceclaims/status, roles.rbac.authorization.k8s.io")
    p.add_argument("name", nargs="?", default="", metavar="NAME", help="one object (rules with resourceNames)")
    p.add_argument("-n", "--namespace", metavar="NS", help="only RoleBindings of this namespace")
    p.add_argument("-f", "--filename", action="append", default=[], metavar="FILE",
                   help="RBAC manifests (repeatable; folders read recursively)")
    p.add_argument("--kubeconfig", metavar="FILE", help="read the RBAC objects from this cluster instead")
    p.add_argument("--context", metavar="NAME", help="the kubeconfig context (default: its current context)")
    p.add_argument("-o", "--output", choices=("table", "json"), default="table", help="table (default) or json")


def resolve_resource(text: str) -> tuple[str, str, str]:
    """(group, resource, subresource) of `deviceclasses`, `resourceclaims/status`, `pods`, `x.example.com`."""
    from drasim.api.kinds import ALL_KINDS
    from drasim.server.rbacobjects import SERVER_KINDS

    resource, _, sub = text.partition("/")
    plural, dot, group = resource.partition(".")
    known = {k.plural: k.group for k in (*ALL_KINDS, *SERVER_KINDS)}
    if dot:
        return group, plural, sub
    if plural == "*":
        return "*", plural, sub
    if plural not in known:
        raise InputError(f'{text}: the server doesn\'t have a resource type "{plural}" (name it RESOURCE.GROUP)')
    return known[plural], plural, sub


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml", ".json"))
        elif p.exists():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    return out


def _check(obj: dict, where: str) -> None:
    """The fields the evaluator reads must have their API types (one clear line otherwise)."""
    name = (obj.get("metadata") or {}).get("name", "")
    for field in ("rules", "subjects"):
        value = obj.get(field)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, dict) for v in value)):
            raise InputError(f'{where}: {obj["kind"]} "{name}": {field}: must be a list of objects')
    if obj["kind"].endswith("Binding") and not isinstance(obj.get("roleRef"), dict):
        raise InputError(f'{where}: {obj["kind"]} "{name}": roleRef: Required value')


def policy_from_files(paths: list[str]):
    from drasim.auth import rbac

    found: dict[str, list[dict]] = {v: [] for v in RBAC_KINDS.values()}
    for path in _files(paths):
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
            raise InputError(f"{path}: cannot read: {str(e).splitlines()[0]}") from None
        queue = [d for d in docs if isinstance(d, dict)]
        while queue:
            doc = queue.pop(0)
            if doc.get("kind") == "List" or str(doc.get("kind", "")).endswith("List"):
                queue += [i for i in doc.get("items") or () if isinstance(i, dict)]
            elif doc.get("kind") in RBAC_KINDS and str(doc.get("apiVersion", "")).startswith("rbac.authorization.k8s.io/"):
                _check(doc, str(path))
                found[RBAC_KINDS[doc["kind"]]].append(doc)
    return rbac.Policy(**{k: tuple(v) for k, v in found.items()})


def policy_from_cluster(kubeconfig: str, context: str | None):
    from drasim.auth import rbac
    from drasim.plan.snapshot import _client

    _, api = _client(kubeconfig, context)
    found = {}
    for field, path in PATHS.items():
        try:
            method, url, headers, _, _ = api.param_serialize("GET", path, header_params={"Accept": "application/json"},
                                                             auth_settings=["BearerToken"])
            response = api.call_api(method, url, header_params=headers, _request_timeout=60)
            response.read()
        except Exception as e:   # noqa: BLE001 - connection errors come as urllib3 types
            raise InputError(f"{path}: cannot reach the cluster: {e}") from None
        if response.status != 200:
            raise InputError(f"{path}: the server answered {response.status} {response.reason}")
        found[field] = tuple(json.loads(response.data).get("items") or ())
    return rbac.Policy(**found)


def render_table(rows: list[dict], verb: str, resource: str) -> str:
    from rich.table import Table

    from drasim.cli.render import console

    buf = io.StringIO()
    out = console(buf)
    table = Table(title=f"who can {verb} {resource}", title_justify="left", box=None, header_style="bold")
    for col in ("SUBJECT KIND", "SUBJECT", "BINDING", "NAMESPACE", "ROLE", "FLAGS"):
        table.add_column(col)
    for r in rows:
        binding = f'{r["bindingKind"]}/{r["binding"]}' if r["binding"] else "(built in)"
        role = f'{r["roleKind"]}/{r["role"]}' if r["role"] else "-"
        table.add_row(r["subjectKind"], r["subject"], binding, r["namespace"] or "(all)", role,
                      ",".join(r["flags"]) or "-")
    out.print(table)
    return buf.getvalue()


def run(args: argparse.Namespace) -> int:
    import sys

    from drasim.auth.whocan import who_can

    if bool(args.filename) == bool(args.kubeconfig):
        raise InputError("drasim rbac who-can: give the RBAC objects with -f FILE or --kubeconfig FILE (one of them)")
    group, resource, sub = resolve_resource(args.resource)
    policy = policy_from_files(args.filename) if args.filename else policy_from_cluster(args.kubeconfig, args.context)
    rows = who_can(policy, args.verb, group, resource, sub, args.namespace, args.name)
    if args.output == "json":
        sys.stdout.write(json.dumps({"verb": args.verb, "group": group, "resource": resource, "subresource": sub,
                                     "namespace": args.namespace, "subjects": rows}, indent=2) + "\n")
    else:
        sys.stdout.write(render_table(rows, args.verb, args.resource))
    return 0
