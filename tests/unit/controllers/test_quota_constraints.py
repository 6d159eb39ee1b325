"""The ResourceQuota pod Constraints check (k8s v1.37: pkg/quota/v1/evaluator/core/pods.go
podEvaluator.Constraints, called by the resourcequota admission plugin's CheckRequest for each
matching quota before its usage-stats and limit checks)."""
from __future__ import annotations

from functools import partial

import pytest
from hypothesis import given, strategies as st

from drasim.controllers import quota as accounting
from drasim.controllers.quotaadmission import check_request, pod_constraints_error
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from tests.unit.controllers.quotakit import one_node_plane, quota


def container(name: str, requests: dict | None = None, limits: dict | None = None) -> dict:
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "i", "resources": resources}


def pod(name: str, containers: list[dict], inits: list[dict] = (), **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": containers, "initContainers": list(inits), **spec}}


@pytest.fixture
def cp() -> ControlPlane:
    return one_node_plane()


def refusal(cp: ControlPlane, obj: dict) -> str:
    with pytest.raises(InputError) as caught:
        cp.create(obj)
    return str(caught.value)


# --- through the control plane: the message as the user sees it ----------------------------


def test_every_container_must_set_what_the_quota_limits(cp):
    """Resources sorted and joined by "; ", container names (init containers too) sorted and
    comma-joined; a container setting a limit only has its request defaulted from it."""
    cp.create(quota({"requests.cpu": "10", "limits.memory": "10Gi"}))
    cp.settle()
    message = refusal(cp, pod("x", [container("web", {"cpu": "1"}),
                                    container("app"),
                                    container("log", limits={"memory": "1Gi", "cpu": "1"})],
                              inits=[container("setup", {"memory": "1Gi"})]))
    assert message == ('pods "x" is forbidden: failed quota: q: must specify limits.memory for: app,setup,web; '
                       'requests.cpu for: app,setup')
    assert cp.store.list("Pod", "default") == []
    assert cp.store.get("ResourceQuota", "default", "q")["status"]["used"] == {
        "requests.cpu": "0", "limits.memory": "0"}


def test_missing_requests_and_missing_limits_are_told_apart(cp):
    """`cpu` / `requests.cpu` read resources.requests, `limits.cpu` resources.limits."""
    cp.create(quota({"cpu": "10", "limits.cpu": "10"}))
    cp.settle()
    assert refusal(cp, pod("x", [container("a", {"cpu": "1"})])) == \
        'pods "x" is forbidden: failed quota: q: must specify limits.cpu for: a'
    cp.create(pod("y", [container("a", limits={"cpu": "1"})]))    # requests.cpu defaulted from the limit
    assert cp.store.get("Pod", "default", "y") is not None


def test_only_cpu_and_memory_keys_the_quota_limits_are_required(cp):
    """ephemeral-storage, hugepages, extended resources and pods are counted but never required;
    memory is not required by a cpu-only quota; a zero request counts as set."""
    cp.create(quota({"pods": "10", "requests.cpu": "10", "requests.ephemeral-storage": "1Gi",
                     "limits.ephemeral-storage": "1Gi", "requests.hugepages-2Mi": "1Gi",
                     "requests.example.com/gpu": "4"}))
    cp.settle()
    cp.create(pod("a", [container("c", {"cpu": "0"})]))
    assert cp.store.get("ResourceQuota", "default", "q")["status"]["used"]["pods"] == "1"
    assert refusal(cp, pod("b", [container("c", {"memory": "1Gi"})])) == \
        'pods "b" is forbidden: failed quota: q: must specify requests.cpu for: c'


def test_a_quota_that_does_not_match_the_pod_sets_no_constraint(cp):
    """k8s: Constraints runs only for quotas that Match (scopes), and only with their restricted keys."""
    cp.create(quota({"limits.cpu": "10"}, scopes=["Terminating"]))
    cp.create(quota({"count/resourceclaims.resource.k8s.io": "5"}, name="claims"))
    cp.settle()
    cp.create(pod("long", [container("c")]))            # NotTerminating: out of the cpu quota's scope
    assert refusal(cp, pod("job", [container("c")], activeDeadlineSeconds=60)) == \
        'pods "job" is forbidden: failed quota: q: must specify limits.cpu for: c'


def test_pod_level_resources_lift_the_constraint(cp):
    """k8s: Constraints returns nil when PodLevelResources is on (v1.37 default) and the pod sets
    cpu, memory or hugepages at pod level; other pod-level names do not."""
    cp.create(quota({"requests.cpu": "10", "requests.memory": "10Gi"}))
    cp.settle()
    cp.create(pod("p", [container("a"), container("b")], resources={"requests": {"cpu": "1", "memory": "1Gi"}}))
    cp.create(pod("h", [container("a")], resources={"limits": {"hugepages-2Mi": "0"}}))
    assert cp.store.get("Pod", "default", "p") and cp.store.get("Pod", "default", "h")


def test_claims_have_no_constraints(cp):
    """k8s: claimEvaluator.Constraints is a no-op."""
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}})
    cp.create(quota({"requests.cpu": "10", "gpu.deviceclass.resource.k8s.io/devices": "4"}))
    cp.settle()
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
    assert cp.store.get("ResourceQuota", "default", "q")["status"]["used"][
        "gpu.deviceclass.resource.k8s.io/devices"] == "1"


# --- the order of checks in CheckRequest ------------------------------------------------------


def stored_quota(name: str, hard: dict, used: dict) -> dict:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"hard": hard},
            "status": {"hard": hard, "used": used}}


def check(quotas: list[dict], p: dict) -> str | None:
    return check_request(quotas, accounting.pod_usage(p), matching=accounting.pod_matching_resources,
                         scope_match=partial(accounting.pod_matches_scopes, p),
                         constraints=partial(pod_constraints_error, p))[0]


def test_constraints_come_before_usage_stats_and_limits_quota_by_quota():
    """k8s CheckRequest, per quota in order: Matches, Constraints, hasUsageStats; the usage
    limits are checked only after every quota has passed those."""
    bare = pod("x", [container("c", {"memory": "1Gi"})])
    full = stored_quota("a-full", {"pods": "0"}, {"pods": "0"})
    cpu_first = stored_quota("a-cpu", {"requests.cpu": "1"}, {"requests.cpu": "0"})
    unknown = stored_quota("b-unknown", {"memory": "1Gi"}, {})
    cpu_last = stored_quota("c-cpu", {"requests.cpu": "1"}, {"requests.cpu": "0"})
    assert check([cpu_last, unknown], bare) == "status unknown for quota: b-unknown, resources: memory"
    assert check([unknown, cpu_first], bare) == "failed quota: a-cpu: must specify requests.cpu for: c"
    assert check([full, cpu_last], bare) == "failed quota: c-cpu: must specify requests.cpu for: c"
    assert check([stored_quota("u", {"cpu": "1"}, {})], bare) == "failed quota: u: must specify cpu for: c"
    fits = pod("y", [container("c", {"cpu": "2"})])
    assert check([cpu_last], fits).startswith("exceeded quota: c-cpu, requested: requests.cpu=2")


# --- the rule itself, over open-ended pods ----------------------------------------------------

KEYS = sorted({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
OTHER = ["pods", "ephemeral-storage", "limits.ephemeral-storage", "requests.hugepages-1Gi", "requests.example.com/gpu"]
resource_lists = st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage"]),
                                 st.sampled_from(["0", "1", "500m"]), max_size=3)
containers = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]),
                                st.one_of(st.none(), resource_lists), st.one_of(st.none(), resource_lists)),
                      max_size=4)


@given(containers, containers, st.lists(st.sampled_from(KEYS + OTHER), unique=True))
def test_the_message_names_each_missing_key_with_the_containers_missing_it(mains, inits, restricted):
    p = pod("x", [container(*c) for c in mains], [container(*c) for c in inits])
    expected: dict[str, set[str]] = {}
    for name, requests, limits in mains + inits:
        for key in set(KEYS) & set(restricted):
            where = limits if key.startswith("limits.") else requests
            if key.split(".")[-1] not in (where or {}):
                expected.setdefault(key, set()).add(name)
    message = pod_constraints_error(p, restricted)
    if not expected:
        assert message is None
    else:
        assert message == "must specify " + "; ".join(
            f"{k} for: {','.join(sorted(v))}" for k, v in sorted(expected.items()))
    p["spec"]["resources"] = {"requests": {"memory": "1Gi"}}
    assert pod_constraints_error(p, restricted) is None

