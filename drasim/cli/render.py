"""Output of `drasim simulate`: the Kubernetes List (json/yaml) and readable tables."""
from __future__ import annotations

import io

import yaml
from rich.console import Console
from rich.table import Table

from drasim.api import podclaims
from drasim.api.nesting import dumps_indented


def as_list(objects: list[dict]) -> dict:
    """The `List` kubectl prints for `get -o json` (conformance/README.md contract)."""
    return {"apiVersion": "v1", "kind": "List", "items": objects, "metadata": {"resourceVersion": ""}}


def render_json(objects: list[dict]) -> str:
    # json.dumps(indent=2), byte for byte, in linear time at any depth (drasim.api.nesting)
    return dumps_indented(as_list(objects), indent=2) + "\n"


def render_yaml(objects: list[dict]) -> str:
    return yaml.safe_dump(as_list(objects), sort_keys=False, default_flow_style=False)


def _devices(claim: dict) -> list[str]:
    results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
    return [f"{r['driver']}/{r['pool']}/{r['device']}" for r in results]


def _condition(pod: dict, type_: str) -> dict:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == type_:
            return c
    return {}


def pod_claims(pod: dict, claims: dict[tuple[str, str], dict]) -> list[tuple[str, dict | None]]:
    """(label, claim) for every claim the pod uses, the extended-resource claim last."""
    ns = pod["metadata"].get("namespace")
    out = []
    for entry, name, _ in podclaims.pod_claims(pod):
        out.append((name or f"<{entry['name']}: not created>", claims.get((ns, name)) if name else None))
    ext = (pod.get("status") or {}).get("extendedResourceClaimStatus")
    if ext:
        out.append((ext["resourceClaimName"], claims.get((ns, ext["resourceClaimName"]))))
    return out


def render_table(objects: list[dict], width: int = 160) -> str:
    by_kind: dict[str, list[dict]] = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)
    claims = {(c["metadata"].get("namespace"), c["metadata"]["name"]): c for c in by_kind.get("ResourceClaim", [])}
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, soft_wrap=False, markup=False)

    pods = Table(title="Pods", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "NAME", "NODE", "PHASE", "CLAIMS → DEVICES"):
        pods.add_column(col, overflow="fold")
    pending: list[tuple[str, str]] = []
    for pod in by_kind.get("Pod", []):
        md = pod["metadata"]
        parts = []
        for label, claim in pod_claims(pod, claims):
            devs = _devices(claim) if claim else []
            parts.append(f"{label}: {', '.join(devs) if devs else '(unallocated)'}")
        node = (pod.get("spec") or {}).get("nodeName") or "<none>"
        pods.add_row(md.get("namespace", ""), md["name"], node, (pod.get("status") or {}).get("phase", ""),
                     "\n".join(parts))
        cond = _condition(pod, "PodScheduled")
        if not (pod.get("spec") or {}).get("nodeName") and cond.get("status") == "False":
            pending.append((f"{md.get('namespace')}/{md['name']}", f"{cond.get('reason')}: {cond.get('message')}"))
    console.print(pods)

    table = Table(title="ResourceClaims", title_justify="left", show_edge=False)
    for col in ("NAMESPACE", "NAME", "STATE", "DEVICES", "RESERVED FOR"):
        table.add_column(col, overflow="fold")
    for claim in by_kind.get("ResourceClaim", []):
        status = claim.get("status") or {}
        reserved = [r.get("name", "") for r in status.get("reservedFor") or ()]
        state = "allocated,reserved" if reserved and status.get("allocation") else (
            "allocated" if status.get("allocation") else "pending")
        table.add_row(claim["metadata"].get("namespace", ""), claim["metadata"]["name"], state,
                      "\n".join(_devices(claim)), ", ".join(reserved))
    console.print()
    console.print(table)

    ext_rows = []
    for pod in by_kind.get("Pod", []):
        ext = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if not ext:
            continue
        claim = claims.get((pod["metadata"].get("namespace"), ext["resourceClaimName"]))
        results = (((claim or {}).get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", [])
        for m in ext.get("requestMappings") or ():
            devs = [f"{r['driver']}/{r['pool']}/{r['device']}" for r in results if r["request"] == m["requestName"]]
            ext_rows.append((f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}", m["containerName"],
                             m["resourceName"], ext["resourceClaimName"], m["requestName"], "\n".join(devs)))
    if ext_rows:
        t = Table(title="Extended resources served by DRA", title_justify="left", show_edge=False)
        for col in ("POD", "CONTAINER", "RESOURCE", "CLAIM", "REQUEST", "DEVICES"):
            t.add_column(col, overflow="fold")
        for row in ext_rows:
            t.add_row(*row)
        console.print()
        console.print(t)

    if pending:
        t = Table(title="Pending pods", title_justify="left", show_edge=False)
        t.add_column("POD")
        t.add_column("WHY", overflow="fold")
        for row in pending:
            t.add_row(*row)
        console.print()
        console.print(t)

    rules = by_kind.get("DeviceTaintRule", [])
    if rules:
        t = Table(title="DeviceTaintRules", title_justify="left", show_edge=False)
        for col in ("NAME", "EFFECT", "EVICTION IN PROGRESS", "MESSAGE"):
            t.add_column(col, overflow="fold")
        for rule in rules:
            cond = next((c for c in (rule.get("status") or {}).get("conditions") or ()
                         if c.get("type") == "EvictionInProgress"), {})
            t.add_row(rule["metadata"]["name"], ((rule.get("spec") or {}).get("taint") or {}).get("effect", ""),
                      f"{cond.get('status', '')} ({cond.get('reason', '')})" if cond else "",
                      cond.get("message", ""))
        console.print()
        console.print(t)
    return buf.getvalue()
