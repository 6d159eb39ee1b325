"""kube-scheduler: one pod per cycle, through the framework's extension points.

k8s: pkg/scheduler/schedule_one.go (scheduleOne, schedulePod,
findNodesThatFitPod, prioritizeNodes, selectHost, handleSchedulingFailure),
pkg/scheduler/framework/runtime/framework.go (Run*Plugins).

The binding cycle runs right after the scheduling cycle (no goroutine): the
simulation is single-threaded, which is also what makes it deterministic.
"""
from __future__ import annotations

import json
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from drasim.controllers.events import NORMAL, WARNING, record_event
from drasim.errors import AllocationError, InternalError
from drasim.scheduler.cache import SchedulerCache
from drasim.scheduler.framework import (Code, CycleState, Diagnosis, FilterPlugin, NodeInfo, PostFilterPlugin,
                                        PreBindPlugin, PreEnqueuePlugin, PreFilterPlugin, ReservePlugin,
                                        ScorePlugin, Status, VERDICTS_KEY, fit_error_message)
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


_VERDICTS_KEY = VERDICTS_KEY
_SPEC_IRRELEVANT = ("resourceClaims", "schedulerName", "terminationGracePeriodSeconds", "dnsPolicy",
                    "enableServiceLinks", "serviceAccountName", "hostname", "subdomain")
_CONTAINER_RELEVANT = ("resources", "ports", "restartPolicy")


def pod_spec_signature(pod: dict) -> str:
    """The pod spec without what no simulated Filter/Score plugin reads (names, images, commands...).

    Conservative: every field not known to be irrelevant is part of the signature.
    Claims are left to DynamicResources' own signature.
    """
    spec = pod.get("spec") or {}
    reduced = {k: v for k, v in spec.items() if k not in _SPEC_IRRELEVANT
               and k not in ("containers", "initContainers")}
    for key in ("initContainers", "containers"):
        reduced[key] = [{k: c.get(k) for k in _CONTAINER_RELEVANT if k in c} for c in spec.get(key) or ()]
    return repr(reduced)   # equal specs written alike give equal text; anything else only misses the cache


class FilterCache:
    """Filter verdicts (and raw scores) per pod signature and node, valid while the node's token holds.

    kube-scheduler re-runs every Filter plugin on every node for every pod. A
    verdict is a pure function of what the pod asks for (its signature) and of
    the node's state: NodeInfo.generation, which the cache bumps when pods are
    placed or the node changes and which plugins with state beyond the node
    bump through SchedulerCache.touch (DynamicResources: a slice of the node's
    pools or an allocation in them changed); touch_all() starts a new epoch
    (a DeviceClass, a shared pool). Pods with the same
    signature — all replicas of a workload — reuse verdicts for unchanged
    nodes, so each cycle pays a lookup per node instead of a Filter run. The
    decisions are identical (tests compare runs with the cache on and off).
    """

    def __init__(self, enabled: bool = True, max_signatures: int = 256) -> None:
        self.enabled = enabled
        self.max_signatures = max_signatures
        self._by_signature: OrderedDict = OrderedDict()
        self._epoch = 0

    def verdicts(self, signature, epoch: int) -> dict | None:
        """NodeInfo -> [node generation, status, raw scores] for this signature (None: disabled)."""
        if not self.enabled:
            return None
        if epoch != self._epoch:
            self._by_signature.clear()
            self._epoch = epoch
        table = self._by_signature.get(signature)
        if table is None:
            table = self._by_signature[signature] = {}
            if len(self._by_signature) > self.max_signatures:
                self._by_signature.popitem(last=False)
        else:
            self._by_signature.move_to_end(signature)
        return table


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
                 percentage_of_nodes_to_score: int = 0, metrics=None, filter_cache: bool = True) -> None:
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
        self.filter_cache = FilterCache(enabled=filter_cache)
        self._signers = [p for p in self.profile.plugins if hasattr(p, "signature")]
        self._stashers = [p for p in self.profile.plugins if hasattr(p, "verdict_extra")]
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
        rejected: list[tuple[NodeInfo, Status]] = []
        n = len(candidates)
        verdicts = self.filter_cache.verdicts(self._signature(state, pod, skip), self.cache.epoch)
        state[_VERDICTS_KEY] = verdicts
        order = candidates[start:] + candidates[:start] if start else candidates
        if verdicts is None:
            for node in order:
                status = self._run_filters(filters, state, pod, node)
                if status is None:
                    feasible.append(node)
                    if len(feasible) >= want:
                        break
                else:
                    rejected.append((node, status))
        else:
            # NOTE: the hot loop of the whole simulator; kept flat on purpose.
            get = verdicts.get
            for node in order:
                entry = get(node)
                if entry is not None and entry[0] == node.generation:
                    status = entry[1]
                else:
                    status = self._run_filters(filters, state, pod, node)
                    extras = None
                    if status is None and self._stashers:
                        extras = {p.name: p.verdict_extra(state, node) for p in self._stashers}
                    verdicts[node] = [node.generation, status, None, extras]
                if status is None:
                    feasible.append(node)
                    if len(feasible) >= want:
                        break
                else:
                    rejected.append((node, status))
        if allowed is None:
            self.next_start_node_index = (start + len(feasible) + len(rejected)) % n
        if not feasible:
            for node, status in rejected:
                diagnosis.node_to_status[node.name] = status
                diagnosis.unschedulable_plugins.add(status.plugin)
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
        """k8s: prioritizeNodes — weighted sum of each Score plugin's (normalized) scores."""
        active = []
        for plugin in self.profile.score:
            pre = getattr(plugin, "pre_score", None)
            if pre is not None:
                status = pre(state, pod, nodes)
                if status is not None and status.is_skip:
                    continue
            active.append(plugin)
        plain = [p for p in active if getattr(p, "normalize", None) is None]
        normalized = [p for p in active if getattr(p, "normalize", None) is not None]
        verdicts = state.get(_VERDICTS_KEY)
        if verdicts is None:
            rows = [self._node_scores(plain, normalized, state, pod, n) for n in nodes]
        else:
            # Raw scores, like verdicts, depend only on the pod signature and the node's state.
            key = tuple(p.name for p in active)
            rows = []
            for node in nodes:
                entry = verdicts[node]   # every feasible node was just filtered or validated
                if entry[2] is None or entry[2][0] != key:
                    entry[2] = (key, self._node_scores(plain, normalized, state, pod, node))
                rows.append(entry[2][1])
        totals = [row[0] for row in rows]
        for i, plugin in enumerate(normalized):
            raw = [row[1][i] for row in rows]
            if min(raw) == max(raw):
                continue   # normalizes to one value for every node: no effect on the choice
            plugin.normalize(state, pod, raw)
            weight = plugin.weight
            for j, value in enumerate(raw):
                totals[j] += value * weight
        return totals

    @staticmethod
    def _node_scores(plain: list, normalized: list, state: CycleState, pod: dict,
                     node: NodeInfo) -> tuple[int, tuple[int, ...]]:
        """(weighted sum of the scores needing no normalization, raw scores of the others)."""
        return (sum(p.score(state, pod, node) * p.weight for p in plain),
                tuple(p.score(state, pod, node) for p in normalized))

    def _signature(self, state: CycleState, pod: dict, skipped: set[str]):
        """Everything about the pod that Filter and Score look at (see FilterCache)."""
        return (pod_spec_signature(pod), tuple(sorted(skipped)),
                *[p.signature(state, pod) for p in self._signers])

    def _select_host(self, nodes: list[NodeInfo], scores: list[int]) -> str:
        """k8s: selectHost — the highest total; among equal totals each node is equally likely.

        kube-scheduler reservoir-samples the ties (one random draw per tie); drawing
        once among them gives the same uniform choice, from a seeded generator.
        """
        top = max(scores)
        ties = [i for i, s in enumerate(scores) if s == top]
        pick = ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]
        return nodes[pick].name

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
        """k8s: DefaultBinder → pods/binding, which sets spec.nodeName and PodScheduled=True in one write."""
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None:
            raise InternalError(f"pod {pod['metadata']['name']} vanished while binding")
        bound = dict(current, spec=dict(current["spec"], nodeName=node_name),
                     metadata=dict(current["metadata"]))
        status = dict(current.get("status") or {})
        status["conditions"] = [dict(c) for c in status.get("conditions") or ()]
        set_condition(status, {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                               "lastTransitionTime": self.clock.timestamp()})
        bound["status"] = status
        bound = self.store.replace(bound)
        ns = pod["metadata"].get("namespace")
        record_event(self.store, bound, NORMAL, "Scheduled",
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
            self.store.update_status(dict(current, status=status), copy=False)
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
