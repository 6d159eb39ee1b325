"""Quota accounting is incremental, as kube-apiserver's is, and still right.

Random sequences of pod and claim creates (alone, duplicated, or several in one phase), pods
finishing, claims allocated, deletes, quota creates and edits and the passing of a resync
period, in two namespaces, run on a real control plane. A model follows what v1.37 does:

- admission adds the new object's usage (masked by status.hard) to status.used and checks it
  against status.hard (staging/.../admission/plugin/resourcequota/controller.go CheckRequest),
  after refusing a pod whose containers leave unset a cpu or memory key a matching quota limits
  (pods.go podEvaluator.Constraints: pods without memory under the first quota of HARDS);
- the quota controller recounts everything only when k8s does: the quota's initial sync and
  spec.hard edits, replenishment (a pod or claim deleted, a pod that stops being charged) for
  the quotas whose status.hard the kind's evaluator matches, and the periodic resync
  (pkg/controller/resourcequota/resource_quota_controller.go, resource_quota_monitor.go,
  pkg/quota/v1/install/update_filter.go).

After every settle, each quota's status.used must equal the model's, and every admit/deny
decision (message included) must equal the one the model's status gives. The model's status is
in turn compared with a full recount (quota_used, what drasim computed at every admission
before): the two must agree unless, since the quota was last recounted, something happened that
v1.37 itself does not recount on:

- "charged, not stored": a create admitted (and charged) whose storing then failed
  (AlreadyExists); v1.37 keeps the charge until the next recount;
- "not replenished": a pod deleted or finished while the quota tracks no pod resource (a
  claims-only quota), which changes what its special claims pay;
- "charged, not counted": a claim charged under an implicit extended-resource key that the claim
  evaluator does not count (its class has no explicit name), so a recount drops it again;
- "exemption moved": a new special claim of a pod wins the oldest-then-smallest-name tie
  (getVerifiedPodUsage), so an earlier one now pays in full; admission charges only the new one.
"""
from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.api.quantity import parse_quantity
from drasim.controllers import quota as accounting
from drasim.controllers.quotaadmission import admission_error, pod_constraints_error
from drasim.controllers.quotacontroller import RESYNC_SECONDS
from drasim.controlplane import ControlPlane, options_for
from drasim.errors import InputError
from drasim.scheduler.plugins.extendedresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from drasim.store import StoreError

NAMESPACES = ("a", "b")
GPU = "example.com/gpu"
PLAIN_IMPLICIT = "requests.deviceclass.resource.kubernetes.io/plain"
HARDS = [   # spec.hard choices: pods, compute, extended and device keys; claims-only; the unmatched key
    {"pods": "3", "requests.cpu": "1", "requests.memory": "1Gi", "limits.memory": "2Gi"},
    {"count/pods": "4", "requests." + GPU: "3", "gpu.deviceclass.resource.k8s.io/devices": "4"},
    {"count/resourceclaims.resource.k8s.io": "3", "gpu.deviceclass.resource.k8s.io/devices": "3"},
    {"requests.deviceclass.resource.kubernetes.io/gpu": "3", "requests." + GPU: "2"},
    {"pods": "5", "count/resourceclaims.resource.k8s.io": "4", PLAIN_IMPLICIT: "2", "requests." + GPU: "4"},
    {"pods": "2", "requests.cpu": "500m"},
]
SCOPES = [None, ["NotTerminating"], ["Terminating"]]
CPUS = ["0", "100m", "250m", "1"]
MEMORIES = [None, "128Mi", "512Mi", "1Gi", "100M"]

ns_ = st.sampled_from(NAMESPACES)
pick = st.integers(0, 50)
pod_spec = st.tuples(st.sampled_from(CPUS), st.sampled_from(MEMORIES), st.integers(0, 2), st.booleans())
claim_spec = st.tuples(st.sampled_from(["gpu", "plain"]), st.integers(1, 3), st.booleans(), pick)
ops = st.one_of(
    st.tuples(st.just("pod"), ns_, pod_spec),
    st.tuples(st.just("claim"), ns_, claim_spec),
    st.tuples(st.just("pod"), ns_, pod_spec),      # creates twice as often: the rest needs objects
    st.tuples(st.just("claim"), ns_, claim_spec),
    st.tuples(st.just("duplicate"), pick, pod_spec),
    st.tuples(st.just("phase"), ns_, st.lists(st.one_of(pod_spec, claim_spec), min_size=1, max_size=4)),
    st.tuples(st.just("finish"), pick, st.sampled_from(["Succeeded", "Failed"])),
    st.tuples(st.just("allocate"), pick),
    st.tuples(st.just("delete_pod"), pick),
    st.tuples(st.just("delete_claim"), pick),
    st.tuples(st.just("quota"), ns_, st.integers(0, 1), st.integers(0, len(HARDS) - 1),
              st.integers(0, len(SCOPES) - 1)),
    st.tuples(st.just("resync")),
)


def doc(obj: dict) -> Document:
    return Document(f"test/{obj['metadata']['name']}", kinds.lookup(obj["apiVersion"], obj["kind"]), obj)


def make_pod(name: str, ns: str, spec) -> dict:
    cpu, memory, gpus, terminating = spec
    requests = {"cpu": cpu, **({"memory": memory} if memory else {}), **({GPU: str(gpus)} if gpus else {})}
    limits = {**({"memory": memory} if memory else {}), **({GPU: str(gpus)} if gpus else {})}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
           "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                    "resources": {"requests": requests, "limits": limits}}]}}
    if terminating:
        pod["spec"]["activeDeadlineSeconds"] = 600
    return pod


def make_claim(name: str, ns: str, spec, owner: dict | None) -> dict:
    class_name, count, special, _ = spec
    md: dict = {"name": name, "namespace": ns}
    if special and owner is not None:
        md["annotations"] = {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}
        md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner["metadata"]["name"],
                                  "uid": owner["metadata"]["uid"], "controller": True}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md,
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                "deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}}]}}}


def values(used: dict) -> dict[str, Fraction]:
    return {k: parse_quantity(v).value for k, v in used.items()}


class Model:
    """v1.37's status.used, kept as the admission plugin and the quota controller keep it."""

    def __init__(self, cp: ControlPlane) -> None:
        self.cp = cp
        self.status: dict[tuple[str, str], dict] = {}         # (ns, quota) → {"hard", "used"} (quantities)
        self.stale: dict[tuple[str, str], set[str]] = {}      # why a recount would differ now

    # -- the controller's side -----------------------------------------------------------
    def recount(self, key: tuple[str, str]) -> None:
        q = self.cp.store.get("ResourceQuota", *key)
        used = accounting.quota_used(q, self.cp.store.list("Pod", key[0]), self.cp.store.list("ResourceClaim", key[0]),
                                     self.cp.er_cache)
        self.status[key] = {"hard": dict(q["spec"]["hard"]), "used": {k: parse_quantity(v) for k, v in used.items()}}
        self.stale[key] = set()

    def replenish(self, ns: str, kind: str) -> None:
        """k8s replenishQuota: the namespace's quotas whose status.hard the evaluator matches."""
        for (qns, name), status in self.status.items():
            if qns != ns:
                continue
            hard = list(status["hard"])
            matched = (accounting.pod_matching_resources(hard) if kind == "Pod"
                       else accounting.claim_matching_resources(hard, self.cp.er_cache))
            if matched:
                self.recount((qns, name))
            elif kind == "Pod":
                self.stale[(qns, name)].add("not replenished")

    # -- the admission side ----------------------------------------------------------------
    def quotas(self, ns: str) -> list[dict]:
        return [{"metadata": {"name": name, "namespace": qns},
                 "spec": self.cp.store.get("ResourceQuota", qns, name)["spec"],
                 "status": {"hard": s["hard"], "used": {k: v.canonical() for k, v in s["used"].items()}}}
                for (qns, name), s in sorted(self.status.items()) if qns == ns]

    def usage(self, obj: dict, pending: list[dict]) -> dict:
        if obj["kind"] == "Pod":
            return accounting.pod_usage(obj)
        ns = obj["metadata"]["namespace"]
        pods = self.cp.store.list("Pod", ns) + [p for p in pending if p["kind"] == "Pod"]
        claims = self.cp.store.list("ResourceClaim", ns) + [c for c in pending if c["kind"] == "ResourceClaim"]
        return accounting.claim_usage(obj, pods_by_uid={p["metadata"]["uid"]: p for p in pods},
                                      claims_in_namespace=claims, cache=self.cp.er_cache)

    def others_changed(self, new_claim: dict) -> bool:
        """Whether creating *new_claim* changes what the namespace's other claims pay (a special
        claim of the same pod that wins the oldest-then-smallest-name tie takes the exemption)."""
        ns = new_claim["metadata"]["namespace"]
        pods = {p["metadata"]["uid"]: p for p in self.cp.store.list("Pod", ns)}
        claims = [c for c in self.cp.store.list("ResourceClaim", ns)
                  if c["metadata"]["name"] != new_claim["metadata"]["name"]]
        def usage(c, peers):
            return accounting.claim_usage(c, pods_by_uid=pods, claims_in_namespace=peers, cache=self.cp.er_cache)
        return any(usage(c, claims) != usage(c, claims + [new_claim]) for c in claims)

    def decide(self, obj: dict, pending: list[dict], status: dict) -> str | None:
        """The v1.37 decision against *status* (charged into it when admitted)."""
        ns = obj["metadata"]["namespace"]
        delta = self.usage(obj, pending)
        if obj["kind"] == "Pod":
            kw = {"matching": accounting.pod_matching_resources,
                  "scope_match": lambda q: accounting.pod_matches_scopes(obj, q),
                  "constraints": lambda restricted: pod_constraints_error(obj, restricted)}
        else:
            kw = {"matching": lambda names: accounting.claim_matching_resources(names, self.cp.er_cache),
                  "scope_match": lambda q: not (q["spec"].get("scopes"))}
        quotas = [q for q in self.quotas(ns)]
        for q in quotas:
            q["status"]["used"] = {k: v.canonical() for k, v in status[(ns, q["metadata"]["name"])]["used"].items()}
        message = admission_error(quotas, ns, delta, **kw)
        if message is None:
            for q in quotas:
                key = (ns, q["metadata"]["name"])
                hard = status[key]["hard"]
                matched = kw["matching"](list(hard))
                if not matched or not kw["scope_match"](q):
                    continue
                for k, v in delta.items():
                    if k in hard and v.value:
                        used = status[key]["used"]
                        used[k] = accounting._add(used[k], v) if k in used else v
                        if obj["kind"] == "ResourceClaim" and k == PLAIN_IMPLICIT and k not in \
                                accounting.claim_matching_resources([k], self.cp.er_cache):
                            self.stale[key].add("charged, not counted")
        return message


def copy_status(status: dict) -> dict:
    return {k: {"hard": dict(s["hard"]), "used": dict(s["used"])} for k, s in status.items()}


def setup() -> ControlPlane:
    cp = ControlPlane(options_for(None, kubelets=False))
    cp.run_phase([doc(o) for o in (
        *({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in NAMESPACES),
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"extendedResourceName": GPU}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "plain"}, "spec": {}},
        # Room for every pod (GPUs from a device plugin): no pod waits, so no timer moves the clock
        # and the resync runs only when a test says so.
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"kubernetes.io/hostname": "n"}},
         "status": {"allocatable": {"cpu": "1k", "memory": "1Ti", "pods": "1k", GPU: "1k"},
                    "capacity": {"cpu": "1k", "memory": "1Ti", "pods": "1k", GPU: "1k"},
                    "conditions": [{"type": "Ready", "status": "True"}]}})])
    return cp


def run(op_list, check_recount: bool = True) -> None:
    cp = setup()
    model = Model(cp)
    for i, op in enumerate(op_list):
        resync_before = cp.quota_controller._next_resync
        pods = sorted(cp.store.list("Pod"), key=lambda p: p["metadata"]["name"])
        claims = sorted(cp.store.list("ResourceClaim"), key=lambda c: c["metadata"]["name"])
        recount_after: list[tuple[str, str]] = []
        kind = op[0]
        if kind in ("pod", "claim", "duplicate"):
            if kind == "pod":
                obj = make_pod(f"p{i}", op[1], op[2])
            elif kind == "claim":
                owner = pods[op[2][3] % len(pods)] if pods and pods[op[2][3] % len(pods)]["metadata"]["namespace"] == op[1] else None
                obj = make_claim(f"c{i}", op[1], op[2], owner)
            else:
                if not pods:
                    continue
                target = pods[op[1] % len(pods)]
                obj = make_pod(target["metadata"]["name"], target["metadata"]["namespace"], op[2])
            # k8s stamps uid and creationTimestamp before admission (BeforeCreate)
            prepared = dict(obj, metadata=dict(obj["metadata"], uid=f"model-{i}",
                                               creationTimestamp=cp.clock.timestamp()))
            before = copy_status(model.status)
            want = model.decide(prepared, [], model.status)
            try:
                cp.create(obj)
                got = None
            except StoreError:   # AlreadyExists, after admission charged it
                got = None
                assert kind == "duplicate"
                ns = obj["metadata"]["namespace"]
                for key in model.status:
                    if key[0] == ns and model.status[key]["used"] != before[key]["used"]:
                        model.stale[key].add("charged, not stored")
            except InputError as e:
                got = str(e)
            if want is None:
                assert got is None, f"op {i} {op}: refused: {got}"
                if kind == "claim" and model.others_changed(prepared):
                    for key in model.status:
                        if key[0] == obj["metadata"]["namespace"]:
                            model.stale[key].add("exemption moved")
            else:
                assert got is not None and got.endswith(f'"{obj["metadata"]["name"]}" is forbidden: {want}'), \
                    f"op {i} {op}: want {want!r}, got {got!r}"
                model.status = before
        elif kind == "phase":
            ns, specs = op[1], op[2]
            objs = [make_pod(f"p{i}x{j}", ns, s) if len(s) == 4 and isinstance(s[3], bool) else
                    make_claim(f"c{i}x{j}", ns, s, None) for j, s in enumerate(specs)]
            trial = copy_status(model.status)
            want, pending = None, []
            for j, obj in enumerate(objs):
                prepared = dict(obj, metadata=dict(obj["metadata"], uid=f"model-{i}-{j}",
                                                   creationTimestamp=cp.clock.timestamp()))
                want = model.decide(prepared, pending, trial)
                if want is not None:
                    want = f'"{obj["metadata"]["name"]}" is forbidden: {want}'
                    break
                pending.append(prepared)
            try:
                cp.apply([doc(o) for o in objs])
                got = None
            except InputError as e:
                got = str(e)
            if want is None:
                assert got is None, f"op {i} {op}: refused: {got}"
                model.status = trial
            else:
                assert got is not None and got.endswith(want), f"op {i} {op}: want {want!r}, got {got!r}"
        elif kind == "finish" and pods:
            pod = pods[op[1] % len(pods)]
            cp.store.update_status(dict(pod, status=dict(pod.get("status") or {}, phase=op[2])))
        elif kind == "allocate" and claims:
            claim = claims[op[1] % len(claims)]
            cp.store.update_status(dict(claim, status={"allocation": {"devices": {"results": []}}}))
        elif kind == "delete_pod" and pods:
            pod = pods[op[1] % len(pods)]
            cp.delete("Pod", pod["metadata"]["namespace"], pod["metadata"]["name"])
        elif kind == "delete_claim" and claims:
            claim = claims[op[1] % len(claims)]
            cp.delete("ResourceClaim", claim["metadata"]["namespace"], claim["metadata"]["name"])
        elif kind == "quota":
            ns, name = op[1], f"q{op[2]}"
            hard, scopes = HARDS[op[3]], SCOPES[op[4]]
            current = cp.store.get("ResourceQuota", ns, name)
            if current is None:
                spec = {"hard": dict(hard), **({"scopes": scopes} if scopes else {})}
                cp.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
                           "spec": spec})
                model.stale[(ns, name)] = set()
                recount_after.append((ns, name))
            else:   # scopes are immutable: only spec.hard changes
                cp.update(dict(current, spec=dict(current["spec"], hard=dict(hard))), current)
                if values(current["spec"]["hard"]) != values(hard):
                    recount_after.append((ns, name))
        elif kind == "resync":
            cp.clock.advance(RESYNC_SECONDS)
        seen_pods = {p["metadata"]["uid"]: p for p in cp.store.list("Pod") + pods}   # as before the op
        seen_claims = {c["metadata"]["uid"]: c for c in cp.store.list("ResourceClaim") + claims}
        cp.settle()
        # What the controllers did meanwhile counts too (the resourceclaim controller deletes a
        # finished pod's claims): replenishment follows the objects, not the operations.
        for p in seen_pods.values():
            now = cp.store.get("Pod", p["metadata"]["namespace"], p["metadata"]["name"])
            if now is None or now["metadata"]["uid"] != p["metadata"]["uid"] or (
                    accounting.is_pod_charged(p) and not accounting.is_pod_charged(now)):
                recount_after.append(("Pod", p["metadata"]["namespace"]))
        for c in seen_claims.values():
            now = cp.store.get("ResourceClaim", c["metadata"]["namespace"], c["metadata"]["name"])
            if now is None or now["metadata"]["uid"] != c["metadata"]["uid"]:
                recount_after.append(("ResourceClaim", c["metadata"]["namespace"]))
        if cp.quota_controller._next_resync != resync_before:   # the controller's resync ran
            recount_after = list(model.status)
        for what in recount_after:
            if what[0] in ("Pod", "ResourceClaim"):
                model.replenish(what[1], what[0])
            else:
                model.recount(what)
        check(cp, model, i, op, check_recount)


def check(cp: ControlPlane, model: Model, i: int, op, check_recount: bool) -> None:
    for (ns, name), status in model.status.items():
        stored = cp.store.get("ResourceQuota", ns, name)["status"]
        assert values(stored["used"]) == {k: v.value for k, v in status["used"].items()}, \
            f"after op {i} {op}: {ns}/{name} used {stored['used']}, v1.37 would have " \
            f"{ {k: v.canonical() for k, v in status['used'].items()} }"
        assert stored["hard"] == status["hard"]
        if not check_recount:
            continue
        recount = accounting.quota_used(cp.store.get("ResourceQuota", ns, name), cp.store.list("Pod", ns),
                                        cp.store.list("ResourceClaim", ns), cp.er_cache)
        if not model.stale[(ns, name)]:
            assert values(stored["used"]) == values(recount), \
                f"after op {i} {op}: {ns}/{name} used {stored['used']}, a recount gives {recount}"
            # Same text too while every contribution is written alike (Go: Add keeps the left format).
            if all(p["spec"]["containers"][0]["resources"]["requests"].get("memory", "Mi").endswith("i")
                   for p in cp.store.list("Pod", ns)):
                assert stored["used"] == recount, f"after op {i} {op}: {stored['used']} != {recount}"


quota_op = st.tuples(st.just("quota"), ns_, st.integers(0, 1), st.integers(0, len(HARDS) - 1),
                     st.integers(0, len(SCOPES) - 1))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(quota_op, min_size=1, max_size=3), st.lists(ops, min_size=8, max_size=40))
def test_incremental_usage_is_what_v1_37_keeps(quotas, op_list):
    run(quotas + op_list)   # most sequences start with quotas: the interesting cases need them


def test_a_charge_for_an_object_not_stored_stays_until_a_recount():
    """The duplicate's charge is in status.used (v1.37 charges before storage refuses it), and
    the resync takes it out again."""
    run([("quota", "a", 0, 0, 0), ("pod", "a", ("100m", "128Mi", 0, False)),
         ("duplicate", 0, ("250m", None, 0, False)), ("resync",)])
    cp = setup()
    cp.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "a"},
               "spec": {"hard": {"pods": "3"}}})
    cp.settle()
    cp.create(make_pod("p", "a", ("0", None, 0, False)))
    try:
        cp.create(make_pod("p", "a", ("0", None, 0, False)))
    except StoreError:
        pass
    cp.settle()
    assert cp.store.get("ResourceQuota", "a", "q")["status"]["used"] == {"pods": "2"}
    cp.clock.advance(RESYNC_SECONDS)
    cp.settle()
    assert cp.store.get("ResourceQuota", "a", "q")["status"]["used"] == {"pods": "1"}
