"""Reusing Filter verdicts and raw scores across pods with the same signature.

kube-scheduler re-runs every Filter plugin on every node it visits, for every
pod. A verdict is a pure function of what the pod asks for (its signature) and
of the node's state. The node's state is tracked by NodeInfo.generation, which
the SchedulerCache bumps (and logs) when pods are placed or removed, the node
changes, or a plugin with state beyond the node calls SchedulerCache.touch
(DynamicResources: a slice of the node's pools or an allocation in them
changed); touch_all() and node additions start a new epoch. Pods with the same
signature — all replicas of a workload — share one SignatureIndex
(nodeindex.py), which re-evaluates only logged nodes, and only when the window
reaches them. The decisions are identical: a scenario test compares runs with
the cache on and off.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from drasim.api.decodedjson import json_key
from drasim.scheduler.cache import SchedulerCache
from drasim.scheduler.nodeindex import SignatureIndex

_SPEC_IRRELEVANT = ("resourceClaims", "schedulerName", "terminationGracePeriodSeconds", "dnsPolicy",
                    "enableServiceLinks", "serviceAccountName", "hostname", "subdomain")
_CONTAINER_RELEVANT = ("resources", "ports", "restartPolicy")


def pod_spec_signature(pod: dict, alias: Callable[[str], str | None] | None = None) -> bytes | str:
    """The pod spec without what no simulated Filter/Score plugin reads (names, images, commands...).

    Conservative: every field not known to be irrelevant is part of the signature.
    Claims are left to DynamicResources' own signature. `alias` may replace an extended
    resource name by a token shared by names every plugin treats alike (see
    ControlPlane.resource_alias); a container where two names would share a token keeps its names.
    """
    spec = pod.get("spec") or {}
    reduced = {k: v for k, v in spec.items() if k not in _SPEC_IRRELEVANT
               and k not in ("containers", "initContainers")}
    for key in ("initContainers", "containers"):
        reduced[key] = [_container(c, alias) for c in spec.get(key) or ()]
    # Equal specs written alike give equal text (drasim/api/decodedjson.py: pods come decoded; the
    # renamed resources, lists of pairs, stand where decoded specs hold maps): anything else
    # only misses the cache.
    return json_key(reduced)


def _container(c: dict, alias) -> dict:
    out = {k: c[k] for k in _CONTAINER_RELEVANT if k in c}
    resources = out.get("resources")
    if alias is None or not isinstance(resources, dict) or not (resources.get("requests") or resources.get("limits")):
        return out
    renamed = {}
    for field in ("requests", "limits"):
        values = resources.get(field)
        if not isinstance(values, dict):
            continue
        tokens = {name: alias(name) or name for name in values}
        if len(set(tokens.values())) != len(tokens):
            return out
        renamed[field] = sorted((tokens[n], str(v)) for n, v in values.items())
    if renamed:
        out["resources"] = {**{k: v for k, v in resources.items() if k not in renamed}, **renamed}
    return out


class FilterCache:
    """SignatureIndexes by pod signature, least recently used dropped first."""

    def __init__(self, enabled: bool = True, max_signatures: int = 256) -> None:
        self.enabled = enabled
        self.max_signatures = max_signatures
        self._by_signature: OrderedDict = OrderedDict()
        self._epoch = -1

    def index(self, signature, cache: SchedulerCache, num_nodes: int) -> SignatureIndex | None:
        """The signature's index, brought up to date with the nodes changed since its last use."""
        if not self.enabled:
            return None
        if cache.epoch != self._epoch:
            self._by_signature.clear()
            self._epoch = cache.epoch
        idx = self._by_signature.get(signature)
        if idx is None:
            idx = self._by_signature[signature] = SignatureIndex(num_nodes, cache.change_count)
            if len(self._by_signature) > self.max_signatures:
                self._by_signature.popitem(last=False)
            return idx
        self._by_signature.move_to_end(signature)
        for info in cache.changes_since(idx.cursor):
            idx.mark_dirty(info.position)
        idx.cursor = cache.change_count
        return idx
