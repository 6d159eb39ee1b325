"""Device taint eviction controller and DeviceTaintRule status (device-taints.md §7-§9).

Each test builds a cluster in a MemoryStore, runs the controller on the virtual
clock with run_until_quiet, and checks what Kubernetes v1.37 would leave behind.
Cases follow pkg/controller/devicetainteviction/device_taint_eviction_test.go.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.controllers.devicetainteviction import DeviceTaintEvictionController
from drasim.controllers.devicetaintstatus import rule_what_if
from drasim.sim.clock import Clock, format_time, parse_time
from drasim.sim.loop import run_until_quiet
from drasim.store.memory import DELETED, MemoryStore, clone

DRIVER = "gpu.example.com"
NODE = "node-1"
KEY = "gpu.example.com/unhealthy"
DRY_RUN_TAIL = ("if the effect was NoExecute. This information will not be updated again. "
                "Recreate the DeviceTaintRule to trigger an update.")


# -- builders ------------------------------------------------------------------------------------

def device(name, *taints):
    return {"name": name, **({"taints": list(taints)} if taints else {})}


def taint(effect="NoExecute", key=KEY, value="", time_added=None):
    t = {"key": key, "value": value, "effect": effect}
    if time_added:
        t["timeAdded"] = time_added
    return t


def slice_(*devices, name="node-1-gpu", pool=NODE, generation=1, driver=DRIVER):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "nodeName": NODE, "devices": list(devices),
                     "pool": {"name": pool, "generation": generation, "resourceSliceCount": 1}}}


def rule(name="rule", effect="NoExecute", selector=..., value="bad", time_added=None):
    spec = {"taint": taint(effect, value=value, time_added=time_added)}
    if selector is not None:
        spec["deviceSelector"] = {"driver": DRIVER} if selector is ... else selector
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name}, "spec": spec}


def tol(effect="NoExecute", key=KEY, operator="Exists", seconds=None, value=None):
    t = {"key": key, "operator": operator, "effect": effect}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    if value is not None:
        t["value"] = value
    return t


class Cluster:
    """A store, a clock and the controller, plus what the tests observe."""

    def __init__(self, *objs):
        self.clock = Clock()
        self.store = MemoryStore(self.clock)
        self.deleted_at: dict[str, float] = {}
        self.conditions: list[tuple[str, str, str]] = []
        self.store.subscribe(self._watch)
        for obj in objs:
            self.store.create(obj)
        self.controller = DeviceTaintEvictionController(self.store, self.clock)

    def _watch(self, event):
        if event.kind == "Pod" and event.type == DELETED:
            self.deleted_at[event.obj["metadata"]["name"]] = self.clock.now
        if event.kind == "DeviceTaintRule" and event.type != DELETED:
            cond = condition(event.obj)
            if cond and (not self.conditions or self.conditions[-1] != (cond["reason"], cond["message"])):
                self.conditions.append((cond["reason"], cond["message"]))

    def run(self, until=None):
        run_until_quiet(self.clock, [self.controller], until=until)

    def pod(self, name, *, node=NODE, claims=None, ns="default", extended=None, templates=None):
        """A pod using `claims` by name; the claims' reservedFor must be added with `claim(..., users=)`."""
        resource_claims = [{"name": f"c{i}", "resourceClaimName": c} for i, c in enumerate(claims or [])]
        status = {}
        for i, generated in enumerate(templates or []):
            resource_claims.append({"name": f"t{i}", "resourceClaimTemplateName": "tmpl"})
            status.setdefault("resourceClaimStatuses", []).append({"name": f"t{i}", "resourceClaimName": generated})
        if extended:
            status["extendedResourceClaimStatus"] = {"resourceClaimName": extended, "requestMappings": []}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
               "spec": {"containers": [{"name": "app", "image": "pause"}], "resourceClaims": resource_claims},
               "status": status}
        if node:
            pod["spec"]["nodeName"] = node
        return self.store.create(pod)

    def claim(self, name, *results, users=(), ns="default", owner=None):
        """An allocated claim; each result is (device name, tolerations)."""
        md = {"name": name, "namespace": ns}
        if owner is not None:
            md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner["metadata"]["name"],
                                      "uid": owner["metadata"]["uid"], "controller": True}]
        entries = [{"request": "gpu", "driver": DRIVER, "pool": NODE, "device": dev,
                    **({"tolerations": tols} if tols else {})} for dev, tols in results]
        return self.store.create({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md,
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}},
            "status": {"allocation": {"devices": {"results": entries}},
                       "reservedFor": [{"resource": "pods", "name": u["metadata"]["name"],
                                        "uid": u["metadata"]["uid"]} for u in users]}})

    def exists(self, name, ns="default"):
        return self.store.get("Pod", ns, name) is not None

    def rule_condition(self, name="rule"):
        return condition(self.store.get("DeviceTaintRule", None, name))

    def events(self, reason="DeviceTaintManagerEviction"):
        return [(e["involvedObject"]["name"], e["message"]) for e in self.store.list("Event")
                if e["reason"] == reason]


def condition(rule_obj):
    return next((c for c in (rule_obj.get("status") or {}).get("conditions") or ()
                 if c["type"] == "EvictionInProgress"), None)


def running(*results, tolerations=None, pod_name="pod", claim_name="claim", slice_obj=None, **pod_kw):
    """One slice (gpu-0..2), one pod on gpu-0 (or `results`) through a reserved claim."""
    cluster = Cluster(slice_obj or slice_(device("gpu-0"), device("gpu-1"), device("gpu-2")))
    pod = cluster.pod(pod_name, claims=[claim_name], **pod_kw)
    cluster.claim(claim_name, *(results or [("gpu-0", tolerations)]), users=[pod], ns=pod_kw.get("ns", "default"))
    cluster.run()
    return cluster


# -- eviction ------------------------------------------------------------------------------------

def test_noexecute_rule_evicts_with_event_and_condition():
    """A NoExecute rule evicts at once: event, DisruptionTarget condition, then DELETE (§7.6)."""
    cluster = running()
    statuses = []
    cluster.store.subscribe(lambda e: e.kind == "Pod" and e.old is not None and e.type != DELETED
                            and statuses.append(e.obj["status"].get("conditions")))
    cluster.store.create(rule())
    cluster.run()
    assert not cluster.exists("pod")
    assert cluster.events() == [("pod", "Marking for deletion")]
    event = next(e for e in cluster.store.list("Event") if e["reason"] == "DeviceTaintManagerEviction")
    assert (event["type"], event["source"]["component"]) == ("Normal", "device-taint-eviction-controller")
    [conds] = statuses
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in conds] == [
        ("DisruptionTarget", "True", "DeletionByDeviceTaintManager",
         "Device Taint manager: deleting due to NoExecute taint")]
    cond = cluster.rule_condition()
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "Completed", "1 pod evicted since starting the controller.")
    assert cluster.conditions == [("PodsPendingEviction", "1 pod needs to be evicted in 1 namespace."),
                                  ("Completed", "1 pod evicted since starting the controller.")]


def test_completed_status_waits_for_rule_status_period():
    """After an eviction the status is refreshed ruleStatusPeriod (10 s) later, on the virtual clock (§8.1)."""
    cluster = running()
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run()
    cond = cluster.rule_condition()
    assert cluster.deleted_at["pod"] == start
    assert parse_time(cond["lastTransitionTime"]) == start + 10
    assert cond["observedGeneration"] == 1


@pytest.mark.parametrize(("tolerations", "after"), [
    pytest.param(None, 0, id="no-toleration"),
    pytest.param([tol(seconds=120)], 120, id="toleration-seconds"),
    pytest.param([tol(key="other", seconds=20), tol(seconds=60), tol(seconds=30)], 30, id="min-of-matching"),
    pytest.param([tol(seconds=-5)], 0, id="negative-is-zero"),
    pytest.param([tol()], None, id="no-seconds-forever"),
    pytest.param([tol(seconds=10), tol()], None, id="forever-wins"),
    pytest.param([{"operator": "Exists"}], 0, id="effectless-exists-does-not-protect"),
    pytest.param([tol(effect="NoSchedule")], 0, id="noschedule-toleration-does-not-count"),
    pytest.param([tol(operator="Equal", value="other")], 0, id="wrong-value"),
    pytest.param([tol(operator="Equal", value="bad", seconds=5)], 5, id="equal-value"),
])
def test_tolerations_from_allocation_result(tolerations, after):
    """Only NoExecute tolerations count; timeAdded + min(tolerationSeconds), none → forever (§7.2, §7.3)."""
    cluster = running(tolerations=tolerations)
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run()
    if after is None:
        assert cluster.exists("pod")
        assert cluster.rule_condition()["reason"] == "NotStarted"
    else:
        assert cluster.deleted_at["pod"] == start + after


def test_pending_status_while_toleration_runs():
    """A pod inside its tolerationSeconds is pending: True/PodsPendingEviction, then Completed (§8.2)."""
    cluster = running(tolerations=[tol(seconds=120)])
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run(until=start + 60)
    cond = cluster.rule_condition()
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")
    assert cluster.exists("pod")
    cluster.run()
    assert cluster.rule_condition()["reason"] == "Completed"
    assert cluster.deleted_at["pod"] == start + 120


def test_many_pods_many_namespaces():
    """Counts and plurals of the pending and completed messages (k8s test evict-many-pods-*)."""
    cluster = Cluster(slice_(device("gpu-0"), device("gpu-1"), device("gpu-2")))
    for i, ns in enumerate(["a", "b", "b"]):
        pod = cluster.pod(f"pod-{i}", claims=[f"claim-{i}"], ns=ns)
        cluster.claim(f"claim-{i}", (f"gpu-{i}", [tol(seconds=30)]), users=[pod], ns=ns)
    cluster.store.create(rule())
    cluster.run()
    assert cluster.conditions == [("PodsPendingEviction", "3 pods need to be evicted in 2 different namespaces."),
                                  ("Completed", "3 pods evicted since starting the controller.")]


def test_slice_taint_evicts_newest_generation_only():
    """Driver taints count only in the pool's newest generation (§4.1)."""
    tainted = slice_(device("gpu-0", taint()), name="old", generation=1)
    cluster = running(slice_obj=tainted)
    assert not cluster.exists("pod")
    cluster = Cluster(tainted, slice_(device("gpu-0"), name="new", generation=2))
    pod = cluster.pod("pod", claims=["claim"])
    cluster.claim("claim", ("gpu-0", None), users=[pod])
    cluster.run()
    assert cluster.exists("pod")


def test_none_and_noschedule_slice_taints_do_not_evict():
    """Only effect NoExecute evicts; None, NoSchedule and unknown effects are ignored (§7.1)."""
    cluster = running(slice_obj=slice_(device("gpu-0", taint("None"), taint("NoSchedule"), taint("Bogus"))))
    assert cluster.exists("pod")


# -- which pods ----------------------------------------------------------------------------------

def test_unscheduled_pod_never_evicted_until_bound():
    """spec.nodeName unset → no eviction; binding it later starts eviction (§7.4)."""
    cluster = running(node=None)
    cluster.store.create(rule())
    cluster.run()
    assert cluster.exists("pod")
    pod = clone(cluster.store.get("Pod", "default", "pod"))
    pod["spec"]["nodeName"] = NODE
    cluster.store.update(pod)
    cluster.run()
    assert not cluster.exists("pod")


def test_claim_not_reserved_for_pod_is_ignored():
    """A claim whose reservedFor lacks the pod's UID never evicts it (no-evict-wrong-pod)."""
    cluster = Cluster(slice_(device("gpu-0")))
    cluster.pod("pod", claims=["claim"])
    cluster.claim("claim", ("gpu-0", None))
    cluster.store.create(rule())
    cluster.run()
    assert cluster.exists("pod")


@pytest.mark.parametrize("owned", [pytest.param(True, id="owned"), pytest.param(False, id="not-owned")])
def test_template_claim_needs_owner(owned):
    """Template claims are found via resourceClaimStatuses and must be controlled by the pod (§7.4)."""
    cluster = Cluster(slice_(device("gpu-0")))
    pod = cluster.pod("pod", templates=["pod-gpu-x7k2p"])
    cluster.claim("pod-gpu-x7k2p", ("gpu-0", None), users=[pod], owner=pod if owned else None)
    cluster.store.create(rule())
    cluster.run()
    assert cluster.exists("pod") is not owned


def test_extended_resource_claim_pods_not_evicted():
    """Pods holding devices only through status.extendedResourceClaimStatus stay (§7.5, #141290)."""
    cluster = Cluster(slice_(device("gpu-0")))
    pod = cluster.pod("pod", extended="pod-extended-resources-abcde")
    cluster.claim("pod-extended-resources-abcde", ("gpu-0", None), users=[pod], owner=pod)
    cluster.store.create(rule())
    cluster.run()
    assert cluster.exists("pod")
    assert cluster.rule_condition()["reason"] == "NotStarted"


# -- selectors -----------------------------------------------------------------------------------

def test_absent_selector_matches_nothing_empty_matches_all():
    """deviceSelector absent → no device; {} → every device of every driver (§4.3)."""
    cluster = running()
    cluster.store.create(rule("no-selector", selector=None))
    cluster.store.create(rule("empty-dry-run", effect="None", selector={}))
    cluster.run()
    assert cluster.exists("pod")
    cond = cluster.rule_condition("no-selector")
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "NotStarted", "")
    assert cluster.rule_condition("empty-dry-run")["message"] == (
        "3 published devices selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace "
        + DRY_RUN_TAIL)
    cluster.store.create(rule("empty-evict", selector={}))
    cluster.run()
    assert not cluster.exists("pod")


# -- rule status ---------------------------------------------------------------------------------

def test_none_dry_run_message_is_computed_once():
    """None rules report what NoExecute would do, once; later pods do not refresh it (§8.3, §8.4)."""
    cluster = running(slice_obj=slice_(device("gpu-0"), device("gpu-1"), device("gpu-2")))
    cluster.store.create(rule(effect="None"))
    cluster.run()
    want = ("3 published devices selected. 1 allocated device selected. "
            "1 pod would be evicted in 1 namespace " + DRY_RUN_TAIL)
    cond = cluster.rule_condition()
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "NoEffect", want)
    pod = cluster.pod("later", claims=["later"])
    cluster.claim("later", ("gpu-1", None), users=[pod])
    cluster.clock.advance(60)
    cluster.run()
    assert cluster.rule_condition() == cond
    assert cluster.exists("pod") and cluster.exists("later")


@pytest.mark.parametrize(("selector", "tolerations", "want"), [
    pytest.param({"driver": "other"}, None,
                 "0 published devices selected. 0 allocated devices selected. "
                 "0 pods would be evicted in 0 different namespaces ", id="nothing"),
    pytest.param({"device": "gpu-0"}, [tol()],
                 "1 published device selected. 1 allocated device selected. "
                 "0 pods would be evicted in 0 different namespaces ", id="tolerated-forever"),
    pytest.param(..., [tol(seconds=3600)],
                 "3 published devices selected. 1 allocated device selected. "
                 "1 pod would be evicted in 1 namespace ", id="finite-toleration-counts"),
])
def test_none_dry_run_counts(selector, tolerations, want):
    """Dry-run counts: selected published/allocated devices, pods that would get a deadline (§8.3)."""
    cluster = running(tolerations=tolerations)
    cluster.store.create(rule(effect="None", selector=selector))
    cluster.run()
    assert cluster.rule_condition()["message"] == want + DRY_RUN_TAIL


@pytest.mark.parametrize("effect", ["NoSchedule", "Unknown"])
def test_other_effect(effect):
    """Any effect but NoExecute/None reports OtherEffect (§8.5)."""
    cluster = running()
    cluster.store.create(rule(effect=effect))
    cluster.run()
    cond = cluster.rule_condition()
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "OtherEffect", "Eviction only happens for the NoExecute effect.")
    assert cluster.exists("pod")


def test_none_to_noexecute_switch():
    """Dry run, then switch to NoExecute: generation 2, PodsPendingEviction → Completed (§9.1)."""
    cluster = running(tolerations=[tol(seconds=30)])
    cluster.store.create(rule(effect="None"))
    cluster.run()
    cluster.clock.advance(100)
    switched = clone(cluster.store.get("DeviceTaintRule", None, "rule"))
    switched["spec"]["taint"]["effect"] = "NoExecute"
    switched["spec"]["taint"]["timeAdded"] = cluster.clock.timestamp()   # the API server's reset (§3.5)
    cluster.store.update(switched)
    switch_time = cluster.clock.now
    cluster.run()
    assert cluster.deleted_at["pod"] == switch_time + 30
    assert [reason for reason, _ in cluster.conditions] == ["NoEffect", "PodsPendingEviction", "Completed"]
    cond = cluster.rule_condition()
    assert (cond["message"], cond["observedGeneration"]) == ("1 pod evicted since starting the controller.", 2)


def test_noexecute_to_none_keeps_suffix():
    """Switching back to None within the status period keeps the evicted-pods suffix (§8.6)."""
    cluster = running()
    cluster.store.create(rule())
    cluster.run(until=cluster.clock.now + 1)
    back = clone(cluster.store.get("DeviceTaintRule", None, "rule"))
    back["spec"]["taint"]["effect"] = "None"
    cluster.store.update(back)
    cluster.run()
    assert cluster.rule_condition()["message"] == (
        "3 published devices selected. 1 allocated device selected. 0 pods would be evicted in "
        "0 different namespaces " + DRY_RUN_TAIL + " 1 pod evicted since starting the controller.")


def test_spec_change_after_completion_refreshes_status_at_once():
    """Long after Completed, switching the rule back to None queues an immediate status update
    (k8s: handleRuleChange on a changed spec): a fresh dry run for the new generation."""
    cluster = running()
    cluster.store.create(rule())
    cluster.run()
    assert cluster.rule_condition()["reason"] == "Completed"
    cluster.clock.advance(3600)
    back = clone(cluster.store.get("DeviceTaintRule", None, "rule"))
    back["spec"]["taint"]["effect"] = "None"
    updated = cluster.store.update(back)
    cluster.run()
    cond = cluster.rule_condition()
    assert (cond["reason"], cond["observedGeneration"]) == ("NoEffect", updated["metadata"]["generation"])
    assert cond["message"] == (
        "3 published devices selected. 1 allocated device selected. 0 pods would be evicted in "
        "0 different namespaces " + DRY_RUN_TAIL + " 1 pod evicted since starting the controller.")
    assert parse_time(cond["lastTransitionTime"]) == cluster.clock.now


# -- cancellation --------------------------------------------------------------------------------

def _pending():
    cluster = running(tolerations=[tol(seconds=120)])
    cluster.store.create(rule())
    cluster.run(until=cluster.clock.now + 60)
    assert cluster.exists("pod")
    return cluster


def _delete_rule(cluster):
    cluster.store.delete("DeviceTaintRule", None, "rule")


def _tolerated_value(cluster):
    changed = clone(cluster.store.get("DeviceTaintRule", None, "rule"))
    changed["spec"]["deviceSelector"] = {"driver": "other"}
    cluster.store.update(changed)


def _deallocate(cluster):
    claim = clone(cluster.store.get("ResourceClaim", "default", "claim"))
    claim["status"] = {}
    cluster.store.update_status(claim)


@pytest.mark.parametrize("cancel", [
    pytest.param(_delete_rule, id="rule-deleted"),
    pytest.param(_tolerated_value, id="rule-no-longer-selects"),
    pytest.param(_deallocate, id="claim-deallocated"),
])
def test_cancellation(cancel):
    """A pending eviction is cancelled with a "Cancelling deletion" event when its reason goes (§7.7)."""
    cluster = _pending()
    cancel(cluster)
    cluster.run()
    assert cluster.exists("pod")
    assert cluster.events() == [("pod", "Cancelling deletion")]


def test_pod_deleted_before_deadline_no_event():
    """A pod deleted by someone else is forgotten without an event (k8s: handlePodChange)."""
    cluster = _pending()
    cluster.store.delete("Pod", "default", "pod")
    cluster.run()
    assert cluster.events() == []


def _set_slice_taint(cluster, **fields):
    updated = clone(cluster.store.get("ResourceSlice", None, "node-1-gpu"))
    updated["spec"]["devices"][0]["taints"] = [taint(**fields)]
    cluster.store.update(updated)


def test_changed_slice_taint_recomputes_from_its_time_added():
    """A taint changed to another untolerated value counts from the new taint's timeAdded (§7.7)."""
    cluster = running(tolerations=[tol(operator="Equal", value="a", seconds=100), tol(value="b", operator="Equal")])
    start = cluster.clock.now
    _set_slice_taint(cluster, value="a", time_added=cluster.clock.timestamp())
    cluster.run(until=start + 50)
    cluster.clock.advance(start + 50 - cluster.clock.now)
    assert cluster.exists("pod")
    _set_slice_taint(cluster, value="c", time_added=cluster.clock.timestamp())
    cluster.run()
    assert cluster.deleted_at["pod"] == start + 50
    assert cluster.events() == [("pod", "Marking for deletion")]


@pytest.mark.parametrize(("first", "second", "gone"), [
    pytest.param("bad", "ok", False, id="now-tolerated"),
    pytest.param("bad", "worse", True, id="still-untolerated"),
])
def test_slice_taint_change(first, second, gone):
    """Changing a slice taint to a tolerated value cancels the pending eviction (cancel-eviction-*)."""
    cluster = running(tolerations=[tol(operator="Equal", value="ok")])
    _set_slice_taint(cluster, value=first, time_added=cluster.clock.timestamp())
    _set_slice_taint(cluster, value=second, time_added=cluster.clock.timestamp())
    cluster.run()
    assert cluster.exists("pod") is not gone
    assert cluster.events() == [("pod", "Marking for deletion" if gone else "Cancelling deletion")]


# -- what-if -------------------------------------------------------------------------------------

def test_rule_what_if():
    """The library reports devices, claims and pods a rule would hit, with offset and reason."""
    cluster = Cluster(slice_(device("gpu-0"), device("gpu-1"), device("gpu-2")),
                      slice_(device("gpu-9"), name="stale", generation=0))
    pods = [cluster.pod(f"pod-{i}", claims=[f"claim-{i}"]) for i in range(3)]
    cluster.claim("claim-0", ("gpu-0", None), users=[pods[0]])
    cluster.claim("claim-1", ("gpu-1", [tol(seconds=45), tol(seconds=-1, key="x")]), users=[pods[1]])
    cluster.claim("claim-2", ("gpu-2", [tol()]), users=[pods[2]])
    store = cluster.store
    result = rule_what_if(rule(effect="None"), pods=store.list("Pod"), claims=store.list("ResourceClaim"),
                          slices=store.list("ResourceSlice"))
    assert result.published_devices == tuple((DRIVER, NODE, f"gpu-{i}") for i in range(3))
    assert [a.device[2] for a in result.allocated_devices] == ["gpu-0", "gpu-1", "gpu-2"]
    assert result.claims_hit == ("default/claim-0", "default/claim-1", "default/claim-2")
    assert [(p.pod, p.after_seconds, p.reason) for p in result.evicted_pods] == [
        ("default/pod-0", 0, f"{DRIVER}/{NODE}/gpu-0 in claim default/claim-0: no NoExecute toleration"),
        ("default/pod-1", 45, f"{DRIVER}/{NODE}/gpu-1 in claim default/claim-1: tolerationSeconds 45")]
    assert [p.pod for p in result.tolerating_pods] == ["default/pod-2"]
    assert result.message() == ("3 published devices selected. 3 allocated devices selected. "
                                "2 pods would be evicted in 1 namespace " + DRY_RUN_TAIL)
    assert store.list("Event") == [] and all("status" not in r for r in store.list("DeviceTaintRule"))


def test_pending_message_carries_evicted_suffix():
    """While pods remain, PodsPendingEviction also reports pods already evicted (§8.2, §8.6)."""
    cluster = Cluster(slice_(device("gpu-0"), device("gpu-1")))
    for i, seconds in enumerate([5, 100]):
        pod = cluster.pod(f"pod-{i}", claims=[f"claim-{i}"])
        cluster.claim(f"claim-{i}", (f"gpu-{i}", [tol(seconds=seconds)]), users=[pod])
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run()
    assert cluster.conditions == [
        ("PodsPendingEviction", "2 pods need to be evicted in 1 namespace."),
        ("PodsPendingEviction", "1 pod needs to be evicted in 1 namespace. 1 pod evicted since starting the controller."),
        ("Completed", "2 pods evicted since starting the controller.")]
    assert parse_time(cluster.rule_condition()["lastTransitionTime"]) == start + 110


# -- property: the what-if agrees with the controller ----------------------------------------------

_TOLERATIONS = st.lists(st.one_of(
    st.builds(tol, effect=st.sampled_from(["NoExecute", "NoSchedule"]), key=st.sampled_from([KEY, "other"]),
              seconds=st.one_of(st.none(), st.integers(-10, 300))),
    st.just({"operator": "Exists"})), max_size=3)


@settings(max_examples=60, deadline=None)
@given(tolerations=st.lists(_TOLERATIONS, min_size=1, max_size=4), scheduled=st.lists(st.booleans(), min_size=4,
                                                                                      max_size=4))
def test_what_if_matches_controller(tolerations, scheduled):
    """Pods the dry run says would be evicted are exactly those NoExecute deletes, each at its offset."""
    cluster = Cluster(slice_(*(device(f"gpu-{i}") for i in range(4))))
    for i, tols in enumerate(tolerations):
        pod = cluster.pod(f"pod-{i}", claims=[f"claim-{i}"], node=NODE if scheduled[i] else None)
        cluster.claim(f"claim-{i}", (f"gpu-{i}", tols), users=[pod])
    store = cluster.store
    what_if = rule_what_if(rule(), pods=store.list("Pod"), claims=store.list("ResourceClaim"),
                           slices=store.list("ResourceSlice"))
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run()
    assert {p.pod: p.after_seconds for p in what_if.evicted_pods} == {
        f"default/{name}": at - start for name, at in cluster.deleted_at.items()}
    assert all(cluster.exists(p.pod.split("/")[1]) for p in what_if.tolerating_pods)


def test_negative_toleration_seconds_count_as_zero():
    """tolerationSeconds < 0 means 0: eviction at timeAdded, even when timeAdded lies ahead (§7.2)."""
    cluster = running(tolerations=[tol(seconds=-20)])
    ahead = cluster.clock.now + 50
    cluster.store.create(rule(time_added=format_time(ahead)))
    cluster.run()
    assert cluster.deleted_at["pod"] == ahead
    pod = cluster.pod("what-if", claims=["what-if"])
    cluster.claim("what-if", ("gpu-1", [tol(seconds=-20)]), users=[pod])
    store = cluster.store
    what_if = rule_what_if(rule(), pods=store.list("Pod"), claims=store.list("ResourceClaim"), slices=[])
    assert [(p.pod, p.after_seconds) for p in what_if.evicted_pods] == [("default/what-if", 0)]


def test_status_updates_at_most_every_period():
    """A pod gaining the rule as reason re-queues the status, but not before 10 s since the last change (§8.1)."""
    cluster = Cluster(slice_(device("gpu-0"), device("gpu-1")))
    first = cluster.pod("first", claims=["first"])
    cluster.claim("first", ("gpu-0", [tol(seconds=300)]), users=[first])
    start = cluster.clock.now
    cluster.store.create(rule())
    cluster.run(until=start)
    cluster.clock.advance(3)
    second = cluster.pod("second", claims=["second"])
    cluster.claim("second", ("gpu-1", [tol(seconds=300)]), users=[second])
    cluster.run(until=start + 60)
    cond = cluster.rule_condition()
    assert cond["message"] == "2 pods need to be evicted in 1 namespace."
    assert parse_time(cond["lastTransitionTime"]) == start + 10
