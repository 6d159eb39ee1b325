"""TaintToleration plugin (k8s: plugins/tainttoleration/taint_toleration.go)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState
from drasim.scheduler.plugins.tainttoleration import (
    ERR_REASON, TaintToleration, default_normalize_score, tolerates_taint)
from plugin_builders import info, node, pod, run_scores


def taint(key, value="", effect="NoSchedule"):
    return {"key": key, "value": value, "effect": effect}


def tol(key="", op="Equal", value="", effect=""):
    out = {"key": key, "operator": op, "effect": effect}
    if value:
        out["value"] = value
    return out


@pytest.mark.parametrize(("toleration", "t", "cmp_ops", "want"), [
    pytest.param(tol("k", value="v"), taint("k", "v"), False, True, id="equal"),
    pytest.param(tol("k", value="w"), taint("k", "v"), False, False, id="equal-other-value"),
    pytest.param(tol("k", "Exists"), taint("k", "v"), False, True, id="exists-any-value"),
    pytest.param(tol("", "Exists"), taint("k", "v"), False, True, id="empty-key-exists-all"),
    pytest.param(tol("k", "Exists", effect="NoExecute"), taint("k"), False, False, id="effect-mismatch"),
    pytest.param(tol("k", "Exists", effect="NoSchedule"), taint("k"), False, True, id="effect-match"),
    pytest.param(tol("j", "Exists"), taint("k"), False, False, id="key-mismatch"),
    pytest.param(tol("k", "Gt", "3"), taint("k", "5"), False, False, id="gt-gate-off"),
    pytest.param(tol("k", "Gt", "3"), taint("k", "5"), True, True, id="gt"),
    pytest.param(tol("k", "Gt", "5"), taint("k", "5"), True, False, id="gt-equal"),
    pytest.param(tol("k", "Lt", "5"), taint("k", "3"), True, True, id="lt"),
    pytest.param(tol("k", "Lt", "5"), taint("k", "03"), True, False, id="lt-leading-zero-not-decimal"),
    pytest.param(tol("k", "Lt", "5"), taint("k", "x"), True, False, id="lt-not-integer"),
    pytest.param(tol("k", "Bogus"), taint("k"), True, False, id="unknown-operator"),
])
def test_tolerates_taint(toleration, t, cmp_ops, want):
    """Core v1 ToleratesTaint, with Lt/Gt only behind TaintTolerationComparisonOperators."""
    assert tolerates_taint(toleration, t, cmp_ops) is want


@pytest.mark.parametrize(("taints", "tolerations", "fits"), [
    pytest.param(None, None, True, id="no-taints"),
    pytest.param([taint("dedicated", "gpu")], None, False, id="noschedule-untolerated"),
    pytest.param([taint("dedicated", "gpu", "NoExecute")], None, False, id="noexecute-untolerated"),
    pytest.param([taint("dedicated", "gpu", "PreferNoSchedule")], None, True, id="prefer-does-not-filter"),
    pytest.param([taint("dedicated", "gpu")], [tol("dedicated", value="gpu", effect="NoSchedule")], True,
                 id="tolerated"),
    pytest.param([taint("a"), taint("b")], [tol("a", "Exists")], False, id="one-of-two-untolerated"),
])
def test_filter(taints, tolerations, fits):
    """Any untolerated NoSchedule/NoExecute taint rejects, unresolvably, with the v1.37 reason."""
    status = TaintToleration().filter(CycleState(), pod(tolerations=tolerations), info(node(taints=taints)))
    if fits:
        assert status is None
    else:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("node(s) had untolerated taint(s)",) == (ERR_REASON,)


@pytest.mark.parametrize(("scores", "reverse", "want"), [
    pytest.param([0, 1, 2], True, [100, 50, 0], id="reverse"),
    pytest.param([1, 2, 3], False, [33, 66, 100], id="forward-truncates"),
    pytest.param([0, 0], True, [100, 100], id="all-zero-reverse"),
    pytest.param([0, 0], False, [0, 0], id="all-zero-forward"),
])
def test_default_normalize_score(scores, reverse, want):
    """DefaultNormalizeScore: scale by the maximum with integer division, optionally reversed."""
    default_normalize_score(scores, reverse)
    assert scores == want


def test_score_counts_untolerated_prefer_no_schedule():
    """Score counts intolerable PreferNoSchedule taints; fewer is better after reverse normalising."""
    prefer = "PreferNoSchedule"
    nodes = [info(node("n0")),
             info(node("n1", taints=[taint("a", effect=prefer)])),
             info(node("n2", taints=[taint("a", effect=prefer), taint("b", effect=prefer), taint("c")]))]
    assert run_scores(TaintToleration(), pod(), nodes) == [100, 50, 0]
    # Tolerations with effect NoSchedule do not count for scoring; empty effect does.
    p = pod(tolerations=[tol("a", "Exists", effect="NoSchedule"), tol("b", "Exists")])
    assert run_scores(TaintToleration(), p, nodes) == [100, 0, 0]
