"""When quota usage is charged and when it is recounted (k8s v1.37: the ResourceQuota admission
plugin charges each create; the quota controller recounts on its own events only)."""
from __future__ import annotations

import pytest
from hypothesis import example, given, strategies as st

from drasim import admission
from drasim.api import kinds
from drasim.api.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity
from drasim.controllers import quota as accounting
from drasim.controllers.quotaadmission import _reread, canonical
from drasim.controllers.quotacontroller import RESYNC_SECONDS
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from tests.unit.controllers.quotakit import doc, one_node_plane, quota


def pod(name: str, cpu: str = "100m", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": "i", "resources": {"requests": {"cpu": cpu}}}], **spec}}


@pytest.fixture
def cp() -> ControlPlane:
    return one_node_plane()


def used(cp: ControlPlane, name: str = "q") -> dict:
    return cp.store.get("ResourceQuota", "default", name)["status"]["used"]


@pytest.fixture
def recounts(monkeypatch) -> list[str]:
    """Names of the quotas the controller recounted, in order."""
    calls: list[str] = []
    real = accounting.quota_used

    def counting(q, *args, **kw):
        calls.append(q["metadata"]["name"])
        return real(q, *args, **kw)
    monkeypatch.setattr(accounting, "quota_used", counting)
    return calls


def test_creates_are_charged_by_admission_not_recounted(cp, recounts):
    """Each admitted create adds its usage to status.used (one quota write each); the controller
    recounts only the new quota's first sync."""
    cp.create(quota({"pods": "10", "requests.cpu": "2"}))
    cp.settle()
    assert recounts == ["q"]
    writes = cp.store.revision
    for i in range(3):
        cp.create(pod(f"p{i}", cpu="250m"))
    assert used(cp) == {"pods": "3", "requests.cpu": "750m"}   # before any controller ran
    cp.settle()
    assert recounts == ["q"]
    assert used(cp) == {"pods": "3", "requests.cpu": "750m"}
    assert cp.store.revision > writes


def test_recounts_on_replenishment_and_spec_changes_only(cp, recounts):
    """k8s: a deleted pod, a pod that turns terminal and a spec.hard change recount; a status
    update that leaves the pod charged, and a spec.hard edit to equal values, do not."""
    cp.create(quota({"pods": "10"}))
    cp.settle()
    cp.create(pod("a"))
    cp.create(pod("b"))
    cp.settle()
    recounts.clear()
    a = cp.store.get("Pod", "default", "a")
    cp.store.update_status(dict(a, status=dict(a["status"], conditions=[])))
    cp.settle()
    assert recounts == []
    a = cp.store.get("Pod", "default", "a")
    cp.store.update_status(dict(a, status=dict(a["status"], phase="Succeeded")))
    cp.settle()
    assert recounts == ["q"] and used(cp) == {"pods": "1"}
    cp.delete("Pod", "default", "b")
    cp.settle()
    assert recounts == ["q", "q"] and used(cp) == {"pods": "0"}
    current = cp.store.get("ResourceQuota", "default", "q")
    cp.update(dict(current, spec={"hard": {"pods": "1e1"}}), current)    # the same value
    cp.settle()
    assert recounts == ["q", "q"]
    current = cp.store.get("ResourceQuota", "default", "q")
    cp.update(dict(current, spec={"hard": {"pods": "4"}}), current)
    cp.settle()
    assert recounts == ["q", "q", "q"]
    assert cp.store.get("ResourceQuota", "default", "q")["status"]["hard"] == {"pods": "4"}


def test_replenishment_only_for_quotas_tracking_the_kind(cp, recounts):
    """k8s replenishQuota: a pod deletion recounts the quotas whose status.hard the pod
    evaluator matches, not a claims-only quota."""
    cp.create(quota({"pods": "10"}, name="pods"))
    cp.create(quota({"count/resourceclaims.resource.k8s.io": "10"}, name="claims"))
    cp.create(pod("a"))
    cp.settle()
    recounts.clear()
    cp.delete("Pod", "default", "a")
    cp.settle()
    assert recounts == ["pods"]


def test_resync_recounts_every_quota(cp, recounts):
    """k8s: enqueueAll every resync period (5m); drasim runs it once the virtual clock passes it."""
    cp.create(quota({"pods": "10"}))
    cp.settle()
    recounts.clear()
    cp.clock.advance(RESYNC_SECONDS - 10)
    cp.settle()
    assert recounts == []
    cp.clock.advance(10)
    cp.settle()
    assert recounts == ["q"]
    cp.settle()
    assert recounts == ["q"]


def test_a_quota_not_synced_yet_limits_nothing(cp):
    """k8s CheckRequest reads status.hard, which the API server clears on create
    (resourcequota strategy PrepareForCreate): until the controller's first sync the quota
    matches nothing and the create passes uncharged; the sync then counts it."""
    cp.create(quota({"pods": "1"}))
    cp.create(pod("a"))
    cp.create(pod("b"))
    cp.settle()
    assert used(cp) == {"pods": "2"}
    with pytest.raises(InputError, match='pods "c" is forbidden: exceeded quota: q, requested: pods=1, '
                                         'used: pods=2, limited: pods=1'):
        cp.create(pod("c"))


def test_scoped_quota_only_admits_pods_in_scope(cp):
    """k8s evaluator.Matches: a pod outside the quota's scopes is neither checked nor charged."""
    cp.create(quota({"pods": "1"}, scopes=["NotTerminating"]))
    cp.settle()
    cp.create(pod("long"))
    for i in range(2):
        cp.create(pod(f"job{i}", activeDeadlineSeconds=60))   # Terminating: out of scope
    assert used(cp) == {"pods": "1"}
    with pytest.raises(InputError, match="exceeded quota: q"):
        cp.create(pod("long2"))


def test_dry_run_and_refused_phase_charge_nothing(cp):
    """k8s checkQuotas: a dry run is not written; a phase with a refused object leaves the
    quota as it was (drasim: a phase is admitted whole or not at all)."""
    cp.create(quota({"pods": "2"}))
    cp.settle()
    obj = admission.prepare(cp.store, kinds.lookup("v1", "Pod"), pod("dry"), None, "")
    admission.admit(cp.store, cp.er_cache, kinds.lookup("v1", "Pod"), obj, "", dry_run=True)
    assert used(cp) == {"pods": "0"}
    with pytest.raises(InputError, match='t/c: pods "c" is forbidden: exceeded quota: q, requested: pods=1, '
                                         'used: pods=2, limited: pods=2'):
        cp.apply([doc(pod("a")), doc(pod("b")), doc(pod("c"))])
    assert used(cp) == {"pods": "0"} and cp.store.list("Pod", "default") == []
    cp.apply([doc(pod("a")), doc(pod("b"))])
    assert used(cp) == {"pods": "2"}


def test_sums_print_like_go(cp):
    """status.used is Go's Quantity.Add of the stored text and the new usage: the left operand's
    format unless it is zero (1Gi + 512Mi = 1536Mi; a zero takes 500m's format)."""
    cp.create(quota({"requests.memory": "8Gi", "requests.cpu": "4"}))
    cp.settle()
    for name, cpu, memory in (("a", "0", "1Gi"), ("b", "500m", "512Mi"), ("c", "1", "1Gi")):
        p = pod(name, cpu=cpu)
        p["spec"]["containers"][0]["resources"]["requests"]["memory"] = memory
        cp.create(p)
    assert used(cp) == {"requests.memory": "2560Mi", "requests.cpu": "1500m"}




@given(st.integers(-(10**30), 10**30), st.sampled_from([1, 1000, 10**6, 10**9, 3, 1024]),
       st.sampled_from([DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT]))
@example(2**60, 1, BINARY_SI)            # 1Ei: the last binary suffix
@example(3 * 2**70, 1, BINARY_SI)        # past it: 3072Ei
@example(5 * 10**21, 1, DECIMAL_SI)      # past E: 5000E
@example(1, 10**9, DECIMAL_SI)           # 1n
def test_fast_canonical_is_canonical(numerator, denominator, fmt):
    """The integer-arithmetic form admission writes status.used with equals Quantity.canonical(),
    and what _reread says the next request reads back is what parsing the text gives (Go re-parses it)."""
    from fractions import Fraction
    from drasim.api.quantity import parse_quantity
    q = Quantity(Fraction(numerator, denominator), fmt)
    text = canonical(q)
    assert text == q.canonical()
    back, want = _reread(q, text), parse_quantity(text)
    assert (back.value, back.format) == (want.value, want.format)


def test_second_special_claim_of_a_pod_pays_in_full(cp):
    """KEP-5004 getVerifiedPodUsage: without a claim status on the pod only the oldest special
    claim (then the smaller name) is exempted. k8s stamps creationTimestamp before admission
    (BeforeCreate), so a second claim created in the same second loses the tie on its name."""
    from drasim.scheduler.plugins.extendedresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION
    cp.run_phase([doc({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                       "spec": {"extendedResourceName": "example.com/gpu"}})])
    cp.create(quota({"requests.example.com/gpu": "10"}))
    cp.settle()
    p = pod("p")
    p["spec"]["containers"][0]["resources"] = {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"}}
    owner = cp.create(p)
    for name in ("c1", "c2"):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": name, "namespace": "default",
                                "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
                                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                                     "uid": owner["metadata"]["uid"], "controller": True}]},
                   "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
    assert used(cp) == {"requests.example.com/gpu": "2"}    # the pod's 1, c1 exempted, c2's 1
    cp.clock.advance(RESYNC_SECONDS)
    cp.settle()
    assert used(cp) == {"requests.example.com/gpu": "2"}    # a recount agrees
