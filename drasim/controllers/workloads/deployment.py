"""The Deployment controller.

k8s: pkg/controller/deployment/deployment_controller.go (syncDeployment, getReplicaSetsForDeployment,
     event handlers), sync.go (getNewReplicaSet, scale, scaleReplicaSet, cleanupDeployment,
     calculateStatus, isScalingEvent), rolling.go, recreate.go, progress.go (syncRolloutStatus,
     requeueStuckDeployment). Arithmetic in deploymentutil.py.

Not modelled: rollback (the deprecated rollbackTo annotation), terminatingReplicas and the
alpha podReplacementPolicy (pods are deleted at once here).
"""
from __future__ import annotations

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.controllers.workloads import deploymentstatus as ds
from drasim.controllers.workloads import deploymentutil as du
from drasim.controllers.workloads.common import (ControllerContext, KeyQueue, claim_objects, controller_of,
                                                 controller_ref, is_namespace_terminating_error)
from drasim.errors import InputError
from drasim.sim.clock import parse_time
from drasim.store import DELETED, WatchEvent, clone
from drasim.store.events import NORMAL, WARNING, record_event

COMPONENT = "deployment-controller"


def controller(ctx: ControllerContext) -> "DeploymentController":
    return DeploymentController(ctx)


class DeploymentController:
    name = "deployment-controller"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self.queue = KeyQueue(ctx.clock)
        ctx.store.subscribe(self._on_event, kinds=("Deployment", "ReplicaSet", "Pod"))

    # -- informer handlers ----------------------------------------------------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        ns = md.get("namespace") or ""
        if ev.kind == "Deployment":
            if ev.type == DELETED:
                self.queue.forget((ns, md["name"]))
            else:
                self.queue.add((ns, md["name"]))
        elif ev.kind == "ReplicaSet":
            for obj in {id(o): o for o in (ev.old, ev.obj) if o is not None}.values():
                ref = controller_of(obj)
                if ref is not None:
                    if ref.get("kind") == "Deployment":
                        self._enqueue_ref(ns, ref)
                elif ev.type != DELETED:
                    for d in self.store.list("Deployment", ns):   # an orphan: who could adopt it
                        if _selects(d, obj):
                            self.queue.add((ns, d["metadata"]["name"]))
        elif ev.type == DELETED:   # k8s deletePod: Recreate waits for old pods to be gone
            ref = controller_of(ev.obj)
            if ref is not None and ref.get("kind") == "ReplicaSet":
                rs = self.store.get("ReplicaSet", ns, ref.get("name") or "")
                owner = controller_of(rs) if rs is not None else None
                if owner is not None and owner.get("kind") == "Deployment":
                    self._enqueue_ref(ns, owner)

    def _enqueue_ref(self, ns: str, ref: dict) -> None:
        d = self.store.get("Deployment", ns, ref.get("name") or "")
        if d is not None and d["metadata"]["uid"] == ref.get("uid"):
            self.queue.add((ns, d["metadata"]["name"]))

    def has_work(self) -> bool:
        return bool(self.queue)

    def run_once(self) -> None:
        self.sync(*self.queue.pop())

    # -- k8s: syncDeployment ------------------------------------------------------------------------
    def sync(self, ns: str, name: str) -> None:
        d = self.store.get("Deployment", ns, name)
        if d is None:
            return
        selector = d["spec"].get("selector") or {}
        if not (selector.get("matchLabels") or selector.get("matchExpressions")):
            record_event(self.store, d, WARNING, "SelectingAll",
                         "This deployment is selecting all pods. A non-empty selector is required.", COMPONENT)
            return
        try:
            compiled = compile_label_selector(selector)
        except LabelSelectorError:
            return
        rss = claim_objects(self.ctx, d, compiled, self.store.list("ReplicaSet", ns))
        d = clone(d)
        if d["metadata"].get("deletionTimestamp"):
            new, old = self._get_all(d, rss, create=False)
            return self._sync_status(d, old + [new], new)
        self._check_paused(d)
        if d["spec"].get("paused"):
            return self._sync(d, rss)
        if self._is_scaling_event(d, rss):
            return self._sync(d, rss)
        if (d["spec"].get("strategy") or {}).get("type") == "Recreate":
            return self._rollout_recreate(d, rss)
        return self._rollout_rolling(d, rss)

    def _check_paused(self, d: dict) -> None:
        """k8s: checkPausedConditions."""
        if not du.has_progress_deadline(d):
            return
        status = d.setdefault("status", {})
        cond = du.condition(status, "Progressing")
        if cond is not None and cond.get("reason") == "ProgressDeadlineExceeded":
            return
        paused_cond = cond is not None and cond.get("reason") == "DeploymentPaused"
        now = self.ctx.clock.timestamp()
        if d["spec"].get("paused") and not paused_cond:
            du.set_condition(status, du.new_condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now))
        elif not d["spec"].get("paused") and paused_cond:
            du.set_condition(status, du.new_condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", now))
        else:
            return
        self._write(d)

    def _write(self, d: dict) -> dict:
        """UpdateStatus: status and annotations (the status strategy keeps spec and labels)."""
        current = self.store.get("Deployment", d["metadata"].get("namespace"), d["metadata"]["name"])
        obj = clone(current)
        obj["status"] = d.get("status") or {}
        if d["metadata"].get("annotations"):
            obj["metadata"]["annotations"] = dict(d["metadata"]["annotations"])
        stored = self.store.replace(obj)
        d["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
        return stored

    def _is_scaling_event(self, d: dict, rss: list[dict]) -> bool:
        new, old = self._get_all(d, rss, create=False)
        for rs in du.active(old + [new]):
            try:
                desired = int((rs["metadata"].get("annotations") or {})[du.DESIRED_REPLICAS])
            except (KeyError, ValueError):
                continue
            if desired != du.replicas(d):
                return True
        return False

    # -- k8s: getAllReplicaSetsAndSyncRevision / getNewReplicaSet -----------------------------------
    def _get_all(self, d: dict, rss: list[dict], create: bool) -> tuple[dict | None, list[dict]]:
        old = du.find_old_rss(d, rss)
        return self._get_new(d, rss, old, create), old

    def _get_new(self, d: dict, rss: list[dict], old: list[dict], create: bool) -> dict | None:
        existing = du.find_new_rs(d, rss)
        new_revision = str(max((du.revision(rs) for rs in old), default=0) + 1)
        now = self.ctx.clock.timestamp()
        status = d.setdefault("status", {})
        annotations = d["metadata"].setdefault("annotations", {})
        if existing is not None:
            rs = clone(existing)
            rs_ann = rs["metadata"].setdefault("annotations", {})
            changed = du.set_new_rs_annotations(d, rs_ann, new_revision, True)
            min_ready = d["spec"].get("minReadySeconds", 0) or 0
            if changed or (rs["spec"].get("minReadySeconds", 0) or 0) != min_ready:
                rs["spec"]["minReadySeconds"] = min_ready
                rs["metadata"].pop("resourceVersion", None)
                return self.store.update(rs)
            needs = annotations.get(du.REVISION) != rs_ann.get(du.REVISION)
            if rs_ann.get(du.REVISION) is not None:
                annotations[du.REVISION] = rs_ann[du.REVISION]
            if du.has_progress_deadline(d) and du.condition(status, "Progressing") is None:
                du.set_condition(status, du.new_condition("Progressing", "True", "FoundNewReplicaSet",
                                                          f'Found new replica set "{rs["metadata"]["name"]}"', now))
                needs = True
            if needs:
                self._write(d)
            return existing
        if not create:
            return None
        template = clone(d["spec"].get("template") or {})
        pod_hash = du.compute_hash(template, status.get("collisionCount"))
        t_md = template.setdefault("metadata", {})
        t_md["labels"] = dict(t_md.get("labels") or {}, **{du.HASH_LABEL: pod_hash})
        selector = clone(d["spec"]["selector"])
        selector["matchLabels"] = dict(selector.get("matchLabels") or {}, **{du.HASH_LABEL: pod_hash})
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": f'{d["metadata"]["name"]}-{pod_hash}', "namespace": d["metadata"].get("namespace"),
                           "labels": dict(t_md["labels"]), "ownerReferences": [controller_ref(d)]},
              "spec": {"replicas": 0, "minReadySeconds": d["spec"].get("minReadySeconds", 0) or 0,
                       "selector": selector, "template": template}}
        count = du.new_rs_new_replicas(d, old + [rs], rs)
        rs["spec"]["replicas"] = count
        rs["metadata"]["annotations"] = {}
        du.set_new_rs_annotations(d, rs["metadata"]["annotations"], new_revision, False)
        try:
            created = self.ctx.create(rs)
        except InputError as e:
            clash = self.store.get("ReplicaSet", rs["metadata"]["namespace"], rs["metadata"]["name"])
            if clash is not None:
                if (controller_of(clash) or {}).get("uid") == d["metadata"]["uid"] and \
                        du.equal_ignore_hash(d["spec"]["template"], clash["spec"]["template"]):
                    return clash
                status["collisionCount"] = int(status.get("collisionCount") or 0) + 1   # a hash collision
                self._write(d)
                return None
            if is_namespace_terminating_error(e):
                return None
            msg = f'Failed to create new replica set "{rs["metadata"]["name"]}": {e}'
            if du.has_progress_deadline(d):
                du.set_condition(status, du.new_condition("Progressing", "False", "ReplicaSetCreateError", msg, now))
                self._write(d)
            record_event(self.store, d, WARNING, "ReplicaSetCreateError", msg, COMPONENT)
            return None
        if count > 0:
            record_event(self.store, d, NORMAL, "ScalingReplicaSet",
                         f"Scaled up replica set {created['metadata']['name']} to {count}", COMPONENT)
        annotations[du.REVISION] = new_revision
        if du.has_progress_deadline(d):
            du.set_condition(status, du.new_condition("Progressing", "True", "NewReplicaSetCreated",
                                                      f'Created new replica set "{created["metadata"]["name"]}"', now))
        self._write(d)
        return created

    # -- scaling ------------------------------------------------------------------------------------
    def _scale_rs(self, rs: dict, new_scale: int, d: dict, operation: str | None = None) -> tuple[bool, dict]:
        """k8s: scaleReplicaSet / scaleReplicaSetAndRecordEvent."""
        old_scale = du.replicas(rs)
        if operation is None:
            if old_scale == new_scale:
                return False, rs
            operation = "up" if old_scale < new_scale else "down"
        desired, maximum = du.replicas(d), du.replicas(d) + du.max_surge(d)
        size_changes = old_scale != new_scale
        if not size_changes and not du.replicas_annotations_need_update(rs, desired, maximum):
            return False, rs
        updated = clone(rs)
        updated["spec"]["replicas"] = new_scale
        du.set_replicas_annotations(updated["metadata"].setdefault("annotations", {}), desired, maximum)
        updated["metadata"].pop("resourceVersion", None)
        stored = self.store.update(updated)
        if size_changes:
            record_event(self.store, d, NORMAL, "ScalingReplicaSet",
                         f"Scaled {operation} replica set {rs['metadata']['name']} to {new_scale} from {old_scale}",
                         COMPONENT)
        return size_changes, stored

    def _sync(self, d: dict, rss: list[dict]) -> None:
        """k8s: sync — a scaling event or a paused deployment."""
        new, old = self._get_all(d, rss, create=False)
        self._scale(d, new, old)
        if d["spec"].get("paused"):
            self._cleanup(d, old)
        new, old = self._refresh(new), [self._refresh(rs) for rs in old]
        self._sync_status(d, [rs for rs in old if rs] + [new], new)

    def _refresh(self, rs: dict | None) -> dict | None:
        return None if rs is None else self.store.get("ReplicaSet", rs["metadata"].get("namespace"), rs["metadata"]["name"])

    def _scale(self, d: dict, new: dict | None, old: list[dict]) -> None:
        """k8s: scale — proportional scaling of the active ReplicaSets."""
        candidates = [rs for rs in [new] + du.by_creation(old)[::-1] if rs is not None]
        active_rss = du.active(candidates)
        latest = active_rss[0] if len(active_rss) == 1 else (candidates[0] if not active_rss and candidates else None)
        if latest is not None:
            if du.replicas(latest) != du.replicas(d):
                self._scale_rs(latest, du.replicas(d), d)
            return
        if du.is_saturated(d, new):
            for rs in du.active(old):
                self._scale_rs(rs, 0, d)
            return
        if not du.is_rolling(d):
            return
        all_rss = du.active(old + [new])
        allowed = du.replicas(d) + du.max_surge(d) if du.replicas(d) > 0 else 0
        to_add = allowed - du.total_replicas(all_rss)
        operation = None
        if to_add > 0:   # k8s: ReplicaSetsBySizeNewer / BySizeOlder
            all_rss.sort(key=lambda rs: (-du.replicas(rs), _neg_time(rs), rs["metadata"]["name"]))
            operation = "up"
        elif to_add < 0:
            all_rss.sort(key=lambda rs: (-du.replicas(rs), rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]))
            operation = "down"
        added, sizes = 0, {}
        for rs in all_rss:
            if to_add:
                proportion = du.get_proportion(rs, d, to_add, added)
                sizes[rs["metadata"]["name"]] = du.replicas(rs) + proportion
                added += proportion
            else:
                sizes[rs["metadata"]["name"]] = du.replicas(rs)
        for i, rs in enumerate(all_rss):
            name = rs["metadata"]["name"]
            if i == 0 and to_add:
                sizes[name] = max(sizes[name] + to_add - added, 0)
            self._scale_rs(rs, sizes[name], d, operation or ("up" if sizes[name] > du.replicas(rs) else "down"))

    def _cleanup(self, d: dict, old: list[dict]) -> None:
        """k8s: cleanupDeployment — keep the newest revisionHistoryLimit old ReplicaSets."""
        limit = d["spec"].get("revisionHistoryLimit")
        if limit is None or limit == 2 ** 31 - 1:
            return
        alive = [rs for rs in (self._refresh(r) for r in old) if rs is not None and not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - int(limit)
        if diff <= 0:
            return
        for rs in sorted(alive, key=lambda r: (du.revision(r), r["metadata"].get("creationTimestamp") or ""))[:diff]:
            st = rs.get("status") or {}
            if st.get("replicas") or du.replicas(rs) or rs["metadata"].get("generation", 1) > st.get("observedGeneration", 0):
                continue
            try:
                self.ctx.delete("ReplicaSet", rs["metadata"].get("namespace"), rs["metadata"]["name"])
            except InputError:
                pass

    # -- k8s: rolloutRolling ------------------------------------------------------------------------
    def _rollout_rolling(self, d: dict, rss: list[dict]) -> None:
        new, old = self._get_all(d, rss, create=True)
        if new is None:
            return
        all_rss = old + [new]
        if self._reconcile_new(d, all_rss, new) or self._reconcile_old(d, all_rss, du.active(old), self._refresh(new)):
            return self._sync_rollout_status(d, self._fresh(old, new))
        if du.deployment_complete(d, d.get("status") or {}):
            self._cleanup(d, old)
        self._sync_rollout_status(d, self._fresh(old, new))

    def _fresh(self, old: list[dict], new: dict | None) -> tuple[list, dict | None]:
        return [rs for rs in (self._refresh(r) for r in old) if rs is not None], self._refresh(new)

    def _reconcile_new(self, d: dict, all_rss: list[dict], new: dict) -> bool:
        if du.replicas(new) == du.replicas(d):
            return False
        if du.replicas(new) > du.replicas(d):
            return self._scale_rs(new, du.replicas(d), d)[0]
        return self._scale_rs(new, du.new_rs_new_replicas(d, all_rss, new), d)[0]

    def _reconcile_old(self, d: dict, all_rss: list[dict], old: list[dict], new: dict) -> bool:
        """k8s: reconcileOldReplicaSets, cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate."""
        if du.total_replicas(old) == 0:
            return False
        all_rss = [self._refresh(rs) for rs in all_rss if rs is not None]
        min_available = du.replicas(d) - du.max_unavailable(d)
        new_unavailable = du.replicas(new) - du.rs_status(new, "availableReplicas")
        max_scaled_down = du.total_replicas(all_rss) - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        cleaned = 0
        old = du.by_creation([self._refresh(rs) for rs in old])
        for i, rs in enumerate(old):
            if cleaned >= max_scaled_down:
                break
            unhealthy = du.replicas(rs) - du.rs_status(rs, "availableReplicas")
            if du.replicas(rs) == 0 or unhealthy <= 0:
                continue
            count = min(max_scaled_down - cleaned, unhealthy)
            _, old[i] = self._scale_rs(rs, du.replicas(rs) - count, d)
            cleaned += count
        all_rss = old + [new]
        available = du.total_status(all_rss, "availableReplicas")
        scaled = 0
        if available > min_available:
            budget = available - min_available
            for rs in du.by_creation(old):
                if scaled >= budget:
                    break
                if du.replicas(rs) == 0:
                    continue
                count = min(du.replicas(rs), budget - scaled)
                self._scale_rs(rs, du.replicas(rs) - count, d)
                scaled += count
        return cleaned + scaled > 0

    # -- k8s: rolloutRecreate -----------------------------------------------------------------------
    def _rollout_recreate(self, d: dict, rss: list[dict]) -> None:
        new, old = self._get_all(d, rss, create=False)
        scaled = False
        for rs in du.active(old):
            scaled = self._scale_rs(rs, 0, d)[0] or scaled
        if scaled:
            return self._sync_rollout_status(d, self._fresh(old, new))
        if self._old_pods_running(new, old):
            return self._sync_rollout_status(d, self._fresh(old, new))
        if new is None:
            new, old = self._get_all(d, rss, create=True)
            if new is None:
                return
        self._scale_rs(self._refresh(new), du.replicas(d), d)
        if du.deployment_complete(d, d.get("status") or {}):
            self._cleanup(d, old)
        self._sync_rollout_status(d, self._fresh(old, new))

    def _old_pods_running(self, new: dict | None, old: list[dict]) -> bool:
        """k8s: oldPodsRunning — old ReplicaSets report pods, or a pod of theirs is not finished."""
        if du.total_status(old, "replicas") > 0:
            return True
        old_uids = {rs["metadata"]["uid"] for rs in old if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]}
        for pod in self.store.list("Pod", (old[0]["metadata"].get("namespace") if old else None) or ""):
            if (controller_of(pod) or {}).get("uid") in old_uids and \
                    (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                return True
        return False

    # -- status (deploymentstatus.py) ---------------------------------------------------------------
    def _sync_status(self, d: dict, all_rss: list, new: dict | None) -> None:
        status = ds.calculate_status(d, all_rss, new, self.ctx.clock)
        if status != (d.get("status") or {}):
            d["status"] = status
            self._write(d)

    def _sync_rollout_status(self, d: dict, fresh: tuple[list, dict | None]) -> None:
        """k8s: syncRolloutStatus — written when changed, else maybe requeued for the deadline."""
        old, new = fresh
        status = ds.rollout_status(d, old + ([new] if new is not None else []), new, self.ctx.clock)
        if status == (d.get("status") or {}):
            self._requeue_stuck(d, status)
            return
        d["status"] = status
        self._write(d)

    def _requeue_stuck(self, d: dict, status: dict) -> None:
        """k8s: requeueStuckDeployment — check again when the progress deadline passes."""
        key = (d["metadata"].get("namespace") or "", d["metadata"]["name"])
        current = du.condition(d.get("status") or {}, "Progressing")
        if not du.has_progress_deadline(d) or current is None or du.deployment_complete(d, status) \
                or current.get("reason") == "ProgressDeadlineExceeded":
            self.queue.forget(key)
            return
        after = parse_time(current["lastUpdateTime"]) + int(d["spec"]["progressDeadlineSeconds"]) - self.ctx.clock.now
        if after <= 0 or current.get("reason") == "NewReplicaSetAvailable":
            # k8s requeues (rate limited) forever here; this sync already made the timeout check
            # and nothing but an event can change its answer, so the simulation waits for one.
            self.queue.forget(key)
            return
        self.queue.add_after(key, after + 1)


def _neg_time(rs: dict) -> tuple:
    """Newer first: sort on the negated creation time."""
    ts = rs["metadata"].get("creationTimestamp")
    return (-parse_time(ts),) if ts else (0.0,)


def _selects(d: dict, rs: dict) -> bool:
    try:
        return compile_label_selector(d["spec"].get("selector")).matches(rs["metadata"].get("labels") or {})
    except LabelSelectorError:
        return False
