"""The Job controller of kube-controller-manager.

k8s: pkg/controller/job/job_controller.go (syncJob, manageJob, trackJobStatusAndRemoveFinalizers,
     enactJobFinished, newFailureCondition, newSuccessCondition, pastActiveDeadline, deleteJobPods,
     deleteActivePods), indexed_job_utils.go (calculateSucceededIndexes, firstPendingIndexes,
     addCompletionIndexAnnotation, podGenerateNameWithIndex), backoff_utils.go (getRemainingTime),
     tracking_utils.go, pkg/controller/job/util (IsJobFinished).

Pods carry the tracking finalizer `batch.kubernetes.io/job-tracking`; a finished pod is counted into
status.succeeded / status.failed and its finalizer removed. Because drasim removes the finalizers in
the same sync, status.uncountedTerminatedPods is always empty. Pods finish when their phase becomes
Succeeded or Failed (the kubelet, or drasim.io/run-for on the virtual clock); a pod being deleted
counts as failed at once, since drasim does not model graceful termination (the kubelet would
kill it). As in v1.37 (JobManagedBy and JobPodReplacementPolicy on), a finished Job first gets
SuccessCriteriaMet or FailureTarget, then Complete or Failed; with no terminating pods both
appear in the same sync.
"""
from __future__ import annotations

from drasim.controllers.workloads.common import (ControllerContext, KeyQueue, claim_pods, controller_of,
                                                 is_pod_active as is_active, is_pod_ready as is_ready, is_terminating,
                                                 phase, pod_from_template, selector_of, submit_pod)
from drasim.sim.clock import parse_time
from drasim.store import DELETED, StoreError, WatchEvent, clone
from drasim.store.events import NORMAL, WARNING, record_event

COMPONENT = "job-controller"
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"   # annotation and label
_POD_FAILURE_BACKOFF, _MAX_POD_FAILURE_BACKOFF = 10.0, 600.0   # k8s: DefaultJobPodFailureBackOff, Max...
_MAX_CREATE_DELETE = 500   # k8s: MaxPodCreateDeletePerSync
_COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")


def is_finished(job: dict) -> bool:
    """k8s: util.IsJobFinished — a Complete or Failed condition that is True."""
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def _condition(job: dict, type_: str) -> dict | None:
    return next((c for c in (job.get("status") or {}).get("conditions") or ()
                 if c.get("type") == type_ and c.get("status") == "True"), None)


def completion_index(pod: dict) -> int | None:
    """k8s: getCompletionIndex — the annotation as a non-negative decimal, else unknown."""
    value = (pod["metadata"].get("annotations") or {}).get(COMPLETION_INDEX)
    if isinstance(value, str) and value.isdigit() and (value == "0" or not value.startswith("0")):
        return int(value)
    return None


def parse_intervals(text: str | None) -> set[int]:
    """`1,3-5` → {1, 3, 4, 5} (k8s: parseIndexesFromString; malformed parts are skipped)."""
    out: set[int] = set()
    for part in (text or "").split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            out.update(range(int(lo), int(hi or lo) + 1))
    return out


def format_intervals(indexes: set[int]) -> str:
    """k8s: orderedIntervals.String: sorted, consecutive runs as `a-b`."""
    parts: list[str] = []
    run: list[int] = []
    for i in sorted(indexes):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [i]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def _failed(pod: dict) -> bool:
    return phase(pod) == "Failed" or (is_terminating(pod) and phase(pod) != "Succeeded")


def _removal_order(pod: dict) -> tuple:
    """k8s: controller.ActivePods — unscheduled, then pending, then not ready, then newest go first."""
    ts = pod["metadata"].get("creationTimestamp") or ""
    return (bool((pod.get("spec") or {}).get("nodeName")), phase(pod) == "Running", is_ready(pod),
            "".join(chr(0x10FFFF - ord(c)) for c in ts))


def controller(ctx: ControllerContext) -> "JobController":
    return JobController(ctx)


class JobController:
    name = "job-controller"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx   # ctx.create: ControlPlane.client_create (defaults, validation, quota)
        self.store = store = ctx.store
        self.queue = KeyQueue(ctx.clock)
        self._blocked: set[tuple[str, str]] = set()
        self._backoff: dict[str, tuple[int, float]] = {}   # job uid -> (failures after last success, last failure)
        self._orphans: dict[tuple[str, str], dict] = {}   # pods holding the finalizer without their Job
        store.subscribe(self._on_event, kinds=("Job", "Pod", "ResourceQuota"))

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        ns = md.get("namespace") or ""
        if ev.kind == "Job":
            if ev.type != DELETED:
                self.queue.add((ns, md["name"]))
            else:   # its pods lose their Job: their tracking finalizers must go
                for pod in self.store.list("Pod", ns):
                    self._check_orphan(pod)
        elif ev.kind == "ResourceQuota":
            for key in sorted(k for k in self._blocked if k[0] == ns):
                self._blocked.discard(key)
                self.queue.add(key)
        elif ev.type != DELETED and self._check_orphan(ev.obj):
            pass
        elif self.store.count("Job"):   # pods wake nothing when there is no Job
            for obj in (ev.old, ev.obj):
                if obj is None:
                    continue
                ref = controller_of(obj)
                if ref is not None:
                    if ref.get("kind") == "Job" and ref.get("apiVersion", "").startswith("batch/"):
                        self.queue.add((ns, ref.get("name")))
                    continue
                labels = obj["metadata"].get("labels") or {}
                for job in self.store.list("Job", ns):
                    sel = selector_of(job)
                    if sel is not None and not sel.empty and sel.matches(labels):
                        self.queue.add((ns, job["metadata"]["name"]))

    def _check_orphan(self, pod: dict) -> bool:
        """k8s: JobController updatePod/deletePod → enqueueOrphanPod: a pod with the tracking
        finalizer whose controlling Job is gone (or that has none) is queued for syncOrphanPod."""
        md = pod["metadata"]
        if TRACKING_FINALIZER not in (md.get("finalizers") or ()):
            return False
        ref = controller_of(pod)
        if ref is None:   # a Job that selects it may still adopt it
            labels = md.get("labels") or {}
            if any((sel := selector_of(job)) is not None and not sel.empty and sel.matches(labels)
                   for job in self.store.list("Job", md.get("namespace"))):
                return False
        elif ref.get("kind") == "Job":
            job = self.store.get("Job", md.get("namespace"), ref.get("name"))
            if job is not None and job["metadata"].get("uid") == ref.get("uid"):
                return False
        self._orphans[(md.get("namespace") or "", md["name"])] = pod
        return True

    def has_work(self) -> bool:
        return bool(self.queue) or bool(self._orphans)

    def run_once(self) -> None:
        if self._orphans:   # k8s: syncOrphanPod removes the finalizer
            _, pod = self._orphans.popitem()
            self._remove_finalizer(pod)
            return
        ns, name = self.queue.pop()
        job = self.store.get("Job", ns, name)
        if job is not None:
            self.sync(job)

    def _requeue_at(self, job: dict, when: float) -> None:
        """k8s: workqueue AddAfter (the earliest pending time of a key is kept)."""
        self.queue.add_after((job["metadata"].get("namespace") or "", job["metadata"]["name"]), when - self.store.clock.now)

    # -- sync ------------------------------------------------------------------------------------------
    def sync(self, job: dict) -> None:
        if is_finished(job) or job["metadata"].get("deletionTimestamp"):
            return
        spec = job.get("spec") or {}
        if spec.get("completionMode") not in (None, "NonIndexed", "Indexed"):
            record_event(self.store, job, WARNING, "UnknownCompletionMode",
                         "Skipped Job sync because completion mode is unknown", COMPONENT)
            return
        indexed = spec.get("completionMode") == "Indexed"
        completions = spec.get("completions")
        now = self.store.clock.now
        stamp = self.store.clock.timestamp()
        status = clone(job.get("status") or {})
        pods = claim_pods(self.ctx, job)
        tracked = [p for p in pods if TRACKING_FINALIZER in (p["metadata"].get("finalizers") or ())]
        new_succeeded = [p for p in tracked if phase(p) == "Succeeded"]
        new_failed = [p for p in tracked if _failed(p)]
        active = [p for p in pods if is_active(p)]
        if status.get("startTime") is None and not spec.get("suspend"):
            status["startTime"] = stamp
        self._record_backoff(job, new_succeeded, new_failed, now)
        succeeded = int(status.get("succeeded") or 0) + len(new_succeeded)
        failed = int(status.get("failed") or 0) + len(new_failed)
        done_indexes: set[int] = set()
        if indexed:
            done_indexes = {i for i in parse_intervals(status.get("completedIndexes")) if i < (completions or 0)}
            done_indexes |= {i for p in new_succeeded if (i := completion_index(p)) is not None
                             and i < (completions or 0)}
            succeeded = len(done_indexes)
        finished_pods = new_succeeded + new_failed
        failure = None
        if _condition(job, "FailureTarget"):
            c = _condition(job, "FailureTarget")
            failure = (c.get("reason"), c.get("message"))
        elif failed > int(spec.get("backoffLimit") if spec.get("backoffLimit") is not None else 6):
            failure = BACKOFF_LIMIT_EXCEEDED
        elif self._past_deadline(job, status, now):
            failure = DEADLINE_EXCEEDED
        conditions = list(status.get("conditions") or [])
        if failure is not None:
            # k8s: deleteActivePods keeps the finalizers; with the Job finished every pod that is not
            # done counts as failed.
            for pod in active:
                self._delete(job, pod, remove_finalizer=False)
            failed += len(active)
            finished_pods += [self.store.get("Pod", p["metadata"].get("namespace"), p["metadata"]["name"])
                              for p in active]
            active = []
            for type_ in ("FailureTarget", "Failed"):
                if not any(c.get("type") == type_ for c in conditions):
                    conditions.append(_new_condition(type_, *failure, stamp))
            record_event(self.store, job, WARNING, failure[0], failure[1], COMPONENT)
        else:
            if not _condition(job, "SuccessCriteriaMet"):
                active = self._manage(job, active, succeeded, done_indexes, now)
            complete = (succeeded > 0 if completions is None else succeeded >= completions) and not active
            if complete:
                for type_ in ("SuccessCriteriaMet", "Complete"):
                    if not any(c.get("type") == type_ for c in conditions):
                        conditions.append(_new_condition(type_, *_COMPLETIONS_REACHED, stamp))
                status["completionTime"] = stamp
                if completions is not None and succeeded > completions:
                    record_event(self.store, job, WARNING, "TooManySucceededPods",
                                 "Too many succeeded pods running after completion count reached", COMPONENT)
                record_event(self.store, job, NORMAL, "Completed", "Job completed", COMPONENT)
            else:
                self._suspend_condition(job, conditions, stamp)
        for pod in finished_pods:
            if pod is not None:
                self._remove_finalizer(pod)
        new_status = self._status(status, conditions, active, succeeded, failed, indexed, done_indexes)
        current = self.store.get("Job", job["metadata"].get("namespace"), job["metadata"]["name"])
        if current is not None and current.get("status") != new_status:
            self.store.update_status(dict(current, status=new_status), copy=False)

    @staticmethod
    def _status(status: dict, conditions: list, active: list, succeeded: int, failed: int, indexed: bool,
                done_indexes: set[int]) -> dict:
        """batch/v1 JobStatus as the API server prints it (active, succeeded, failed are omitempty)."""
        out = {k: v for k, v in status.items() if k in ("startTime", "completionTime")}
        if conditions:
            out["conditions"] = conditions
        if active:
            out["active"] = len(active)
        if succeeded:
            out["succeeded"] = succeeded
        if failed:
            out["failed"] = failed
        if indexed and done_indexes:
            out["completedIndexes"] = format_intervals(done_indexes)
        out["ready"] = sum(1 for p in active if is_ready(p))
        out["terminating"] = 0   # drasim ends terminating pods at once
        out["uncountedTerminatedPods"] = {}
        return out

    def _suspend_condition(self, job: dict, conditions: list, stamp: str) -> None:
        """k8s: ensureJobConditionStatus for Suspended (JobSuspended / JobResumed)."""
        suspended = bool((job.get("spec") or {}).get("suspend"))
        existing = next((c for c in conditions if c.get("type") == "Suspended"), None)
        if suspended and (existing is None or existing.get("status") != "True"):
            conditions[:] = [c for c in conditions if c.get("type") != "Suspended"]
            conditions.append(_new_condition("Suspended", "JobSuspended", "Job suspended", stamp))
            record_event(self.store, job, NORMAL, "Suspended", "Job suspended", COMPONENT)
        elif not suspended and existing is not None and existing.get("status") == "True":
            existing.update(status="False", reason="JobResumed", message="Job resumed",
                            lastProbeTime=stamp, lastTransitionTime=stamp)
            record_event(self.store, job, NORMAL, "Resumed", "Job resumed", COMPONENT)

    def _past_deadline(self, job: dict, status: dict, now: float) -> bool:
        """k8s: pastActiveDeadline; otherwise the Job is synced again when the deadline comes."""
        deadline = (job.get("spec") or {}).get("activeDeadlineSeconds")
        if deadline is None or not status.get("startTime") or (job.get("spec") or {}).get("suspend"):
            return False
        at = parse_time(status["startTime"]) + int(deadline)
        if now >= at:
            return True
        self._requeue_at(job, at)
        return False

    def _record_backoff(self, job: dict, succeeded: list, failed: list, now: float) -> None:
        """k8s: backoffStore.newBackoffRecord — failures since the last success, and when."""
        uid = job["metadata"]["uid"]
        count, last = self._backoff.get(uid, (0, 0.0))
        if failed:
            self._backoff[uid] = ((0 if succeeded else count) + len(failed), now)
        elif succeeded:
            self._backoff[uid] = (0, last)

    def _manage(self, job: dict, active: list[dict], succeeded: int, done: set[int], now: float) -> list[dict]:
        """k8s: manageJob. Returns the pods left active."""
        spec = job.get("spec") or {}
        if spec.get("suspend"):
            for pod in active[:_MAX_CREATE_DELETE]:
                self._delete(job, pod, remove_finalizer=True)
            return active[_MAX_CREATE_DELETE:]
        parallelism = int(spec.get("parallelism") or 0)
        completions = spec.get("completions")
        if completions is None:
            want = len(active) if succeeded > 0 else parallelism
        else:
            want = max(min(int(completions) - succeeded, parallelism), 0)
        remove: list[dict] = []
        if spec.get("completionMode") == "Indexed":
            # k8s: appendDuplicatedIndexPodsForRemoval / out-of-range indexes
            seen: set[int] = set()
            for pod in sorted(active, key=lambda p: p["metadata"].get("creationTimestamp") or ""):
                index = completion_index(pod)
                if index is None or index >= int(completions or 0) or index in seen or index in done:
                    remove.append(pod)
                else:
                    seen.add(index)
        keep = [p for p in active if p not in remove]
        if len(keep) > want:
            keep.sort(key=_removal_order)
            remove += keep[:len(keep) - want]
            keep = keep[len(keep) - want:]
        for pod in remove[:_MAX_CREATE_DELETE]:
            self._delete(job, pod, remove_finalizer=True)
        if len(keep) >= want:
            return keep
        failures, last = self._backoff.get(job["metadata"]["uid"], (0, 0.0))
        if failures:
            delay = min(_POD_FAILURE_BACKOFF * 2 ** (failures - 1), _MAX_POD_FAILURE_BACKOFF)
            if last + delay > now:   # k8s: getRemainingTime — new pods wait out the failure backoff
                self._requeue_at(job, last + delay)
                return keep
        diff = min(want - len(keep), _MAX_CREATE_DELETE)
        indexes: list[int | None] = [None] * diff
        if spec.get("completionMode") == "Indexed":
            taken = done | {completion_index(p) for p in keep}
            indexes = [i for i in range(int(completions or 0)) if i not in taken][:diff]
        batch, i = 1, 0
        while i < len(indexes):   # k8s: slow-start batches; a failure skips the rest
            results = [self._create_pod(job, index) for index in indexes[i:i + batch]]
            keep += [p for p in results if p is not None]
            i += batch
            if any(p is None for p in results):
                break
            batch *= 2
        return keep

    # -- writes ----------------------------------------------------------------------------------------
    def _create_pod(self, job: dict, index: int | None) -> dict | None:
        template = clone((job.get("spec") or {}).get("template") or {})
        t_md = template.setdefault("metadata", {})
        t_md["finalizers"] = [*(t_md.get("finalizers") or ()), TRACKING_FINALIZER]
        pod = pod_from_template(template, job)
        if index is not None:   # k8s: addCompletionIndexAnnotation, podGenerateNameWithIndex
            name = job["metadata"]["name"]
            pod["metadata"].setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
            pod["metadata"].setdefault("labels", {})[COMPLETION_INDEX] = str(index)
            prefix = f"{name}-{index}-"
            pod["metadata"]["generateName"] = prefix if len(prefix) <= 58 else f"{name[:58 - len(str(index)) - 2]}-{index}-"
            pod["spec"]["hostname"] = f"{name}-{index}"   # k8s: set for every Indexed pod
            for c in pod["spec"].get("containers") or ():
                if isinstance(c, dict):   # k8s: addCompletionIndexEnvVariable
                    env = c.setdefault("env", [])
                    if isinstance(env, list) and not any(isinstance(e, dict) and e.get("name") == "JOB_COMPLETION_INDEX"
                                                         for e in env):
                        env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                            "fieldPath": f"metadata.labels['{COMPLETION_INDEX}']"}}})
        created, _ = submit_pod(self.ctx, pod, job, COMPONENT)
        if created is None:
            md = job["metadata"]
            self._blocked.add((md.get("namespace") or "", md["name"]))
            return None
        return created

    def _remove_finalizer(self, pod: dict) -> None:
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None or current["metadata"].get("uid") != pod["metadata"].get("uid"):
            return
        finalizers = current["metadata"].get("finalizers") or []
        if TRACKING_FINALIZER not in finalizers:
            return
        updated = clone(current)
        rest = [f for f in finalizers if f != TRACKING_FINALIZER]
        if rest:
            updated["metadata"]["finalizers"] = rest
        else:
            updated["metadata"].pop("finalizers", None)
        updated["metadata"].pop("resourceVersion", None)
        self.store.update(updated)

    def _delete(self, job: dict, pod: dict, *, remove_finalizer: bool) -> None:
        """k8s: deleteJobPods removes the tracking finalizer first (the pod is not counted);
        deleteActivePods keeps it (the pod counts as failed)."""
        md = pod["metadata"]
        if remove_finalizer:
            self._remove_finalizer(pod)
        try:
            if self.store.get("Pod", md.get("namespace"), md["name"]) is not None:
                self.store.delete("Pod", md.get("namespace"), md["name"], uid=md.get("uid"))
        except StoreError:
            return
        record_event(self.store, job, NORMAL, "SuccessfulDelete", f"Deleted pod: {md['name']}", COMPONENT)


def _new_condition(type_: str, reason: str, message: str, stamp: str) -> dict:
    """k8s: newCondition."""
    return {"type": type_, "status": "True", "lastProbeTime": stamp, "lastTransitionTime": stamp,
            "reason": reason, "message": message}


__all__ = ["COMPLETION_INDEX", "JobController", "TRACKING_FINALIZER", "completion_index", "format_intervals",
           "is_finished", "parse_intervals"]
