"""InterPodAffinity plugin (k8s: plugins/interpodaffinity/{filtering,scoring}_test.go, re-expressed)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState
from drasim.scheduler.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, InterPodAffinity)
from plugin_builders import expr, info, node, pod

SEC = {"service": "securityscan"}
REQ, PREF = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"


def aterm(key="region", selector=None, namespaces=None, ns_selector=None, weight=None):
    t = {"topologyKey": key, "labelSelector": selector if selector is not None else
         {"matchExpressions": [expr("service", "In", "securityscan", "value2")]}}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t if weight is None else {"weight": weight, "podAffinityTerm": t}


def apod(name, labels=None, namespace="default", affinity=None, anti=None, pref=None, pref_anti=None):
    """A pod with labels and pod (anti-)affinity: lists of required / preferred terms."""
    p = pod(name)
    p["metadata"].update(labels=dict(labels or {}), namespace=namespace)
    aff = {}
    if affinity or pref:
        aff["podAffinity"] = {k: v for k, v in ((REQ, affinity), (PREF, pref)) if v}
    if anti or pref_anti:
        aff["podAntiAffinity"] = {k: v for k, v in ((REQ, anti), (PREF, pref_anti)) if v}
    if aff:
        p["spec"]["affinity"] = aff
    return p


def rnode(name, **labels):
    return node(name, labels=labels)


FIT = None
AFF = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = (Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING = (Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
NS_LABELS = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}


def run_filter(p, nodes, plugin=None):
    plugin, state = plugin or InterPodAffinity(namespace_labels=NS_LABELS.get), CycleState()
    _, status = plugin.pre_filter(state, p, nodes)
    if status is not None and status.is_skip:
        return "skip"
    assert status is None
    out = []
    for n in nodes:
        s = plugin.filter(state, p, n)
        out.append(None if s is None else (s.code, s.message()))
    return out


N1 = rnode("machine1", region="r1", zone="z11")
N2 = rnode("machine2", region="r1", zone="z12")
N3 = rnode("machine3", region="r2", zone="z21")


@pytest.mark.parametrize(("p", "existing", "want"), [
    pytest.param(apod("p"), {"machine1": [apod("e", SEC)]}, "skip", id="no-terms-anywhere-skips"),
    pytest.param(apod("p", affinity=[aterm()]), {"machine1": [apod("e", SEC)]}, [FIT, FIT, AFF],
                 id="affinity-in-matches-existing-pod-region"),
    pytest.param(apod("p", affinity=[aterm(selector={"matchExpressions": [expr("service", "NotIn", "a", "b")]})]),
                 {"machine1": [apod("e", SEC)]}, [FIT, FIT, AFF], id="affinity-notin"),
    pytest.param(apod("p", affinity=[aterm(namespaces=["other"])]), {"machine1": [apod("e", SEC)]},
                 [AFF, AFF, AFF], id="affinity-other-namespace"),
    pytest.param(apod("p", affinity=[aterm(selector={"matchLabels": {"service": "x"}})]),
                 {"machine1": [apod("e", SEC)]}, [AFF, AFF, AFF], id="affinity-selector-unmatched"),
    pytest.param(apod("p", affinity=[aterm(), aterm("zone")]), {"machine1": [apod("e", SEC)]},
                 [FIT, AFF, AFF], id="affinity-terms-all-required"),
    pytest.param(apod("p", affinity=[aterm(selector={"matchExpressions": [
        expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), expr("service", "In", "x")]})]),
                 {"machine1": [apod("e", SEC)]}, [AFF, AFF, AFF], id="affinity-expressions-anded"),
    pytest.param(apod("p", affinity=[aterm()], anti=[aterm("zone", {"matchLabels": {"service": "other"}})]),
                 {"machine1": [apod("e", SEC), apod("o", {"service": "other"})]}, [ANTI, FIT, AFF],
                 id="affinity-and-anti-affinity"),
    pytest.param(apod("p", SEC), {"machine1": [apod("e", anti=[aterm("zone")])]}, [EXISTING, FIT, FIT],
                 id="existing-pod-anti-affinity-respected"),
    pytest.param(apod("p", SEC), {"machine1": [apod("e", anti=[aterm("region")])]}, [EXISTING, EXISTING, FIT],
                 id="existing-pod-anti-affinity-whole-region"),
    pytest.param(apod("p", {"service": "other"}), {"machine1": [apod("e", anti=[aterm("zone")])]}, "skip",
                 id="existing-anti-affinity-not-matching-skips"),
    pytest.param(apod("p", SEC, affinity=[aterm()]), {"machine1": [apod("e", {"x": "y"})]}, [FIT, FIT, FIT],
                 id="first-pod-of-group-matches-itself"),
    pytest.param(apod("p", {"x": "y"}, affinity=[aterm()]), {}, [AFF, AFF, AFF],
                 id="first-pod-not-matching-itself"),
    pytest.param(apod("p", SEC, affinity=[aterm("rack")]), {}, [AFF, AFF, AFF],
                 id="first-pod-needs-topology-key-on-node"),
    pytest.param(apod("p", SEC, anti=[aterm("zone")]), {"machine2": [apod("e", SEC)]}, [FIT, ANTI, FIT],
                 id="anti-affinity-zone"),
    pytest.param(apod("p", namespace="team-a", affinity=[aterm(ns_selector={"matchLabels": {"team": "b"}})]),
                 {"machine3": [apod("e", SEC, namespace="team-b")]}, [AFF, AFF, FIT],
                 id="namespace-selector-selects-namespace"),
    pytest.param(apod("p", namespace="team-a", affinity=[aterm(ns_selector={"matchLabels": {"team": "c"}})]),
                 {"machine3": [apod("e", SEC, namespace="team-b")]}, [AFF, AFF, AFF],
                 id="namespace-selector-no-namespace"),
    pytest.param(apod("p", namespace="team-a", affinity=[aterm(ns_selector={})]),
                 {"machine3": [apod("e", SEC, namespace="team-b")]}, [AFF, AFF, FIT],
                 id="empty-namespace-selector-all-namespaces"),
    pytest.param(apod("p", SEC, namespace="team-a"),
                 {"machine1": [apod("e", namespace="team-b", anti=[aterm("zone", ns_selector={"matchLabels":
                                                                                          {"team": "a"}})])]},
                 [EXISTING, FIT, FIT], id="existing-anti-affinity-namespace-selector"),
])
def test_filter(p, existing, want):
    """Required affinity, required anti-affinity, then existing pods' anti-affinity, per topology domain."""
    nodes = [info(n, *existing.get(n["metadata"]["name"], ())) for n in (N1, N2, N3)]
    assert run_filter(p, nodes) == want


def test_parse_error_is_unresolvable():
    """A selector LabelSelectorAsSelector refuses rejects the pod in PreFilter."""
    p = apod("p", affinity=[aterm(selector={"matchExpressions": [expr("a", "Bogus")]})])
    _, status = InterPodAffinity().pre_filter(CycleState(), p, [info(N1)])
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message().startswith("parsing pod: requiredAffinityTerms:")


def test_depends_on_other_pods():
    """A pod depends on other pods when it has terms, or any existing pod has some."""
    plugin = InterPodAffinity()
    plugin.pre_filter(CycleState(), apod("p"), [info(N1, apod("e"))])
    assert not plugin.depends_on_other_pods(apod("p"))
    assert plugin.depends_on_other_pods(apod("p", pref=[aterm(weight=1)]))
    plugin.pre_filter(CycleState(), apod("p"), [info(N1, apod("e", pref_anti=[aterm(weight=1)]))])
    assert plugin.depends_on_other_pods(apod("p"))


class _Log:
    """A SchedulerCache-shaped change log."""

    def __init__(self):
        self.epoch, self.changes = 0, []

    @property
    def change_count(self):
        return len(self.changes)

    def changes_since(self, cursor):
        return self.changes[cursor:]


def test_change_log_refresh():
    """With a change log, only logged nodes are re-read; a new anti-affinity pod is seen."""
    log, nodes = _Log(), [info(N1), info(N2)]
    plugin = InterPodAffinity(change_log=log)
    assert run_filter(apod("p", SEC), nodes, plugin) == "skip"
    nodes[1].add_pod(apod("e", anti=[aterm("zone")]))
    log.changes.append(nodes[1])
    assert run_filter(apod("p", SEC), nodes, plugin) == [FIT, EXISTING]


def run_score(p, existing, nodes=(N1, N2, N3), **kw):
    plugin, state = InterPodAffinity(namespace_labels=NS_LABELS.get, **kw), CycleState()
    infos = [info(n, *existing.get(n["metadata"]["name"], ())) for n in nodes]
    plugin.pre_filter(state, p, infos)
    status = plugin.pre_score(state, p, infos)
    if status is not None and status.is_skip:
        return None
    scores = [plugin.score(state, p, n) for n in infos]
    plugin.normalize(state, p, scores)
    return scores


@pytest.mark.parametrize(("p", "existing", "kw", "want"), [
    pytest.param(apod("p", pref=[aterm(weight=5)]), {"machine1": [apod("e", {"x": "y"})]}, {}, None,
                 id="nothing-matches-skips"),
    pytest.param(apod("p", pref=[aterm(weight=5)]), {"machine1": [apod("e", SEC)]}, {}, [100, 100, 0],
                 id="affinity-region"),
    pytest.param(apod("p", pref=[aterm(weight=5), aterm("zone", weight=3)]),
                 {"machine1": [apod("e", SEC)], "machine3": [apod("f", SEC)]}, {}, [100, 0, 100],
                 id="affinity-weights-add"),   # raw 8 (r1+z11), 5 (r1), 8 (r2+z21)
    pytest.param(apod("p", pref=[aterm(weight=5), aterm("zone", weight=3)]),
                 {"machine1": [apod("e", SEC)]}, {}, [100, 62, 0],
                 id="affinity-normalized-linearly"),   # raw 8, 5, 0 -> int(100 * s / 8)
    pytest.param(apod("p", pref_anti=[aterm(weight=5)]), {"machine1": [apod("e", SEC)]}, {}, [0, 0, 100],
                 id="anti-affinity-region"),
    pytest.param(apod("p", SEC), {"machine3": [apod("e", affinity=[aterm()])]}, {}, [0, 0, 100],
                 id="existing-required-affinity-hard-weight"),
    pytest.param(apod("p", SEC), {"machine3": [apod("e", affinity=[aterm()])]},
                 {"hard_pod_affinity_weight": 0}, None, id="hard-weight-0-ignores-required"),
    pytest.param(apod("p", SEC), {"machine1": [apod("e", pref_anti=[aterm("zone", weight=10)])]}, {},
                 [0, 100, 100], id="existing-preferred-anti-affinity"),
    pytest.param(apod("p", SEC), {"machine2": [apod("e", pref=[aterm("zone", weight=10)])]},
                 {"ignore_preferred_terms_of_existing_pods": True}, None, id="ignore-existing-preferred"),
    pytest.param(apod("p", {"x": "y"}), {"machine1": [apod("e", affinity=[aterm()])]}, {}, None,
                 id="existing-terms-not-matching"),
])
def test_score(p, existing, kw, want):
    """Preferred terms both ways plus existing required affinity, normalized min..max to 0..100."""
    assert run_score(p, existing, **kw) == want


def test_score_node_without_labels_contributes_nothing():
    """k8s: processExistingPod skips pods on nodes without labels."""
    assert run_score(apod("p", SEC), {"bare": [apod("e", affinity=[aterm()])]},
                     nodes=(node("bare", labels={}), N1)) is None
