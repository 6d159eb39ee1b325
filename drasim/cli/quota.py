"""`drasim quota PHASE...`: the three ways v1.37 quota counts the same DRA devices, side by side.

For each namespace and ResourceQuota (and namespaces without one, so a user can size a quota
before writing it), and for each DeviceClass, the usage that quota admission and the quota
controller would record under

- `requests.<extendedResourceName>` (the class's explicit extended resource name),
- `requests.deviceclass.resource.kubernetes.io/<class>` (the implicit name),
- `<class>.deviceclass.resource.k8s.io/devices` (devices per class),

with the quota's `spec.hard` limit where it sets one. Spec: extended-resources.md §11.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from drasim.cli.render import terminal_width, tidy

from drasim.api.extendedresource import implicit_name
from drasim.controllers import quota
from drasim.controlplane import ControlPlane

@dataclass(frozen=True)
class Row:
    namespace: str
    quota: str              # "" when the namespace has no ResourceQuota
    device_class: str
    keys: tuple[str, str, str]
    used: tuple[str, str, str]
    hard: tuple[str | None, str | None, str | None]


def class_keys(cp: ControlPlane, class_name: str) -> tuple[str, str, str]:
    explicit = cp.er_cache.explicit_name_of(class_name)
    return ("requests." + explicit if explicit else "",
            "requests." + implicit_name(class_name),
            quota.devices_key(class_name))


def rows(cp: ControlPlane) -> list[Row]:
    store = cp.store
    classes = sorted(c["metadata"]["name"] for c in store.list("DeviceClass"))
    namespaces = sorted({o["metadata"].get("namespace") for kind in ("Pod", "ResourceClaim", "ResourceQuota")
                         for o in store.list(kind)} - {None})
    out: list[Row] = []
    for ns in namespaces:
        pods, claims = store.list("Pod", ns), store.list("ResourceClaim", ns)
        quotas = sorted(store.list("ResourceQuota", ns), key=lambda q: q["metadata"]["name"]) or [None]
        for q in quotas:
            hard = ((q or {}).get("spec") or {}).get("hard") or {}
            for cls in classes:
                keys = class_keys(cp, cls)
                probe = {"metadata": {"name": "probe", "namespace": ns},
                         "spec": {"hard": {k: "0" for k in keys if k}}}
                used = quota.quota_used(probe, pods, claims, cp.er_cache, now=cp.clock.now)
                out.append(Row(ns, (q or {}).get("metadata", {}).get("name", ""), cls, keys,
                               tuple(used.get(k, "0") if k else "-" for k in keys),
                               tuple(hard.get(k) if k else None for k in keys)))
    return out


def _cell(used: str, hard: str | None) -> str:
    return used if hard is None else f"{used} / {hard}"


def render_table(cp: ControlPlane) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=terminal_width(), no_color=True, highlight=False, markup=False)
    table = Table(title="Quota usage of DRA devices (used / hard)", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "QUOTA", "DEVICECLASS", "EXTENDED NAME", "IMPLICIT NAME", "DEVICES"):
        table.add_column(col, overflow="fold")
    for r in rows(cp):
        table.add_row(r.namespace, r.quota or "(none)", r.device_class,
                      f"{r.keys[0]}: {_cell(r.used[0], r.hard[0])}" if r.keys[0] else "-",
                      f"{_cell(r.used[1], r.hard[1])}", f"{_cell(r.used[2], r.hard[2])}")
    console.print(table)
    quotas = cp.store.list("ResourceQuota")
    if quotas:
        t = Table(title="ResourceQuota status", title_justify="left", show_edge=False)
        for col in ("NAMESPACE", "QUOTA", "RESOURCE", "USED", "HARD"):
            t.add_column(col, overflow="fold")
        for q in sorted(quotas, key=lambda q: (q["metadata"]["namespace"], q["metadata"]["name"])):
            used = (q.get("status") or {}).get("used") or {}
            for key, limit in sorted(((q.get("spec") or {}).get("hard") or {}).items()):
                t.add_row(q["metadata"]["namespace"], q["metadata"]["name"], key, str(used.get(key, "0")), str(limit))
        console.print()
        console.print(t)
    return tidy(buf.getvalue())


def render_json(cp: ControlPlane) -> str:
    out = [{"namespace": r.namespace, "quota": r.quota or None, "deviceClass": r.device_class,
            "usage": {k: {"used": u, "hard": h} for k, u, h in zip(r.keys, r.used, r.hard) if k}}
           for r in rows(cp)]
    return json.dumps(out, indent=2) + "\n"
