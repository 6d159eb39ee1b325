"""Quota admission as kube-apiserver's ResourceQuota plugin does it: the incoming object's usage
is added to each matching quota's `status.used` and checked against `status.hard`; an admitted
create writes the quota's new `status.used` back (one quota write, not a recount). Before that,
each matching quota's evaluator Constraints may refuse the object (pods: pod_constraints_error).

k8s: staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go
(CheckRequest for one request; checkQuotas for a batch of waiting requests evaluated against
running copies of the quotas, each changed quota then written once).

Only creates are admitted (drasim sends no pod or claim update through quota admission).
A phase of manifests is one batch: its creates are charged in order against running copies
and the quotas are written once the whole phase is admitted, so a refused phase changes
nothing. A charge stays in `status.used` even if the object then fails to be stored
(AlreadyExists), as in v1.37, until the quota controller next recalculates the quota
(replenishment, spec change, resync: quotacontroller.py).
"""
from __future__ import annotations

from functools import partial
from typing import Callable, Iterable, Mapping

from drasim.api.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity, parse_quantity
from drasim.controllers import quota as accounting
from drasim.controllers.quota import Usage, _add, _parse_list, _scope_selectors, _special_owner_uid, quantity_of
from drasim.store import MemoryStore

__all__ = ["QuotaBatch", "admission_error", "admission_error_for", "canonical", "check_request", "pod_constraints_error"]


def _pretty(items: Mapping[str, Quantity]) -> str:
    """k8s: prettyPrint (keys sorted, Quantity.String)."""
    return ",".join(f"{k}={items[k].canonical()}" for k in sorted(items))


def check_request(quotas: Iterable[dict], delta_usage: Mapping[str, Quantity], *,
                  matching: Callable[[list[str]], list[str]] | None = None,
                  scope_match: Callable[[dict], bool] | None = None,
                  limits: Callable[[dict], tuple[Usage, Usage]] | None = None,
                  constraints: Callable[[list[str]], str | None] | None = None) -> tuple[str | None, dict[str, Usage]]:
    """k8s CheckRequest for a create whose usage is *delta_usage*, against *quotas* (one
    namespace's, checked in name order): (the Forbidden reason, None if admitted; the new
    `status.used` of each quota the create changes, by quota name).

    Limits are `status.hard` (what the controller last synced; a quota not synced yet limits
    nothing). *matching* is the object's evaluator MatchingResources; without it a quota is
    relevant when it limits a key of *delta_usage*. *scope_match(quota)*: the evaluator's
    Matches scope test (claims: no scopes match); default: always. The message excludes the
    `<kind> "<name>" is forbidden: ` prefix the API server adds. *limits(quota)*: its
    (status.hard, status.used) as quantities (default: parsed from the quota). *constraints(restricted)*:
    the evaluator's Constraints, the reason the object fails a matching quota (pods:
    pod_constraints_error; claims and the default: none)."""
    interesting: list[tuple[dict, Usage, Usage]] = []
    quotas = list(quotas)
    if len(quotas) > 1:
        quotas.sort(key=lambda q: (q.get("metadata") or {}).get("name", ""))
    for quota in quotas:
        hard, used = limits(quota) if limits else _limits_of(quota)
        restricted = matching(list(hard)) if matching else [k for k in hard if k in delta_usage]
        if not restricted or (scope_match is not None and not scope_match(quota)):
            continue   # k8s: evaluator.Matches
        if constraints is not None and (failed := constraints(restricted)):   # k8s: evaluator.Constraints
            return f"failed quota: {quota['metadata'].get('name', '')}: {failed}", {}
        if matching and any(k not in used for k in restricted):   # k8s: hasUsageStats
            name = quota["metadata"].get("name", "")
            return f"status unknown for quota: {name}, resources: {','.join(sorted(set(restricted)))}", {}
        interesting.append((quota, hard, used))
    if negative := [k for k, q in delta_usage.items() if q.value < 0]:
        return f"quota usage is negative for resource(s): {','.join(sorted(negative))}", {}
    delta = {k: q for k, q in delta_usage.items() if q.value != 0}   # k8s: quota.RemoveZeros
    if not interesting or not delta:
        return None, {}
    charged: dict[str, Usage] = {}
    for quota, hard, used in interesting:
        requested = {k: q for k, q in delta.items() if k in hard}     # k8s: quota.Mask(delta, hard)
        if not requested:
            continue
        new_used = dict(used)
        for k, q in requested.items():                                # k8s: quota.Add(used, requested)
            new_used[k] = _add(used[k], q) if k in used else q
        exceeded = [k for k in requested if new_used[k].value > hard[k].value]
        if exceeded:
            exceeded.sort()
            return ("exceeded quota: {}, requested: {}, used: {}, limited: {}".format(
                quota["metadata"].get("name", ""),
                _pretty({k: requested[k] for k in exceeded}),
                _pretty({k: used[k] for k in exceeded if k in used}),
                _pretty({k: hard[k] for k in exceeded}))), {}
        charged[quota["metadata"].get("name", "")] = new_used
    return None, charged


def _limits_of(quota: dict) -> tuple[Usage, Usage]:
    status = quota.get("status") or {}
    return _parse_list(status.get("hard")), _parse_list(status.get("used"))


def admission_error(quota_list: Iterable[dict], namespace: str, delta_usage: Mapping[str, Quantity], *,
                    matching: Callable[[list[str]], list[str]] | None = None,
                    scope_match: Callable[[dict], bool] | None = None,
                    constraints: Callable[[list[str]], str | None] | None = None) -> str | None:
    """check_request's reason for the quotas of *namespace* among *quota_list* (None: admitted)."""
    mine = [q for q in quota_list if (q.get("metadata") or {}).get("namespace") == namespace]
    return check_request(mine, delta_usage, matching=matching, scope_match=scope_match, constraints=constraints)[0]


# Parsed limits of stored quota statuses, by identity (a status is parsed once, not per create).
_PARSED: dict[int, tuple[dict, Usage, Usage]] = {}


class QuotaBatch:
    """Running copies of the quotas admission charged for a batch of creates, written at commit
    (k8s: checkQuotas). Also indexes the batch's pending objects that claim usage looks up."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._used: dict[tuple[str, str], Usage] = {}    # (namespace, quota) → charged status.used
        self._indexed = 0                                # pending objects indexed so far
        self._pods: dict[str, dict] = {}                 # pending pods by uid
        self._special: dict[str, list[dict]] = {}        # pending special claims by owner pod uid

    def quotas(self, namespace: str) -> list[dict]:
        return self.store.list("ResourceQuota", namespace)

    def limits(self, quota: dict) -> tuple[Usage, Usage]:
        """(status.hard, status.used) of a stored quota as this batch has charged it."""
        status = quota.get("status") or {}
        hit = _PARSED.get(id(status))
        if hit is None or hit[0] is not status:   # stored objects are never changed in place
            if len(_PARSED) > 4096:
                _PARSED.clear()
            hit = _PARSED[id(status)] = (status, *_limits_of(quota))
        used = self._used.get((quota["metadata"].get("namespace") or "", quota["metadata"]["name"]))
        return hit[1], (hit[2] if used is None else used)

    def charge(self, namespace: str, charged: Mapping[str, Usage]) -> None:
        for name, used in charged.items():
            self._used[(namespace, name)] = used

    def commit(self) -> None:
        """Write each charged quota's status.used (k8s: quotaAccessor.UpdateQuotaStatus)."""
        for (namespace, name), used in sorted(self._used.items()):
            current = self.store.get("ResourceQuota", namespace, name)
            if current is None:
                continue
            texts = {k: canonical(q) for k, q in used.items()}
            status = dict(current.get("status") or {}, used=texts)
            if status != current.get("status"):
                stored = self.store.update_status(dict(current, status=status))["status"]
                # What the next request reads back from the text (Go re-parses the stored quota): the
                # same value, in the format the text is written in (a BinarySI 1000 is "1000": DecimalSI).
                reread = {k: _reread(q, texts[k]) for k, q in used.items()}
                _PARSED[id(stored)] = (stored, _parse_list(stored.get("hard")), reread)
        self._used.clear()

    def index_pending(self, pending: list[dict]) -> None:
        for obj in pending[self._indexed:]:
            md = obj.get("metadata") or {}
            if obj.get("kind") == "Pod" and md.get("uid"):
                self._pods[md["uid"]] = obj
            elif obj.get("kind") == "ResourceClaim" and (uid := _special_owner_uid(obj)) is not None:
                self._special.setdefault(uid, []).append(obj)
        self._indexed = len(pending)

    def owner_and_peers(self, claim: dict) -> tuple[dict[str, dict], Iterable[dict]]:
        """What claim usage needs of a special claim: its owning pod by uid, and the special claims
        of the same owner (stored or pending; read only when the pod has no claim status yet)."""
        uid = _special_owner_uid(claim)
        if uid is None:
            return {}, ()
        md = claim["metadata"]
        ref = accounting._controller_ref(claim) or {}
        pod = self.store.get("Pod", md.get("namespace"), ref.get("name") or "")
        if pod is None or pod["metadata"].get("uid") != uid:
            pod = self._pods.get(uid)
        stored = (c for c in self.store.list("ResourceClaim", md.get("namespace"))
                  if _special_owner_uid(c) == uid)
        peers = _chain(stored, self._special.get(uid, ()))
        return ({uid: pod} if pod is not None else {}), peers


def _reread(q: Quantity, text: str) -> Quantity:
    """ParseQuantity(text) for text = canonical(q), without the parser when nothing is rounded."""
    if _NANO % q.value.denominator or q.value.numerator.bit_length() > 62:
        return parse_quantity(text)
    return quantity_of(q.value, _format_of(text))


def _format_of(text: str) -> str:
    """The format ParseQuantity gives a canonical text (Ki…Ei: binary; an exponent; else decimal)."""
    if text.endswith("i"):
        return BINARY_SI
    return DECIMAL_EXPONENT if "e" in text else DECIMAL_SI


_DECIMAL_SUFFIXES = ("", "k", "M", "G", "T", "P", "E")
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_NANO = 10**9


def canonical(q: Quantity) -> str:
    """Quantity.canonical() (Go's CanonicalizeBytes), in integer arithmetic for the values quota
    sums are made of: whole nano units in decimal or whole bytes in binary format. Anything else
    goes to Quantity.canonical(); tests/unit/controllers/test_quota_controller.py holds them equal."""
    v = q.value
    num, den = v.numerator, v.denominator
    if num <= 0 or num.bit_length() > 120:
        return q.canonical()
    if q.format == BINARY_SI and den == 1 and num >= 1024:
        i = 0
        while i < 6 and num % 1024 == 0:
            num //= 1024
            i += 1
        return f"{num}{_BINARY_SUFFIXES[i]}"
    if q.format != DECIMAL_SI or _NANO % den:
        return q.canonical()
    n = num * (_NANO // den)     # in nano units
    groups = 0
    while groups < 9 and n % 1000 == 0:
        n //= 1000
        groups += 1
    return f"{n}{('n', 'u', 'm')[groups]}" if groups < 3 else f"{n}{_DECIMAL_SUFFIXES[groups - 3]}"


def _chain(*parts: Iterable[dict]) -> Iterable[dict]:
    for part in parts:
        yield from part


def admission_error_for(store: MemoryStore, er_cache, obj: dict, pending: list[dict] = (),
                        batch: QuotaBatch | None = None, dry_run: bool = False) -> str | None:
    """The quota admission message for creating obj, or None when it fits every quota; an
    admitted create is charged to the quotas' status.used. `pending`: objects admitted earlier
    in the same batch, not stored yet; `batch`: that batch (charges written by its commit).
    Without a batch the create is a request on its own: written now, unless `dry_run`
    (k8s: checkQuotas does not update quota for dry-run requests)."""
    namespace = obj["metadata"].get("namespace")
    own = batch is None
    if own:
        if not store.any_in("ResourceQuota", namespace):
            return None   # most namespaces have no quota: no batch to make
        batch = QuotaBatch(store)
    quotas = batch.quotas(namespace)
    if not quotas:
        return None
    if obj["kind"] == "Pod":
        delta = accounting.pod_usage(obj)
        matching = accounting.pod_matching_resources
        scope_match = partial(accounting.pod_matches_scopes, obj)   # k8s: podMatchesScopeFunc
        constraints = partial(pod_constraints_error, obj)
    else:
        batch.index_pending(pending)
        if not obj["metadata"].get("creationTimestamp"):
            # k8s: BeforeCreate (FillObjectMetaSystemFields) stamps the object before admission, and
            # the oldest-special-claim rule reads it; drasim's store stamps it later, with this time.
            obj = dict(obj, metadata=dict(obj["metadata"], creationTimestamp=store.clock.timestamp()))
        pods_by_uid, peers = batch.owner_and_peers(obj)
        delta = accounting.claim_usage(obj, pods_by_uid=pods_by_uid, claims_in_namespace=peers, cache=er_cache)
        matching = partial(accounting.claim_matching_resources, cache=er_cache)
        scope_match = _no_scopes    # k8s: generic.MatchesNoScopeFunc
        constraints = None          # k8s: claimEvaluator.Constraints is a no-op
    error, charged = check_request(quotas, delta, matching=matching, scope_match=scope_match, limits=batch.limits,
                                   constraints=constraints)
    if error is None and charged:
        batch.charge(namespace, charged)
        if own and not dry_run:
            batch.commit()
    return error


# k8s: pods.go validationSet, the quota keys a pod's containers must each set explicitly.
_VALIDATION_SET = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})


def pod_constraints_error(pod: dict, restricted: Iterable[str]) -> str | None:
    """Why *pod* fails a matching quota that limits *restricted* keys, or None.
    k8s: pods.go podEvaluator.Constraints + enforcePodContainerConstraints: when the quota limits
    cpu or memory (a key of the validation set), every container and init container must name it
    itself: `cpu`, `memory`, `requests.*` in resources.requests (API defaulting has copied limits
    there), `limits.*` in resources.limits; a zero counts. Pods with pod-level cpu, memory or
    hugepages (PodLevelResources, on in v1.37; drasim models its default only) are exempt."""
    required = _VALIDATION_SET.intersection(restricted)
    if not required:
        return None
    spec = pod.get("spec") or {}
    pod_level = spec.get("resources") or {}
    if any(accounting._is_pod_level_resource(name)        # k8s: IsPodLevelResourcesSet
           for field in ("requests", "limits") for name in pod_level.get(field) or ()):
        return None
    missing: dict[str, set[str]] = {}
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        resources = container.get("resources") or {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        for key in required:
            field, name = key.split(".", 1) if "." in key else ("requests", key)
            if name not in (requests if field == "requests" else limits):
                missing.setdefault(key, set()).add(container.get("name") or "")
    if not missing:
        return None
    return "must specify " + "; ".join(f"{key} for: {','.join(sorted(missing[key]))}" for key in sorted(missing))


def _no_scopes(quota: dict) -> bool:
    return not _scope_selectors(quota)


def unsynced_quota_warnings(creates: list[tuple[str, dict, str]]) -> list[str]:
    """(kind, object, source) of a phase's creates -> a warning for each quota created with new
    pods or claims of its namespace. It limits none of them: quota admission reads status.hard,
    which only the quota controller's first sync fills (CheckRequest, hasUsageStats), and users
    who write a quota next to their workload usually mean it to limit it."""
    new_workload: dict[str, int] = {}
    for kind, obj, _ in creates:
        unscheduled = kind == "Pod" and not (obj.get("spec") or {}).get("nodeName")
        unallocated = kind == "ResourceClaim" and not (obj.get("status") or {}).get("allocation")
        if unscheduled or unallocated:   # a snapshot's running pods and allocated claims are no news
            ns = obj["metadata"].get("namespace") or "default"
            new_workload[ns] = new_workload.get(ns, 0) + 1
    warnings = []
    for kind, quota, source in creates:
        ns = quota["metadata"].get("namespace") or "default"
        if kind == "ResourceQuota" and new_workload.get(ns):
            warnings.append(
                f'{source}: ResourceQuota "{quota["metadata"]["name"]}" limits none of the '
                f'{new_workload[ns]} pods and claims created with it in namespace "{ns}": quota '
                f"admission charges a quota only once the quota controller has synced it "
                f"(status.hard); create it in an earlier phase for it to limit them")
    return warnings
