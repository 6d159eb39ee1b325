"""`drasim snapshot`: read a live cluster into a folder `simulate`, `audit` and `explain` take as is.

Through the official `kubernetes` client and a kubeconfig, it lists the kinds that decide where
pods and devices go — Namespaces, Nodes, ResourceQuotas, the resource.k8s.io/v1 kinds, Pods — and
the workload controllers that own pods (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs),
so the audit can name the manifest to change. Secrets and ConfigMaps are never read. Each kind
goes to its own file, numbered so that reading the folder in name order applies them in an
order the API server accepts (namespaces first, pods after their claims). Server-owned metadata
that a replay must not carry (managedFields, resourceVersion, selfLink) is dropped; status is kept.
"""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from drasim.errors import InputError

# (file, path of the list, kind of the items, API version) in apply order.
LISTS = (
    ("00-namespaces.yaml", "/api/v1/namespaces", "Namespace", "v1"),
    ("01-nodes.yaml", "/api/v1/nodes", "Node", "v1"),
    ("02-deviceclasses.yaml", "/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass", "resource.k8s.io/v1"),
    ("03-resourceslices.yaml", "/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice", "resource.k8s.io/v1"),
    ("04-devicetaintrules.yaml", "/apis/resource.k8s.io/v1/devicetaintrules", "DeviceTaintRule", "resource.k8s.io/v1"),
    ("05-resourcequotas.yaml", "/api/v1/resourcequotas", "ResourceQuota", "v1"),
    ("06-resourceclaimtemplates.yaml", "/apis/resource.k8s.io/v1/resourceclaimtemplates", "ResourceClaimTemplate",
     "resource.k8s.io/v1"),
    ("07-resourceclaims.yaml", "/apis/resource.k8s.io/v1/resourceclaims", "ResourceClaim", "resource.k8s.io/v1"),
    ("08-deployments.yaml", "/apis/apps/v1/deployments", "Deployment", "apps/v1"),
    ("09-replicasets.yaml", "/apis/apps/v1/replicasets", "ReplicaSet", "apps/v1"),
    ("10-statefulsets.yaml", "/apis/apps/v1/statefulsets", "StatefulSet", "apps/v1"),
    ("11-daemonsets.yaml", "/apis/apps/v1/daemonsets", "DaemonSet", "apps/v1"),
    ("12-jobs.yaml", "/apis/batch/v1/jobs", "Job", "batch/v1"),
    ("13-pods.yaml", "/api/v1/pods", "Pod", "v1"),
)
SERVER_OWNED = ("managedFields", "resourceVersion", "selfLink")


def _client(kubeconfig: str, context: str | None):
    try:
        from kubernetes import client, config
    except ImportError:
        raise InputError("drasim snapshot needs the kubernetes client: pip install kubernetes") from None
    try:
        api = config.new_client_from_config(config_file=kubeconfig, context=context)
    except Exception as e:   # noqa: BLE001 - the client raises many types for a bad kubeconfig
        raise InputError(f"--kubeconfig {kubeconfig}: {e}") from None
    return client, api


def _clean(item: dict, kind: str, api_version: str) -> dict:
    item = dict(item, kind=kind, apiVersion=api_version)
    md = {k: v for k, v in (item.get("metadata") or {}).items() if k not in SERVER_OWNED}
    item["metadata"] = md
    return item


def take(kubeconfig: str, out: str, context: str | None = None) -> dict[str, int]:
    """Write the snapshot; return objects per kind. A kind the server does not serve (404) is
    skipped: older clusters have no resource.k8s.io/v1."""
    client, api = _client(kubeconfig, context)
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"-o {out}: cannot create: {e.strerror or e}") from None
    counts: dict[str, int] = {}
    for filename, path, kind, api_version in LISTS:
        try:
            method, url, headers, _, _ = api.param_serialize("GET", path, header_params={"Accept": "application/json"},
                                                             auth_settings=["BearerToken"])
            response = api.call_api(method, url, header_params=headers, _request_timeout=60)
            response.read()
        except Exception as e:   # noqa: BLE001 - connection errors come as urllib3 types
            raise InputError(f"{path}: cannot reach the cluster: {e}") from None
        if response.status == 404:
            continue
        if response.status != 200:
            raise InputError(f"{path}: the server answered {response.status} {response.reason}")
        try:
            data = json.loads(response.data)
        except ValueError:
            raise InputError(f"{path}: the server's answer is not JSON") from None
        items = [_clean(i, kind, api_version) for i in (data or {}).get("items") or ()]
        if kind == "Namespace":   # the API server's own namespaces exist in every cluster drasim starts
            items = [i for i in items if i["metadata"].get("name") not in ("default", "kube-system", "kube-public",
                                                                           "kube-node-lease")]
        counts[kind] = len(items)
        if items:
            (folder / filename).write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items},
                                                          sort_keys=False))
    return counts
