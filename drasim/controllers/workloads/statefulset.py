"""The StatefulSet controller of kube-controller-manager.

k8s: pkg/controller/statefulset/stateful_set.go (sync, getPodsForStatefulSet), stateful_set_control.go
     (updateStatefulSet, processReplica, processCondemned, updateStatefulSetAfterInvariantEstablished,
     computeReplicaStatus), stateful_set_utils.go (getPodName, initIdentity, updateIdentity,
     newVersionedStatefulSetPod, isRunningAndReady, completeRollingUpdate), stateful_pod_control.go
     (recordPodEvent).

Pods are `<set>-<ordinal>` for ordinals spec.ordinals.start .. start+replicas-1, labelled with
`statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` and `controller-revision-hash`,
hostname = pod name, subdomain = spec.serviceName. OrderedReady creates ordinal i+1 only once i is
Running and Ready (and available for minReadySeconds) and removes the highest ordinal first, one at
a time; Parallel creates and removes all at once (in slow-start batches, as slowStartBatch does).

Per-pod claims in DRA come from the template's spec.resourceClaims[].resourceClaimTemplateName: the
resourceclaim controller makes one claim per pod, so one per ordinal. volumeClaimTemplates are
PersistentVolumeClaims, which drasim does not simulate: they are accepted and ignored (the pods get
no PVC volumes). ControllerRevision objects are not stored either: a revision is its template hash
(`<set>-<hash>`), and pods are always made from the current template, also below a partition.
"""
from __future__ import annotations

import re

from drasim.controllers.workloads.common import (ControllerContext, KeyQueue, available_at, claim_pods, controller_of,
                                                 is_terminating, phase, pod_from_template, selector_of)
from drasim.controllers.workloads.history import CONTROLLER_REVISION_HASH_LABEL, RevisionNames, template_hash
from drasim.errors import InputError
from drasim.store import DELETED, StoreError, WatchEvent
from drasim.store.events import NORMAL, WARNING, record_event

COMPONENT = "statefulset-controller"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_MAX_BATCH = 500   # k8s: MaxBatchSize
_ORDINAL = re.compile(r"(.*)-([0-9]+)$")   # k8s: statefulPodRegex


def parent_and_ordinal(name: str) -> tuple[str, int]:
    """k8s: getParentNameAndOrdinal: ("", -1) for names that are not `<parent>-<int32>`."""
    m = _ORDINAL.match(name)
    if not m:
        return "", -1
    ordinal = int(m.group(2))
    return (m.group(1), ordinal) if ordinal < 2 ** 31 else (m.group(1), -1)


def start_ordinal(sts: dict) -> int:
    return int((((sts.get("spec") or {}).get("ordinals") or {}).get("start")) or 0)


def revision_name(sts: dict) -> str:
    """`<set>-<hash>` (k8s: history.ControllerRevisionName over the set's template patch)."""
    return f"{sts['metadata']['name'][:223]}-{template_hash((sts.get('spec') or {}).get('template') or {})}"


def new_pod(sts: dict, ordinal: int, revision: str) -> dict:
    """k8s: newStatefulSetPod + initIdentity + setPodRevision."""
    name = f"{sts['metadata']['name']}-{ordinal}"
    spec = sts.get("spec") or {}
    pod = pod_from_template(spec.get("template") or {}, sts, name=name)
    labels = pod["metadata"].setdefault("labels", {})
    labels[POD_NAME_LABEL] = name
    labels[POD_INDEX_LABEL] = str(ordinal)   # PodIndexLabel, GA
    labels[CONTROLLER_REVISION_HASH_LABEL] = revision
    pod["spec"]["hostname"] = name
    if spec.get("serviceName"):
        pod["spec"]["subdomain"] = spec["serviceName"]
    return pod


def controller(ctx: ControllerContext) -> "StatefulSetController":
    return StatefulSetController(ctx)


class StatefulSetController:
    name = "statefulset-controller"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx   # ctx.create: ControlPlane.client_create (defaults, validation, quota)
        self.store = store = ctx.store
        self.queue = KeyQueue(ctx.clock)
        self._blocked: set[tuple[str, str]] = set()   # sets whose pod create was refused
        self._revisions = RevisionNames()
        store.subscribe(self._on_event, kinds=("StatefulSet", "Pod", "ResourceQuota"))

    # -- informer handlers ---------------------------------------------------------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        ns = md.get("namespace") or ""
        if ev.kind == "StatefulSet":
            if ev.type != DELETED:
                self.queue.add((ns, md["name"]))
        elif ev.kind == "ResourceQuota":
            for key in sorted(k for k in self._blocked if k[0] == ns):   # room may have been made
                self._blocked.discard(key)
                self.queue.add(key)
        else:
            self._on_pod(ev, ns)

    def _on_pod(self, ev: WatchEvent, ns: str) -> None:
        """k8s: addPod/updatePod/deletePod: the controller named by the ControllerRef, or for an
        orphan every set in the namespace whose selector matches it."""
        if not self.store.count("StatefulSet"):
            return   # the common case in large runs: nothing to wake
        for obj in (ev.old, ev.obj):
            if obj is None:
                continue
            ref = controller_of(obj)
            if ref is not None:
                if ref.get("kind") == "StatefulSet" and ref.get("apiVersion", "").startswith("apps/"):
                    self.queue.add((ns, ref.get("name")))
                continue
            labels = obj["metadata"].get("labels") or {}
            for sts in self.store.list("StatefulSet", ns):
                sel = selector_of(sts)
                if sel is not None and not sel.empty and sel.matches(labels):
                    self.queue.add((ns, sts["metadata"]["name"]))

    def has_work(self) -> bool:
        return bool(self.queue)

    def run_once(self) -> None:
        ns, name = self.queue.pop()
        sts = self.store.get("StatefulSet", ns, name)
        if sts is not None:
            self.sync(sts)

    def _requeue_at(self, sts: dict, when: float) -> None:
        """k8s: workqueue AddAfter (the earliest pending time of a key is kept)."""
        self.queue.add_after((sts["metadata"].get("namespace") or "", sts["metadata"]["name"]), when - self.store.clock.now)

    # -- sync ------------------------------------------------------------------------------------------
    def sync(self, sts: dict) -> None:
        set_name = sts["metadata"]["name"]
        pods = claim_pods(self.ctx, sts, accept=lambda p: parent_and_ordinal(p["metadata"]["name"])[0] == set_name)
        spec = sts.get("spec") or {}
        replicas = int(spec.get("replicas") or 0)
        min_ready = int(spec.get("minReadySeconds") or 0)
        start = start_ordinal(sts)
        status = sts.get("status") or {}
        update_revision = self._revisions.name(sts["metadata"]["uid"], revision_name(sts),
                                               status.get("updateRevision"))   # a snapshot's own name
        current_revision = status.get("currentRevision") or update_revision
        slots: list[dict | None] = [None] * replicas
        condemned: list[dict] = []
        for pod in pods:
            ordinal = parent_and_ordinal(pod["metadata"]["name"])[1]
            if start <= ordinal < start + replicas:
                slots[ordinal - start] = pod
            elif ordinal >= 0:
                condemned.append(pod)
        condemned.sort(key=lambda p: -parent_and_ordinal(p["metadata"]["name"])[1])
        if not sts["metadata"].get("deletionTimestamp"):
            self._reconcile(sts, slots, condemned, start, update_revision, min_ready)
        self._write_status(sts, current_revision, update_revision, min_ready)

    def _available(self, sts: dict, pod: dict, min_ready: int) -> bool:
        when = available_at(pod, min_ready)
        if phase(pod) != "Running" or when is None:
            return False
        if when > self.store.clock.now:
            self._requeue_at(sts, when)   # k8s: the set is re-synced after minReadySeconds
            return False
        return True

    def _reconcile(self, sts: dict, slots: list, condemned: list, start: int, revision: str, min_ready: int) -> None:
        monotonic = (sts.get("spec") or {}).get("podManagementPolicy") != "Parallel"   # k8s: allowsBurst
        unhealthy = next((p for p in slots + condemned[::-1] if p is not None and not (
            self._available(sts, p, min_ready) and not is_terminating(p))), None)
        missing = [i for i, p in enumerate(slots) if p is None]
        if monotonic:
            for i, pod in enumerate(slots):
                if pod is not None and phase(pod) in ("Failed", "Succeeded"):
                    # k8s: processReplica: a finished pod is deleted and made again on the next sync
                    if not is_terminating(pod):
                        self._delete(sts, pod)
                    return
                if pod is None:
                    self._create_pod(sts, start + i, revision)
                    return
                if is_terminating(pod) or not self._available(sts, pod, min_ready):
                    return   # k8s: waiting for the pod to be Running, Ready and available
        else:
            finished = [p for p in slots if p is not None and phase(p) in ("Failed", "Succeeded")]
            for pod in finished:
                if not is_terminating(pod):
                    self._delete(sts, pod)
            if finished:
                return
            if not self._slow_start(sts, [start + i for i in missing], revision):
                return
        for pod in condemned:   # highest ordinal first (k8s: processCondemned)
            if is_terminating(pod):
                if monotonic:
                    return
                continue
            if monotonic and pod is not unhealthy and not self._available(sts, pod, min_ready):
                return
            self._delete(sts, pod)
            if monotonic:
                return
        if condemned:
            return
        self._rolling_update(sts, slots, revision, min_ready)

    def _slow_start(self, sts: dict, ordinals: list[int], revision: str) -> bool:
        """k8s: slowStartBatch: batches of 1, 2, 4, ... (at most 500); a failure stops the rest."""
        done, batch = 0, 1
        while done < len(ordinals):
            size = min(batch, len(ordinals) - done, _MAX_BATCH)
            ok = [self._create_pod(sts, ordinal, revision) for ordinal in ordinals[done:done + size]]
            done += size
            if not all(ok):
                return False
            batch = min(2 * size, _MAX_BATCH)
        return True

    def _rolling_update(self, sts: dict, slots: list, revision: str, min_ready: int) -> None:
        """k8s: updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet, on by default):
        delete up to maxUnavailable pods not at the update revision, highest ordinal first, down to
        the partition; OnDelete leaves pods alone."""
        strategy = (sts.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type") == "OnDelete":
            return
        rolling = strategy.get("rollingUpdate") or {}
        partition = int(rolling.get("partition") or 0)
        max_unavailable = _scaled(rolling.get("maxUnavailable", 1), len(slots))
        unavailable = sum(1 for p in slots if p is None or is_terminating(p) or not self._available(sts, p, min_ready))
        budget = max_unavailable - unavailable
        for target in range(len(slots) - 1, partition - 1, -1):
            if budget <= 0:
                return
            pod = slots[target]
            if pod is not None and not is_terminating(pod) and (
                    pod["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL) != revision:
                self._delete(sts, pod)
                budget -= 1

    # -- writes --------------------------------------------------------------------------------------
    def _create_pod(self, sts: dict, ordinal: int, revision: str) -> bool:
        pod = new_pod(sts, ordinal, revision)
        name, set_name = pod["metadata"]["name"], sts["metadata"]["name"]
        try:
            self.ctx.create(pod)
        except InputError as error:
            md = sts["metadata"]
            self._blocked.add((md.get("namespace") or "", md["name"]))
            record_event(self.store, sts, WARNING, "FailedCreate",
                         f"create Pod {name} in StatefulSet {set_name} failed error: {error}", COMPONENT)
            return False
        record_event(self.store, sts, NORMAL, "SuccessfulCreate",
                     f"create Pod {name} in StatefulSet {set_name} successful", COMPONENT)
        return True

    def _delete(self, sts: dict, pod: dict) -> None:
        md = pod["metadata"]
        try:
            self.store.delete("Pod", md.get("namespace"), md["name"], uid=md.get("uid"))
        except StoreError:
            return
        record_event(self.store, sts, NORMAL, "SuccessfulDelete",
                     f"delete Pod {md['name']} in StatefulSet {sts['metadata']['name']} successful", COMPONENT)

    def _write_status(self, sts: dict, current_revision: str, update_revision: str, min_ready: int) -> None:
        """k8s: computeReplicaStatus, completeRollingUpdate, inconsistentStatus."""
        sts = self.store.get("StatefulSet", sts["metadata"].get("namespace"), sts["metadata"]["name"]) or sts
        set_name = sts["metadata"]["name"]
        pods = [p for p in self.store.list("Pod", sts["metadata"].get("namespace"))
                if (controller_of(p) or {}).get("uid") == sts["metadata"]["uid"]
                and parent_and_ordinal(p["metadata"]["name"])[0] == set_name]
        counts = dict(replicas=0, readyReplicas=0, availableReplicas=0, currentReplicas=0, updatedReplicas=0)
        for pod in pods:
            counts["replicas"] += 1
            if phase(pod) == "Running" and available_at(pod, 0) is not None:
                counts["readyReplicas"] += 1
                when = available_at(pod, min_ready)
                if when is not None and when <= self.store.clock.now:
                    counts["availableReplicas"] += 1
            if not is_terminating(pod):
                revision = (pod["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL)
                counts["currentReplicas"] += revision == current_revision
                counts["updatedReplicas"] += revision == update_revision
        want = int((sts.get("spec") or {}).get("replicas") or 0)
        strategy = ((sts.get("spec") or {}).get("updateStrategy") or {}).get("type")
        if strategy == "RollingUpdate" and counts["updatedReplicas"] == counts["readyReplicas"] == counts[
                "replicas"] == want:
            counts["currentReplicas"] = counts["updatedReplicas"]
            current_revision = update_revision
        status = {"observedGeneration": sts["metadata"].get("generation", 1), "replicas": counts["replicas"]}
        for key in ("readyReplicas", "currentReplicas", "updatedReplicas"):   # omitempty in apps/v1
            if counts[key]:
                status[key] = counts[key]
        status.update(currentRevision=current_revision, updateRevision=update_revision, collisionCount=0,
                      availableReplicas=counts["availableReplicas"])
        if sts.get("status") != status:
            self.store.update_status(dict(sts, status=status), copy=False)


def _scaled(value, total: int) -> int:
    """k8s: getStatefulSetMaxUnavailable: an int or a percentage rounded down, at least 1."""
    if isinstance(value, str) and value.endswith("%"):
        try:
            n = int(value[:-1]) * total // 100
        except ValueError:
            n = 1
    else:
        n = value if isinstance(value, int) else 1
    return max(n, 1)


__all__ = ["POD_INDEX_LABEL", "POD_NAME_LABEL", "StatefulSetController", "new_pod", "parent_and_ordinal",
           "revision_name"]
