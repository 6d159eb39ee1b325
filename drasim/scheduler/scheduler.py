"""kube-scheduler: one pod per cycle, through the framework's extension points.

k8s: pkg/scheduler/schedule_one.go (scheduleOne, schedulePod,
findNodesThatFitPod, prioritizeNodes, selectHost, handleSchedulingFailure),
pkg/scheduler/framework/runtime/framework.go (Run*Plugins).

The binding cycle runs right after the scheduling cycle (no goroutine): the
simulation is single-threaded, which is also what makes it deterministic.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterable

from drasim.controllers.events import NORMAL, WARNING, record_event
from drasim.errors import AllocationError, InternalError
from drasim.scheduler.cache import SchedulerCache
from drasim.scheduler.framework import (Code, CycleState, Diagnosis, FilterPlugin, NodeInfo, PostFilterPlugin,
                                        PreBindPlugin, PreEnqueuePlugin, PreFilterPlugin, ReservePlugin,
                                        ScorePlugin, Status, fit_error_message)
from drasim.scheduler.queue import QueuedPod, SchedulingQueue
from drasim.store import ADDED, DELETED, MODIFIED, MemoryStore, WatchEvent, clone

SCHEDULER_NAME = "default-scheduler"
MIN_FEASIBLE_NODES_TO_FIND = 100            # k8s: minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5   # k8s: minFeasibleNodesPercentageToFind


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """k8s: schedule_one.go numFeasibleNodesToFind (adaptive when percentageOfNodesToScore is unset)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage <= 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num_nodes = num_all_nodes * percentage // 100
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num_nodes


@dataclass
class Profile:
    """The plugins of a scheduler profile, sorted into extension points once."""

    plugins: list
    pre_enqueue: list = field(init=False)
    pre_filter: list = field(init=False)
    filter: list = field(init=False)
    post_filter: list = field(init=False)
    score: list = field(init=False)
    reserve: list = field(init=False)
    pre_bind: list = field(init=False)

    def __post_init__(self) -> None:
        def having(proto):
            return [p for p in self.plugins if isinstance(p, proto)]
        self.pre_enqueue = having(PreEnqueuePlugin)
        self.pre_filter = having(PreFilterPlugin)
        self.filter = having(FilterPlugin)
        self.post_filter = having(PostFilterPlugin)
        self.score = [p for p in having(ScorePlugin) if getattr(p, "weight", 1) > 0]
        self.reserve = having(ReservePlugin)
        self.pre_bind = having(PreBindPlugin)


class SchedulingFailure(Exception):
    """A cycle that ended without a node: carries the status to report."""

    def __init__(self, status: Status, message: str, plugins: set[str]) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.plugins = plugins


class Scheduler:
    """A sim Component: schedules one pod per run_once()."""

    name = "kube-scheduler"

    def __init__(self, store: MemoryStore, plugins: list, *, seed: int = 0,
                 event_interest: Callable[[WatchEvent], Callable[[QueuedPod], bool] | None] | None = None,
                 percentage_of_nodes_to_score: int = 0, metrics=None) -> None:
        self.store = store
        self.clock = store.clock
        self.profile = Profile(plugins)
        self.cache = SchedulerCache()
        self.queue = SchedulingQueue(self.clock)
        self.rng = random.Random(seed)
        self.next_start_node_index = 0
        self.percentage = percentage_of_nodes_to_score
        self.event_interest = event_interest
        self.metrics = metrics
        self.attempts = 0
        store.subscribe(self._on_event)

    # -- informer handlers ------------------------------------------------------
    def _responsible_for(self, pod: dict) -> bool:
        return (pod.get("spec") or {}).get("schedulerName", SCHEDULER_NAME) == SCHEDULER_NAME

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind == "Pod":
            self._on_pod(ev)
        elif ev.kind == "Node":
            if ev.type == DELETED:
                self.cache.remove_node(ev.obj["metadata"]["name"])
            else:
                self.cache.set_node(ev.obj)
        if self.event_interest is not None and ev.kind != "Event":
            interested = self.event_interest(ev)
            if interested is not None:
                self.queue.move_for_event(interested)

    def _on_pod(self, ev: WatchEvent) -> None:
        pod = ev.obj
        uid = pod["metadata"]["uid"]
        node_name = (pod.get("spec") or {}).get("nodeName")
        if ev.type == DELETED:
            self.queue.remove(uid)
            self.cache.remove_pod(pod)
            return
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if node_name:
            self.queue.remove(uid)
            if terminal:
                self.cache.remove_pod(pod)
            else:
                self.cache.add_pod(pod, node_name)
            return
        if terminal or not self._responsible_for(pod) or pod["metadata"].get("deletionTimestamp"):
            self.queue.remove(uid)
            return
        if ev.type == ADDED or uid not in self.queue:
            self.queue.add(pod)
        else:
            self.queue.update(pod)

    # -- component --------------------------------------------------------------
    def has_work(self) -> bool:
        return self.queue.has_active()

    def run_once(self) -> None:
        info = self.queue.pop()
        if info is None:
            return
        pod = self.store.get("Pod", info.pod["metadata"].get("namespace"), info.pod["metadata"]["name"])
        if pod is None or pod["metadata"]["uid"] != info.uid or pod["spec"].get("nodeName"):
            self.queue.remove(info.uid)
            return
        info.pod = pod
        self.schedule_one(info)

    def export_pending(self, metrics) -> None:
        """scheduler_pending_pods{queue} from the queue as it stands."""
        for queue, n in self.queue.pending_counts().items():
            metrics.pending_pods.labels(queue=queue).set(n)

    def _count_attempt(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.schedule_attempts.labels(result=result, profile=SCHEDULER_NAME).inc()

    # -- the scheduling cycle -----------------------------------------------------
    def schedule_one(self, info: QueuedPod) -> None:
        pod = info.pod
        self.attempts += 1
        for plugin in self.profile.pre_enqueue:
            status = plugin.pre_enqueue(pod)
            if status is not None:
                self.queue.mark_unschedulable(info, {plugin.name}, gated=True)
                return
        state = CycleState()
        try:
            node_name = self._schedule_pod(state, pod)
        except SchedulingFailure as failure:
            self._count_attempt("error" if failure.status.code == Code.ERROR else "unschedulable")
            self._handle_failure(info, pod, failure)
            return
        self._assume_and_bind(info, state, pod, node_name)

    def _schedule_pod(self, state: CycleState, pod: dict) -> str:
        nodes = self.cache.nodes()
        if not nodes:
            raise SchedulingFailure(Status(Code.UNSCHEDULABLE, ("no nodes available to schedule pods",)),
                                    "no nodes available to schedule pods", set())
        diagnosis = Diagnosis()
        feasible = self._find_nodes_that_fit(state, pod, nodes, diagnosis)
        if not feasible:
            message = fit_error_message(len(nodes), diagnosis)
            plugins = set(diagnosis.unschedulable_plugins)
            status = Status(Code.UNSCHEDULABLE, (message,))
            post = self._run_post_filter(state, pod, diagnosis)
            if post:
                diagnosis.post_filter_msg = post
                message = fit_error_message(len(nodes), diagnosis)
            raise SchedulingFailure(status, message, plugins)
        if len(feasible) == 1:
            return feasible[0].name
        scores = self._prioritize(state, pod, feasible)
        return self._select_host(feasible, scores)

    def _find_nodes_that_fit(self, state: CycleState, pod: dict, nodes: list[NodeInfo],
                             diagnosis: Diagnosis) -> list[NodeInfo]:
        allowed: set[str] | None = None
        for plugin in self.profile.pre_filter:
            result, status = plugin.pre_filter(state, pod, nodes)
            if status is not None and not status.is_skip:
                if status.code == Code.ERROR:
                    msg = f'running PreFilter plugin "{plugin.name}": {status.message()}'
                    raise SchedulingFailure(Status(Code.ERROR, (msg,), plugin.name), msg, {plugin.name})
                diagnosis.pre_filter_msg = status.message()
                diagnosis.unschedulable_plugins.add(plugin.name)
                # All nodes share the PreFilter verdict.
                diagnosis.absent_status = status.with_plugin(plugin.name)
                raise SchedulingFailure(status.with_plugin(plugin.name),
                                        fit_error_message(len(nodes), diagnosis), {plugin.name})
            if status is not None and status.is_skip:
                state.setdefault("_skip_filter", set()).add(plugin.name)
            if result is not None and result.node_names is not None:
                allowed = result.node_names if allowed is None else allowed & result.node_names
        if allowed is not None:
            candidates = [n for n in nodes if n.name in allowed]
            diagnosis.absent_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                             ("node(s) didn't satisfy plugin(s) [PreFilter]",))
            start = 0
        else:
            candidates = nodes
            start = self.next_start_node_index % len(nodes)
        skip = state.get("_skip_filter", set())
        filters = [p for p in self.profile.filter if p.name not in skip]
        want = num_feasible_nodes_to_find(len(candidates), self.percentage)
        feasible: list[NodeInfo] = []
        processed = 0
        n = len(candidates)
        for i in range(n):
            node = candidates[(start + i) % n]
            processed += 1
            status = self._run_filters(filters, state, pod, node)
            if status is None:
                feasible.append(node)
                if len(feasible) >= want:
                    break
            else:
                diagnosis.node_to_status[node.name] = status
                diagnosis.unschedulable_plugins.add(status.plugin)
        if allowed is None:
            self.next_start_node_index = (start + processed) % n
        return feasible

    def _run_filters(self, filters: list, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        for plugin in filters:
            status = plugin.filter(state, pod, node)
            if status is None:
                continue
            if not status.rejected:   # k8s: framework.go RunFilterPlugins
                msg = f'running "{plugin.name}" filter plugin: {status.message()}'
                raise SchedulingFailure(Status(Code.ERROR, (msg,), plugin.name), msg, {plugin.name})
            return status.with_plugin(plugin.name)
        return None

    def _run_post_filter(self, state: CycleState, pod: dict, diagnosis: Diagnosis) -> str:
        messages = []
        for plugin in self.profile.post_filter:
            status = plugin.post_filter(state, pod, diagnosis.node_to_status)
            if status is not None and status.reasons:
                messages.append(status.message())
        return " ".join(messages)

    def _prioritize(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> list[int]:
        totals = [0] * len(nodes)
        for plugin in self.profile.score:
            pre = getattr(plugin, "pre_score", None)
            if pre is not None:
                status = pre(state, pod, nodes)
                if status is not None and status.is_skip:
                    continue
            raw = [plugin.score(state, pod, n) for n in nodes]
            normalize = getattr(plugin, "normalize", None)
            if normalize is not None:
                normalize(state, pod, raw)
            weight = plugin.weight
            for i, s in enumerate(raw):
                totals[i] += s * weight
        return totals

    def _select_host(self, nodes: list[NodeInfo], scores: list[int]) -> str:
        """k8s: selectHost — the highest total, ties broken by reservoir sampling (seeded)."""
        best = 0
        count = 1
        for i in range(1, len(nodes)):
            if scores[i] > scores[best]:
                best, count = i, 1
            elif scores[i] == scores[best]:
                count += 1
                if self.rng.randrange(count) == 0:
                    best = i
        return nodes[best].name

    # -- binding ------------------------------------------------------------------
    def _assume_and_bind(self, info: QueuedPod, state: CycleState, pod: dict, node_name: str) -> None:
        self.cache.add_pod(pod, node_name)   # assume
        reserved = []
        for plugin in self.profile.reserve:
            status = plugin.reserve(state, pod, node_name)
            reserved.append(plugin)
            if status is not None:
                self._unwind(reserved, state, pod, node_name)
                self._handle_failure(info, pod, SchedulingFailure(status, status.message(), {plugin.name}))
                return
        for plugin in self.profile.pre_bind:
            status = plugin.pre_bind(state, pod, node_name)
            if status is not None:
                self._unwind(reserved, state, pod, node_name)
                msg = f'running PreBind plugin "{plugin.name}": {status.message()}'
                self._handle_failure(info, pod, SchedulingFailure(Status(Code.ERROR, (msg,)), msg, {plugin.name}))
                return
        self._bind(pod, node_name)
        self.queue.done(info.uid)
        self._count_attempt("scheduled")

    def _unwind(self, reserved: list, state: CycleState, pod: dict, node_name: str) -> None:
        for plugin in reversed(reserved):
            plugin.unreserve(state, pod, node_name)
        self.cache.remove_pod(pod)

    def _bind(self, pod: dict, node_name: str) -> None:
        """k8s: DefaultBinder (pods/binding) sets spec.nodeName; the PodScheduled condition becomes True."""
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None:
            raise InternalError(f"pod {pod['metadata']['name']} vanished while binding")
        updated = clone(current)
        updated["spec"]["nodeName"] = node_name
        updated["metadata"].pop("resourceVersion", None)
        self.store.update(updated)
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        status = clone(current.get("status") or {})
        set_condition(status, {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                               "lastTransitionTime": self.clock.timestamp()})
        self.store.update_status(dict(current, status=status))
        ns = pod["metadata"].get("namespace")
        record_event(self.store, current, NORMAL, "Scheduled",
                     f"Successfully assigned {ns}/{pod['metadata']['name']} to {node_name}", SCHEDULER_NAME)

    def _handle_failure(self, info: QueuedPod, pod: dict, failure: SchedulingFailure) -> None:
        """k8s: handleSchedulingFailure — condition, event, back to the queue."""
        reason = "SchedulerError" if failure.status.code == Code.ERROR else "Unschedulable"
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None:
            self.queue.remove(info.uid)
            return
        status = clone(current.get("status") or {})
        changed = set_condition(status, {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                         "lastTransitionTime": self.clock.timestamp(),
                                         "reason": reason, "message": failure.message})
        if changed:
            self.store.update_status(dict(current, status=status))
            record_event(self.store, current, WARNING, "FailedScheduling", failure.message, SCHEDULER_NAME)
        plugins = failure.plugins or {"_error"}
        info.pod = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"]) or pod
        self.queue.mark_unschedulable(info, plugins)


def set_condition(status: dict, condition: dict) -> bool:
    """Upsert a pod condition by type; keep lastTransitionTime when status is unchanged. True if changed."""
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            if all(existing.get(k) == condition.get(k) for k in ("status", "reason", "message")):
                return False
            if existing.get("status") == condition.get("status"):
                condition = dict(condition, lastTransitionTime=existing.get("lastTransitionTime"))
            conditions[i] = condition
            return True
    conditions.append(condition)
    return True


def pods_in(items: Iterable[dict]) -> list[dict]:
    return [o for o in items if o.get("kind") == "Pod"]
