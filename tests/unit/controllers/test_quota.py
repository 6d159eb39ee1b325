"""ResourceQuota usage of pods and claims, extended resources included (spec §11)."""
from __future__ import annotations

from functools import partial

import pytest

from drasim.api.extendedresource import IMPLICIT_PREFIX, ExtendedResourceCache
from drasim.api.quantity import parse_quantity
from drasim.controllers.quota import (
    CLAIM_OBJECT_COUNT, claim_matching_resources, claim_usage, pod_matches_scopes,
    pod_matching_resources, pod_usage, quota_used)
from drasim.controllers.quotaadmission import admission_error
from drasim.scheduler.plugins.extendedresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION

GPU = "example.com/gpu"
IMPL = "requests." + IMPLICIT_PREFIX + "mygpuclass"
EXPL = "requests." + GPU
DEV = "mygpuclass.deviceclass.resource.k8s.io/devices"
T0, T1 = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"


def make_cache():
    cache = ExtendedResourceCache()
    cache.on_add({"metadata": {"name": "mygpuclass", "creationTimestamp": T0},
                  "spec": {"extendedResourceName": GPU}})
    return cache


def pod(name, requests=None, limits=None, *, claim_name=None, phase="Running", inits=()):
    limits = dict(requests or {}) if limits is None else limits
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}", "creationTimestamp": T0},
         "spec": {"containers": [{"name": "main", "resources": {"requests": dict(requests or {}),
                                                                 "limits": limits}}],
                  "initContainers": list(inits)},
         "status": {"phase": phase}}
    if claim_name:
        p["status"]["extendedResourceClaimStatus"] = {
            "resourceClaimName": claim_name,
            "requestMappings": [{"containerName": "main", "resourceName": GPU, "requestName": "r"}]}
    return p


def claim(name, count=1, *, owner=None, special=False, created=T0, requests=None):
    meta = {"name": name, "namespace": "ns", "creationTimestamp": created}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner["metadata"]["name"],
                                    "uid": owner["metadata"]["uid"], "controller": True}]
    if special:
        meta["annotations"] = {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}
    if requests is None:
        requests = [{"name": "container-0-request-0", "exactly": {
            "deviceClassName": "mygpuclass", "allocationMode": "ExactCount", "count": count}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": requests}}}


def quota(hard, used=None, name="q", **spec):
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": {"hard": hard, **spec},
            "status": {"hard": hard, "used": used or {}}}


def strs(usage):
    return {k: v.canonical() for k, v in usage.items()}


# --- §11.6 worked example ------------------------------------------------------------------

def worked_example():
    a = pod("a", {GPU: "1"})                                     # device-plugin node
    b = pod("b", {GPU: "1"}, claim_name="b-claim")               # DRA node
    c = pod("c", {IMPLICIT_PREFIX + "mygpuclass": "1"}, claim_name="c-claim")
    e = pod("e")                                                 # uses a template claim
    claims = [claim("b-claim", owner=b, special=True), claim("c-claim", owner=c, special=True),
              claim("d"), claim("e-gpu", owner=e)]
    return [a, b, c, e], claims


def test_worked_example():
    """§11.6: every DRA device counted once under all three keys: 5 / 4 / 4, 4 claims."""
    pods, claims = worked_example()
    q = quota({EXPL: "10", IMPL: "10", DEV: "10", CLAIM_OBJECT_COUNT: "10"})
    assert quota_used(q, pods, claims, make_cache()) == {EXPL: "5", IMPL: "4", DEV: "4", CLAIM_OBJECT_COUNT: "4"}


def test_worked_example_special_claims():
    """§11.3: the special claim pays only what its verified pod does not."""
    pods, claims = worked_example()
    by_uid = {p["metadata"]["uid"]: p for p in pods}
    usage = partial(claim_usage, pods_by_uid=by_uid, claims_in_namespace=claims, cache=make_cache())
    assert strs(usage(claims[0])) == {CLAIM_OBJECT_COUNT: "1", DEV: "1", IMPL: "1"}
    assert strs(usage(claims[1])) == {CLAIM_OBJECT_COUNT: "1", DEV: "1", EXPL: "1"}
    assert strs(usage(claims[2])) == {CLAIM_OBJECT_COUNT: "1", DEV: "1", IMPL: "1", EXPL: "1"}


# --- pods (§11.1) --------------------------------------------------------------------------

def test_pod_usage_core_keys():
    """k8s pods.go: pods, count/pods, cpu/memory under bare, requests. and limits. keys."""
    p = pod("p", {"cpu": "500m", "memory": "1Gi", GPU: "2"}, {"cpu": "1", "memory": "1Gi", GPU: "2"})
    assert strs(pod_usage(p)) == {
        "count/pods": "1", "pods": "1", "cpu": "500m", "requests.cpu": "500m", "limits.cpu": "1",
        "memory": "1Gi", "requests.memory": "1Gi", "limits.memory": "1Gi", EXPL: "2"}


@pytest.mark.parametrize(("phase", "want"), [
    pytest.param("Succeeded", {"count/pods": "1"}, id="succeeded"),
    pytest.param("Failed", {"count/pods": "1"}, id="failed"),
    pytest.param("Pending", {"count/pods": "1", "pods": "1", EXPL: "1"}, id="pending-charged"),
])
def test_terminal_pods_not_charged(phase, want):
    """§11.1: terminal pods pay only the object count."""
    assert strs(pod_usage(pod("p", {GPU: "1"}, phase=phase))) == want


def test_pod_past_grace_period_not_charged():
    """§11.1: pods past deletionTimestamp + grace are not charged (given a clock)."""
    p = pod("p", {GPU: "1"})
    p["metadata"].update(deletionTimestamp=T0, deletionGracePeriodSeconds=30)
    now = parse_time(T0)
    assert EXPL in pod_usage(p, now=now + 30)
    assert strs(pod_usage(p, now=now + 31)) == {"count/pods": "1"}


def parse_time(text):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_pod_usage_implicit_and_init_max():
    """§11.1: implicit names are charged too, at the pod request (init max rule)."""
    init = {"name": "init", "resources": {"requests": {IMPLICIT_PREFIX + "mygpuclass": "3"}}}
    p = pod("p", {IMPLICIT_PREFIX + "mygpuclass": "1"}, inits=[init])
    assert pod_usage(p)[IMPL] == parse_quantity("3")
    assert "limits." + IMPLICIT_PREFIX + "mygpuclass" not in pod_usage(p)


# --- claims (§11.2-§11.4) ------------------------------------------------------------------

def usage_of(c, pods=(), claims=None):
    return strs(claim_usage(c, pods_by_uid={p["metadata"]["uid"]: p for p in pods},
                            claims_in_namespace=claims if claims is not None else [c], cache=make_cache()))


@pytest.mark.parametrize(("requests", "dev"), [
    pytest.param([{"name": "r", "exactly": {"deviceClassName": "mygpuclass", "allocationMode": "All"}}],
                 "32", id="all-is-32"),
    pytest.param([{"name": "r", "firstAvailable": [
        {"name": "a", "deviceClassName": "mygpuclass", "allocationMode": "ExactCount", "count": 2},
        {"name": "b", "deviceClassName": "mygpuclass", "allocationMode": "ExactCount", "count": 3}]}],
                 "3", id="first-available-max"),
    pytest.param([{"name": "r1", "exactly": {"deviceClassName": "mygpuclass", "allocationMode": "ExactCount",
                                             "count": 2}},
                  {"name": "r2", "exactly": {"deviceClassName": "mygpuclass", "allocationMode": "ExactCount",
                                             "count": 1}}], "3", id="requests-add-up"),
])
def test_claim_device_counts(requests, dev):
    """§11.2: ExactCount counts, All is 32, firstAvailable the largest per class."""
    got = usage_of(claim("x", requests=requests))
    assert (got[DEV], got[IMPL], got[EXPL], got[CLAIM_OBJECT_COUNT]) == (dev, dev, dev, "1")


def test_unverified_when_status_names_other_claim():
    """§11.4: the pod's status names another claim: no subtraction."""
    b = pod("b", {GPU: "1"}, claim_name="other")
    assert usage_of(claim("b-claim", owner=b, special=True), [b])[EXPL] == "1"


def test_unverified_without_annotation_or_pod():
    """§11.4: no annotation, or no owning pod with that UID: no subtraction."""
    b = pod("b", {GPU: "1"}, claim_name="b-claim")
    assert usage_of(claim("b-claim", owner=b), [b])[EXPL] == "1"
    assert usage_of(claim("b-claim", owner=b, special=True), [])[EXPL] == "1"
    renamed = dict(b, metadata=dict(b["metadata"], uid="new-uid"))
    assert usage_of(claim("b-claim", owner=b, special=True), [renamed])[EXPL] == "1"


@pytest.mark.parametrize(("first", "second", "verified"), [
    pytest.param(("c1", T0), ("c2", T1), "c1", id="older-wins"),
    pytest.param(("c2", T0), ("c1", T1), "c2", id="older-wins-despite-name"),
    pytest.param(("c2", T0), ("c1", T0), "c1", id="tie-smaller-name"),
])
def test_nil_status_two_special_claims(first, second, verified):
    """§11.4 ("nil-status-two-extended-resource-claims"): only the oldest is verified."""
    b = pod("b", {GPU: "1"})
    claims = [claim(n, owner=b, special=True, created=t) for n, t in (first, second)]
    for c in claims:
        got = usage_of(c, [b], claims)
        want_expl = None if c["metadata"]["name"] == verified else "1"
        assert got.get(EXPL) == want_expl


def test_terminal_owner_no_subtraction():
    """§11.4: a terminal pod's usage is empty, so its special claim pays in full."""
    b = pod("b", {GPU: "1"}, claim_name="b-claim", phase="Succeeded")
    assert usage_of(claim("b-claim", owner=b, special=True), [b])[EXPL] == "1"


# --- matching and status.used (§11.5) ------------------------------------------------------

def test_matching_resources():
    """§11.5: the claim evaluator tracks requests.X only while a class resolves X."""
    cache = make_cache()
    names = [EXPL, IMPL, DEV, CLAIM_OBJECT_COUNT, "requests.other.com/x", "cpu", "requests." + IMPLICIT_PREFIX + "nope"]
    assert claim_matching_resources(names, cache) == [EXPL, IMPL, DEV, CLAIM_OBJECT_COUNT]
    assert pod_matching_resources(names) == ["cpu", EXPL, IMPL, "requests.other.com/x",
                                             "requests." + IMPLICIT_PREFIX + "nope"]


def test_used_without_class_counts_pods_only():
    """§11.5: with no class resolving X, claims no longer add to requests.X."""
    pods, claims = worked_example()
    q = quota({EXPL: "10"})
    assert quota_used(q, pods, claims, make_cache()) == {EXPL: "5"}
    assert quota_used(q, pods, claims, ExtendedResourceCache()) == {EXPL: "2"}


def test_used_restricted_to_hard_and_zero_defaults():
    """status.used lists exactly the hard keys an evaluator tracks, zeros included;
    keys nobody tracks keep their previous value."""
    q = quota({"requests.cpu": "4", DEV: "2", "services": "3"}, used={"services": "1", "stale": "9"})
    assert quota_used(q, [], [], make_cache()) == {"requests.cpu": "0", DEV: "0", "services": "1"}


def test_used_memory_format_and_namespace():
    """Sums keep the first non-zero quantity's format (1Gi + 512Mi = 1536Mi); other namespaces ignored."""
    p1, p2 = pod("p1", {"memory": "1Gi"}), pod("p2", {"memory": "512Mi"})
    other = pod("p3", {"memory": "1Gi"})
    other["metadata"]["namespace"] = "elsewhere"
    assert quota_used(quota({"requests.memory": "8Gi"}), [p1, p2, other], [], make_cache()) == {
        "requests.memory": "1536Mi"}


def test_scoped_quota():
    """Scopes filter pods; a scoped quota counts no claims (claims have no scopes)."""
    pods, claims = worked_example()
    q = quota({EXPL: "10", CLAIM_OBJECT_COUNT: "10"}, scopes=["NotTerminating"])
    assert quota_used(q, pods, claims, make_cache()) == {EXPL: "2", CLAIM_OBJECT_COUNT: "0"}
    assert pod_matches_scopes(pods[0], q)
    deadline = dict(pods[0], spec=dict(pods[0]["spec"], activeDeadlineSeconds=0))
    assert not pod_matches_scopes(deadline, q)


# --- admission -----------------------------------------------------------------------------

def q_(text):
    return parse_quantity(text)


def test_admission_exceeded_message():
    """k8s CheckRequest: names sorted, `requested`, `used`, `limited` of the exceeded keys only."""
    quotas = [quota({DEV: "4", IMPL: "4", CLAIM_OBJECT_COUNT: "10"},
                    used={DEV: "4", IMPL: "3", CLAIM_OBJECT_COUNT: "4"}, name="gpu-quota")]
    delta = {CLAIM_OBJECT_COUNT: q_("1"), DEV: q_("2"), IMPL: q_("2")}
    assert admission_error(quotas, "ns", delta) == (
        f"exceeded quota: gpu-quota, requested: {DEV}=2,{IMPL}=2, "
        f"used: {DEV}=4,{IMPL}=3, limited: {DEV}=4,{IMPL}=4")


@pytest.mark.parametrize(("delta", "want"), [
    pytest.param({EXPL: q_("1")}, None, id="fits-exactly"),
    pytest.param({EXPL: q_("0")}, None, id="zero-delta"),
    pytest.param({"requests.cpu": q_("8")}, None, id="untracked-key"),
    pytest.param({EXPL: q_("2")}, f"exceeded quota: q, requested: {EXPL}=2, used: {EXPL}=3, limited: {EXPL}=4",
                 id="over"),
    pytest.param({EXPL: q_("-1")}, f"quota usage is negative for resource(s): {EXPL}", id="negative"),
])
def test_admission_cases(delta, want):
    """Admission charges delta ∩ hard against used; <= hard passes."""
    assert admission_error([quota({EXPL: "4"}, used={EXPL: "3"})], "ns", delta) == want


def test_admission_other_namespace_and_status_unknown():
    """Quotas of other namespaces are ignored; a tracked key without usage is `status unknown`."""
    q = quota({EXPL: "1", "pods": "5"}, used={"pods": "0"})
    assert admission_error([q], "other", {EXPL: q_("5")}) is None
    assert admission_error([q], "ns", {EXPL: q_("1")}, matching=pod_matching_resources) == (
        f"status unknown for quota: q, resources: pods,{EXPL}")
