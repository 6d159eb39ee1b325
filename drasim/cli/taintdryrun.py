"""`drasim taint-dryrun RULE.yaml --cluster PHASE...`: what would this DeviceTaintRule do?

The answer an operator wants before switching a rule from None to NoExecute:
which devices it selects, which claims and pods it hits (and when, given their
tolerationSeconds), which pods tolerate it forever — and, for each pod that
would be evicted, whether it could be scheduled again right now (as a
controller re-creating it would find out) or would stay Pending.

How: the cluster is simulated as given; the rule's effect is read by the
eviction controller's own what-if (device-taints.md §8.3). Then a second,
identical simulation applies the rule as NoExecute, lets the evictions
happen, re-creates every evicted pod under its name and settles again.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from drasim.cli.render import terminal_width, tidy

from drasim.api import kinds
from drasim import admission
from drasim.api.loader import Document, load_paths
from drasim.controllers.devicetaintstatus import WhatIf, rule_what_if
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.store import clone


@dataclass(frozen=True)
class Replacement:
    pod: str
    node: str | None          # None: would stay Pending
    reason: str               # the PodScheduled message when Pending
    devices: tuple[str, ...]


def _rule_document(path: str) -> Document:
    docs = load_paths([path])
    rules = [d for d in docs if d.kind.kind == "DeviceTaintRule"]
    if len(rules) != 1 or len(docs) != 1:
        others = sorted({d.kind.kind for d in docs} - {"DeviceTaintRule"})
        extra = f" and {', '.join(others)} objects" if others else ""
        raise InputError(f"{path}: expected exactly one DeviceTaintRule and nothing else, "
                         f"found {len(rules)} DeviceTaintRule(s){extra}")
    return rules[0]


def _settled(phases: list[list[Document]], options: Options) -> ControlPlane:
    cp = ControlPlane(options)
    for docs in phases:
        cp.run_phase(docs)
    return cp


def _recreated(pod: dict) -> dict:
    """The pod a ReplicaSet-like owner would create again: same spec, not bound, fresh status."""
    new = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {k: clone(v) for k, v in pod["metadata"].items()
                        if k in ("name", "namespace", "labels", "ownerReferences")},
           "spec": clone(pod["spec"])}
    new["spec"].pop("nodeName", None)
    return new


def _devices_of(cp: ControlPlane, pod: dict) -> tuple[str, ...]:
    from drasim.cli.view import pod_claims
    claims = {(c["metadata"].get("namespace"), c["metadata"]["name"]): c for c in cp.store.list("ResourceClaim")}
    out = []
    for _, claim in pod_claims(pod, claims):
        for r in (((claim or {}).get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", []):
            out.append(f"{r['driver']}/{r['pool']}/{r['device']}")
    return tuple(out)


def what_if(rule_path: str, cluster: list[str], options: Options = Options()) -> tuple[dict, WhatIf, list[Replacement]]:
    rule_doc = _rule_document(rule_path)
    phases = [load_paths([p]) for p in cluster]
    before = _settled(phases, options)
    pristine = before.fork()   # the settled cluster again, without re-running its phases
    store = before.store
    # The rule as the API server would store it: decoded, defaulted and validated (a bad rule is
    # an error here, not only when its dry run happens to evict a pod).
    rule = admission.prepare(store, rule_doc.kind, rule_doc.obj, store.get("DeviceTaintRule", None,
                             rule_doc.obj["metadata"].get("name")), rule_doc.source,
                             gates=options.gates)
    result = rule_what_if(rule, pods=store.list("Pod"), claims=store.list("ResourceClaim"),
                          slices=store.list("ResourceSlice"))
    replacements: list[Replacement] = []
    if result.evicted_pods:
        after = pristine
        gone = {p.pod: clone(after.store.get("Pod", *p.pod.split("/", 1))) for p in result.evicted_pods}
        forced = clone(rule)
        forced.setdefault("spec", {}).setdefault("taint", {})["effect"] = "NoExecute"
        forced["spec"]["taint"].pop("timeAdded", None)
        after.run_phase([Document(rule_doc.source, rule_doc.kind, forced)])
        again = [Document(f"re-created {key}", kinds.POD, _recreated(pod))
                 for key, pod in gone.items() if pod is not None and after.store.get("Pod", *key.split("/", 1)) is None]
        after.run_phase(again)
        for key in gone:
            pod = after.store.get("Pod", *key.split("/", 1))
            if pod is None:
                continue
            node = pod["spec"].get("nodeName")
            reason = ""
            if not node:
                cond = next((c for c in (pod.get("status") or {}).get("conditions") or ()
                             if c.get("type") == "PodScheduled"), {})
                reason = cond.get("message", "")
            replacements.append(Replacement(key, node, reason, _devices_of(after, pod)))
    return rule, result, replacements


def render_table(rule: dict, result: WhatIf, replacements: list[Replacement]) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=terminal_width(), no_color=True, highlight=False, markup=False)
    effect = ((rule.get("spec") or {}).get("taint") or {}).get("effect")
    console.print(f"DeviceTaintRule {rule['metadata']['name']} (effect {effect}), as if NoExecute:")
    console.print(result.message())
    console.print()
    t = Table(title="Devices selected", title_justify="left", show_edge=False)
    for col in ("DEVICE", "ALLOCATED TO"):
        t.add_column(col)
    allocated: dict[tuple, list[str]] = {}
    for d in result.allocated_devices:
        allocated.setdefault(tuple(d.device), []).append(f"{d.claim} ({d.request})")
    for dev in result.published_devices:
        t.add_row("/".join(dev), ", ".join(allocated.get(tuple(dev), [])))
    console.print(t)
    t = Table(title="Pods", title_justify="left", show_edge=False)
    for col in ("POD", "OUTCOME", "WHEN", "WHY", "RESCHEDULED NOW"):
        t.add_column(col, overflow="fold")
    by_pod = {r.pod: r for r in replacements}
    for p in result.evicted_pods:
        r = by_pod.get(p.pod)
        again = "" if r is None else (f"{r.node} ({', '.join(r.devices)})" if r.node else f"stays Pending: {r.reason}")
        t.add_row(p.pod, "evicted", f"+{p.after_seconds}s", p.reason, again)
    for p in result.tolerating_pods:
        t.add_row(p.pod, "tolerates forever", "", ", ".join(p.claims), "")
    console.print()
    console.print(t)
    return tidy(buf.getvalue())


def render_json(rule: dict, result: WhatIf, replacements: list[Replacement]) -> str:
    out = {
        "rule": rule["metadata"]["name"],
        "message": result.message(),
        "publishedDevices": ["/".join(d) for d in result.published_devices],
        "allocatedDevices": [{"claim": d.claim, "request": d.request, "device": "/".join(d.device)}
                             for d in result.allocated_devices],
        "claims": list(result.claims_hit),
        "evictedPods": [{"pod": p.pod, "afterSeconds": p.after_seconds, "reason": p.reason,
                         "claims": list(p.claims)} for p in result.evicted_pods],
        "toleratingPods": [{"pod": p.pod, "claims": list(p.claims)} for p in result.tolerating_pods],
        "rescheduled": [{"pod": r.pod, "node": r.node, "reason": r.reason, "devices": list(r.devices)}
                        for r in replacements],
    }
    return json.dumps(out, indent=2) + "\n"
