"""InterPodAffinity: required and preferred pod affinity and anti-affinity.

k8s: pkg/scheduler/framework/plugins/interpodaffinity/{plugin,filtering,scoring}.go,
     pkg/scheduler/framework/types.go (AffinityTerm, NewPodInfo).

Filter, in this order: the incoming pod's required affinity (every term's topology
key on the node, and some existing pod matching all terms in the node's domain, unless
no pod anywhere matches and the pod matches its own terms), its required anti-affinity
(no matching pod in the node's domain of any term), and existing pods' required
anti-affinity (no existing pod whose term matches the incoming pod shares a domain).

Score: per topology domain, + weight for each preferred affinity term of the incoming
pod an existing pod matches, - weight for anti-affinity; the same for existing pods'
preferred terms matching the incoming pod, and + hardPodAffinityWeight for their
required affinity terms. Normalized to 0..100 between the lowest and highest node.

Namespaces: a term applies to `namespaces`, plus the namespaces its namespaceSelector
selects; with neither, to the pod's own namespace. kube-scheduler lists the Namespace
objects a selector matches; drasim asks `namespace_labels(name)` for the labels of the
namespace an existing pod is in (same result for every namespace that exists).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, ClassVar

from drasim.api.labelselector import LabelSelector, LabelSelectorError, compile_label_selector
from drasim.scheduler.framework import (
    MAX_NODE_SCORE, SKIP, CycleState, NodeInfo, PreFilterResult, Status, error_status, unresolvable,
    unschedulable)
from drasim.scheduler.plugins.names import INTER_POD_AFFINITY

__all__ = ["ERR_REASON_AFFINITY_RULES_NOT_MATCH", "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
           "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH", "InterPodAffinity"]

# k8s: filtering.go, verbatim.
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
_REJECTED_AFFINITY = unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_REJECTED_ANTI = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_REJECTED_EXISTING = unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

_PRE_FILTER_KEY = "PreFilter" + INTER_POD_AFFINITY
_PRE_SCORE_KEY = "PreScore" + INTER_POD_AFFINITY
_ALL_NODES_KEY = "AllNodes" + INTER_POD_AFFINITY

NamespaceLabels = Callable[[str], dict]


def _no_namespace_labels(name: str) -> dict:
    return {}


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """k8s: framework.AffinityTerm — a parsed v1.PodAffinityTerm."""

    namespaces: frozenset[str]
    selector: LabelSelector
    topology_key: str
    namespace_selector: LabelSelector

    def matches(self, namespace: str, labels: dict, ns_labels: NamespaceLabels) -> bool:
        """k8s: AffinityTerm.Matches — the pod's namespace is covered and its labels selected."""
        if namespace not in self.namespaces:
            ns_sel = self.namespace_selector
            if ns_sel.nothing or not (ns_sel.empty or ns_sel.matches(ns_labels(namespace))):
                return False
        return self.selector.matches(labels)


def _term(namespace: str, term: dict) -> AffinityTerm:
    """k8s: types.go newAffinityTerm, getNamespacesFromPodAffinityTerm."""
    selector = compile_label_selector(term.get("labelSelector"))
    names = term.get("namespaces") or ()
    ns_selector = term.get("namespaceSelector")
    namespaces = frozenset((namespace,)) if not names and ns_selector is None else frozenset(names)
    return AffinityTerm(namespaces, selector, term.get("topologyKey") or "", compile_label_selector(ns_selector))


@dataclass(frozen=True, slots=True)
class PodTerms:
    """The parsed pod (anti-)affinity of one pod (k8s: the term fields of framework.PodInfo)."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[tuple[int, AffinityTerm], ...] = ()
    preferred_anti: tuple[tuple[int, AffinityTerm], ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.required_affinity or self.required_anti or self.preferred_affinity or self.preferred_anti)


_NO_TERMS = PodTerms()


def parse_pod_terms(pod: dict, strict: bool) -> PodTerms:
    """k8s: types.go PodInfo.Update. A list with a bad selector is dropped (existing pods,
    whose parse errors kube-scheduler ignores) or raises LabelSelectorError (strict)."""
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    pa, paa = affinity.get("podAffinity"), affinity.get("podAntiAffinity")
    if not pa and not paa:
        return _NO_TERMS
    ns = pod["metadata"].get("namespace") or ""
    out = []
    required, preferred = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"
    for part, field, weighted, what in ((pa, required, False, "requiredAffinityTerms"),
                                        (paa, required, False, "requiredAntiAffinityTerms"),
                                        (pa, preferred, True, "preferredAffinityTerms"),
                                        (paa, preferred, True, "preferredAntiAffinityTerms")):
        terms = (part or {}).get(field) or ()
        try:
            if weighted:
                out.append(tuple((int(t.get("weight") or 0), _term(ns, t.get("podAffinityTerm") or {}))
                                 for t in terms))
            else:
                out.append(tuple(_term(ns, t) for t in terms))
        except LabelSelectorError as err:
            if strict:
                raise LabelSelectorError(f"{what}: {err}") from None
            out.append(())
    return PodTerms(*out)


# Parsed terms of existing pods, by identity of their spec.affinity (kept alive while cached).
_PARSED: OrderedDict[int, tuple[dict, PodTerms]] = OrderedDict()
_PARSED_MAX = 8192


def _existing_terms(pod: dict) -> PodTerms:
    affinity = pod["spec"].get("affinity")
    if not affinity or not (affinity.get("podAffinity") or affinity.get("podAntiAffinity")):
        return _NO_TERMS
    hit = _PARSED.get(id(affinity))
    if hit is not None and hit[0] is affinity:
        return hit[1]
    terms = parse_pod_terms(pod, strict=False)
    _PARSED[id(affinity)] = (affinity, terms)
    if len(_PARSED) > _PARSED_MAX:
        _PARSED.popitem(last=False)
    return terms


class _ExistingPods:
    """Pods with pod (anti-)affinity, per node (k8s: NodeInfo.PodsWithAffinity and
    PodsWithRequiredAntiAffinity, HavePodsWithAffinityList).

    Refreshed from node generations, or only from the nodes changed since the last
    refresh when a change log (SchedulerCache: epoch, change_count, changes_since) is given.
    """

    def __init__(self, change_log=None) -> None:
        self._log = change_log
        self._cursor = -1
        self._epoch = -1
        self._list: list[NodeInfo] | None = None
        self.nodes: dict[str, tuple[NodeInfo, int, tuple[PodTerms, ...]]] = {}
        self.count = 0   # existing pods with any pod (anti-)affinity term

    def refresh(self, nodes: list[NodeInfo]) -> None:
        log = self._log
        if log is not None and nodes is self._list and log.epoch == self._epoch:
            if log.change_count != self._cursor:
                for info in {id(i): i for i in log.changes_since(self._cursor)}.values():
                    self._update(info)
                self._cursor = log.change_count
            return
        if nodes is not self._list:
            names = {i.name for i in nodes}
            for gone in [n for n in self.nodes if n not in names]:
                self.count -= len(self.nodes.pop(gone)[2])
        for info in nodes:
            entry = self.nodes.get(info.name)
            if entry is None or entry[0] is not info or entry[1] != info.generation:
                self._update(info)
        self._list = nodes
        if log is not None:
            self._epoch, self._cursor = log.epoch, log.change_count

    def _update(self, info: NodeInfo) -> None:
        old = self.nodes.get(info.name)
        if old is not None:
            self.count -= len(old[2])
        terms = tuple(t for t in (_existing_terms(p) for p in info.with_affinity.values()) if t.any)
        self.nodes[info.name] = (info, info.generation, terms)
        self.count += len(terms)


class _NamespaceLabelsMemo:
    """Namespace labels looked up once per cycle (k8s: GetNamespaceLabelsSnapshot)."""

    __slots__ = ("_lookup", "_seen")

    def __init__(self, lookup: NamespaceLabels) -> None:
        self._lookup, self._seen = lookup, {}

    def __call__(self, name: str) -> dict:
        labels = self._seen.get(name)
        if labels is None:
            labels = self._seen[name] = dict(self._lookup(name) or {})
        return labels


@dataclass(slots=True)
class _PreFilterState:
    terms: PodTerms
    affinity_counts: dict[tuple[str, str], int]
    anti_counts: dict[tuple[str, str], int]
    existing_anti_counts: dict[tuple[str, str], int]
    matches_own_affinity: bool


def _credit_matching(scores: dict, node_labels: dict, weighted_terms, who: tuple[str, dict],
                     ns_labels, sign: int) -> None:
    """Each (weight, term) whose selector matches the pod `who` (namespace, labels) adds
    sign*weight to the node's topology domain."""
    ns, labels = who
    for weight, term in weighted_terms:
        if term.matches(ns, labels, ns_labels):
            _credit(scores, node_labels, term.topology_key, sign * weight)


def _add(counts: dict, labels: dict, key: str) -> None:
    value = labels.get(key)
    if value is not None:
        pair = (key, value)
        counts[pair] = counts.get(pair, 0) + 1


class InterPodAffinity:
    """Pod (anti-)affinity: Filter on required terms, Score on preferred ones."""

    name: ClassVar[str] = INTER_POD_AFFINITY

    def __init__(self, weight: int = 2, *, hard_pod_affinity_weight: int = 1,
                 ignore_preferred_terms_of_existing_pods: bool = False,
                 namespace_labels: NamespaceLabels | None = None, change_log=None) -> None:
        """`namespace_labels(name)` returns a Namespace's labels ({} when unknown); `change_log`
        is the SchedulerCache (optional: makes the per-cycle refresh O(changed nodes))."""
        if not 0 <= hard_pod_affinity_weight <= 100:   # k8s: ValidateInterPodAffinityArgs
            raise ValueError(f"hardPodAffinityWeight: Invalid value: {hard_pod_affinity_weight}: "
                             "not in valid range [0-100]")
        self.weight = weight
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods
        self._namespace_labels = namespace_labels or _no_namespace_labels
        self._existing = _ExistingPods(change_log)

    def depends_on_other_pods(self, pod: dict) -> bool:
        """Whether Filter or Score may look at other pods: the pod has pod (anti-)affinity terms,
        or some existing pod has any (as of this cycle's PreFilter). Namespaces and selectors of
        existing pods' terms are not checked: any such pod counts."""
        if self._existing.count:
            return True
        affinity = (pod.get("spec") or {}).get("affinity") or {}
        return bool(_has_terms(affinity.get("podAffinity")) or _has_terms(affinity.get("podAntiAffinity")))

    # -- filtering ---------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        existing = self._existing
        existing.refresh(nodes)
        state[_ALL_NODES_KEY] = nodes
        try:
            terms = parse_pod_terms(pod, strict=True)
        except LabelSelectorError as err:
            return None, unresolvable(f"parsing pod: {err}")
        if not existing.count and not terms.required_affinity and not terms.required_anti:
            state[_PRE_FILTER_KEY] = None
            return None, SKIP
        md = pod["metadata"]
        ns, labels = md.get("namespace") or "", md.get("labels") or {}
        ns_labels = _NamespaceLabelsMemo(self._namespace_labels)
        existing_anti: dict[tuple[str, str], int] = {}
        for info, _, pod_terms in existing.nodes.values():
            node_labels = info.node["metadata"].get("labels") or {}
            for t in pod_terms:
                for term in t.required_anti:   # k8s: getExistingAntiAffinityCounts
                    if term.matches(ns, labels, ns_labels):
                        _add(existing_anti, node_labels, term.topology_key)
        affinity, anti = _incoming_counts(terms, nodes, ns_labels)
        if not existing_anti and not terms.required_affinity and not terms.required_anti:
            state[_PRE_FILTER_KEY] = None
            return None, SKIP
        own = bool(terms.required_affinity) and all(
            t.matches(ns, labels, ns_labels) for t in terms.required_affinity)
        state[_PRE_FILTER_KEY] = _PreFilterState(terms, affinity, anti, existing_anti, own)
        return None, None

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        s: _PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if s is None:
            return None   # PreFilter skipped: nothing constrains this pod
        labels = node.node["metadata"].get("labels") or {}
        if s.terms.required_affinity and not _satisfies_affinity(s, labels):
            return _REJECTED_AFFINITY
        if s.anti_counts:
            for term in s.terms.required_anti:
                value = labels.get(term.topology_key)
                if value is not None and s.anti_counts.get((term.topology_key, value), 0) > 0:
                    return _REJECTED_ANTI
        for key, value in s.existing_anti_counts:
            if labels.get(key) == value:
                return _REJECTED_EXISTING
        return None

    # -- scoring -----------------------------------------------------------

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        try:
            terms = parse_pod_terms(pod, strict=True)
        except LabelSelectorError as err:
            return error_status(f"failed to parse pod: {err}")
        has_preferred = bool(terms.preferred_affinity or terms.preferred_anti)
        if self.ignore_preferred_terms_of_existing_pods and not has_preferred:
            return SKIP
        all_nodes = state.get(_ALL_NODES_KEY)
        if all_nodes is None:   # PreFilter did not run in this cycle
            all_nodes = nodes
            self._existing.refresh(all_nodes)
        if not has_preferred and not self._existing.count:
            return SKIP
        md = pod["metadata"]
        incoming = (md.get("namespace") or "", md.get("labels") or {})
        ns_labels = _NamespaceLabelsMemo(self._namespace_labels)
        scores: dict[str, dict[str, int]] = {}
        if has_preferred:   # every pod of every node
            for info in all_nodes:
                node_labels = info.node["metadata"].get("labels") or {}
                if node_labels:
                    for p in info.pods.values():
                        self._score_existing(scores, terms, p, _existing_terms(p), node_labels, incoming, ns_labels)
        else:               # only pods with affinity
            for info, _, pod_terms in self._existing.nodes.values():
                node_labels = info.node["metadata"].get("labels") or {}
                if node_labels:
                    for t in pod_terms:
                        self._score_existing(scores, terms, None, t, node_labels, incoming, ns_labels)
        if not scores:
            return SKIP
        state[_PRE_SCORE_KEY] = scores
        return None

    def _score_existing(self, scores: dict, terms: PodTerms, existing: dict | None, existing_terms: PodTerms,
                        node_labels: dict, incoming: tuple[str, dict], ns_labels: NamespaceLabels) -> None:
        """k8s: scoring.go processExistingPod."""
        if existing is not None:
            emd = existing["metadata"]
            who = (emd.get("namespace") or "", emd.get("labels") or {})
            _credit_matching(scores, node_labels, terms.preferred_affinity, who, ns_labels, +1)
            _credit_matching(scores, node_labels, terms.preferred_anti, who, ns_labels, -1)
        hard = self.hard_pod_affinity_weight
        if hard > 0:
            _credit_matching(scores, node_labels, [(hard, t) for t in existing_terms.required_affinity],
                             incoming, ns_labels, +1)
        _credit_matching(scores, node_labels, existing_terms.preferred_affinity, incoming, ns_labels, +1)
        _credit_matching(scores, node_labels, existing_terms.preferred_anti, incoming, ns_labels, -1)

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        labels = node.node["metadata"].get("labels") or {}
        total = 0
        for key, values in state[_PRE_SCORE_KEY].items():
            value = labels.get(key)
            if value is not None:
                total += values.get(value, 0)
        return total

    def normalize(self, state: CycleState, pod: dict, scores: list[int]) -> None:
        """k8s: NormalizeScore — linear from the lowest (0) to the highest (100); all equal → 0."""
        if not scores:
            return
        low, high = min(scores), max(scores)
        diff = high - low
        for i, s in enumerate(scores):
            scores[i] = int(MAX_NODE_SCORE * ((s - low) / diff)) if diff > 0 else 0


def _has_terms(part: dict | None) -> bool:
    if not part:
        return False
    return bool(part.get("requiredDuringSchedulingIgnoredDuringExecution")
                or part.get("preferredDuringSchedulingIgnoredDuringExecution"))


def _credit(scores: dict, node_labels: dict, key: str, amount: int) -> None:
    value = node_labels.get(key)
    if value is not None:
        domain = scores.setdefault(key, {})
        domain[value] = domain.get(value, 0) + amount


def _incoming_counts(terms: PodTerms, nodes: list[NodeInfo], ns_labels: NamespaceLabels) -> tuple[dict, dict]:
    """k8s: getIncomingAffinityAntiAffinityCounts — per domain, existing pods matching ALL the
    affinity terms (counted once per term's key) and pods matching each anti-affinity term."""
    affinity: dict[tuple[str, str], int] = {}
    anti: dict[tuple[str, str], int] = {}
    required, required_anti = terms.required_affinity, terms.required_anti
    if not required and not required_anti:
        return affinity, anti
    for info in nodes:
        node_labels = info.node["metadata"].get("labels") or {}
        for p in info.pods.values():
            md = p["metadata"]
            ns, labels = md.get("namespace") or "", md.get("labels") or {}
            if required and all(t.matches(ns, labels, ns_labels) for t in required):
                for t in required:
                    _add(affinity, node_labels, t.topology_key)
            for t in required_anti:
                if t.matches(ns, labels, ns_labels):
                    _add(anti, node_labels, t.topology_key)
    return affinity, anti


def _satisfies_affinity(s: _PreFilterState, labels: dict) -> bool:
    """k8s: satisfyPodAffinity. Every term's key must be on the node; a pod matching its own
    terms may start the group when no pod anywhere matches them yet."""
    pods_exist = True
    for term in s.terms.required_affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return False
        if s.affinity_counts.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    return pods_exist or (not s.affinity_counts and s.matches_own_affinity)
