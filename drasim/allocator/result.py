"""The `status.allocation` of one claim: results, configs and node selector (spec §18).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/allocator_incubating.go
(end of Allocate, createNodeSelector).
"""
from __future__ import annotations

from drasim.allocator.requests import PreparedClaim, ReqData
from drasim.allocator.search import Pick
from drasim.errors import AllocationError


def build_allocation(claim: PreparedClaim, picks: list[Pick], chosen: list[ReqData], node_name: str,
                     with_binding: bool, with_groups: bool = False) -> dict:
    """*chosen*: per request of the claim, the request data used (the selected subrequest)."""
    devices: dict = {"results": [_result(p, with_binding, with_groups) for p in picks]}
    config = _class_configs(chosen) + _claim_configs(claim, chosen)
    _clear_requests_covering_all(config, claim, chosen)
    if config:
        devices["config"] = config
    allocation: dict = {"devices": devices}
    selector = _node_selector(claim, picks, node_name)
    if selector is not None:
        allocation["nodeSelector"] = selector
    return allocation


def _result(pick: Pick, with_binding: bool, with_groups: bool) -> dict:
    rd, dev = pick.rd, pick.dev
    out = {"request": rd.result_name, "driver": dev.driver, "pool": dev.pool, "device": dev.name}
    if rd.admin:
        out["adminAccess"] = True
    if rd.tolerations:
        out["tolerations"] = [dict(t) for t in rd.tolerations]
    if with_binding:
        if dev.binding_conditions:
            out["bindingConditions"] = list(dev.binding_conditions)
        if dev.binding_failure_conditions:
            out["bindingFailureConditions"] = list(dev.binding_failure_conditions)
    if pick.share_id is not None:
        out["shareID"] = pick.share_id
    if pick.consumed:
        out["consumedCapacity"] = {name: q.canonical() for name, q in sorted(pick.consumed.items())}
    if with_groups and dev.compat_snapshot:  # KEP-5963: consulted by later allocations on the counter set
        out["compatibilityGroups"] = {k: list(v) for k, v in dev.compat_snapshot.items()}
    return out


def _config_entry(source: str, requests: list[str] | None, config: dict) -> dict:
    entry: dict = {"source": source}
    if requests:
        entry["requests"] = list(requests)
    for key, value in config.items():
        if key != "requests":
            entry[key] = value
    return entry


def _class_configs(chosen: list[ReqData]) -> list[dict]:
    """Each used class's configs once, listing the requests that used it (§18.2)."""
    out: list[dict] = []
    ranges: dict[str, tuple[int, int]] = {}
    for rd in chosen:
        klass = rd.klass
        if klass.name in ranges:
            begin, end = ranges[klass.name]
            for entry in out[begin:end]:
                entry["requests"].append(rd.result_name)
            continue
        begin = len(out)
        for config in klass.config:
            out.append(_config_entry("FromClass", [rd.result_name], config))
        ranges[klass.name] = (begin, len(out))
    return out


def _claim_configs(claim: PreparedClaim, chosen: list[ReqData]) -> list[dict]:
    out: list[dict] = []
    configs = ((claim.claim.get("spec") or {}).get("devices") or {}).get("config") or ()
    for config in configs:
        requests = config.get("requests") or []
        if not requests:
            out.append(_config_entry("FromClaim", None, config))
            continue
        for request, rd in zip(claim.spec_requests, chosen):
            name = request.get("name", "")
            if name in requests or (rd.parent is not None and rd.result_name in requests):
                out.append(_config_entry("FromClaim", requests, config))
                break
    return out


def _clear_requests_covering_all(config: list[dict], claim: PreparedClaim, chosen: list[ReqData]) -> None:
    """A config that applies to every request is written without `requests` ("empty means all")."""
    for entry in config:
        requests = entry.get("requests")
        if not requests:
            continue
        if all(request.get("name", "") in requests or (rd.parent is not None and rd.result_name in requests)
               for request, rd in zip(claim.spec_requests, chosen)):
            del entry["requests"]


def _node_selector(claim: PreparedClaim, picks: list[Pick], node_name: str) -> dict | None:
    """createNodeSelector (§18.3): node-local anywhere -> pin to the node; else merge single terms."""
    fields: list[dict] = []
    expressions: list[dict] = []
    for pick in picks:
        dev, slice_ = pick.dev, pick.slice
        if slice_.per_device:
            name, selector = dev.node_name, dev.node_selector
        else:
            name, selector = slice_.node_name, slice_.node_selector
        if name or dev.binds_to_node:
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
        if selector is None:
            continue
        terms = selector.get("nodeSelectorTerms") or []
        if len(terms) > 1:
            meta = claim.claim.get("metadata") or {}
            raise AllocationError(f"create NodeSelector for claim {meta.get('name', '')}: "
                                  f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
        if terms:
            _merge(terms[0].get("matchFields") or (), fields)
            _merge(terms[0].get("matchExpressions") or (), expressions)
    if not fields and not expressions:
        return None  # usable everywhere
    term: dict = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def _merge(new: list[dict], into: list[dict]) -> None:
    for req in new:
        values = set(req.get("values") or ())
        if not any(r.get("key") == req.get("key") and r.get("operator") == req.get("operator")
                   and set(r.get("values") or ()) == values for r in into):
            into.append(dict(req))
