"""Runs prepared ops against a ControlPlane (k8s: scheduler_perf executor.go, dra.go).

The executor watches pods like an informer: it keeps, per namespace, the number of pods
without a node, counts pods that become bound for the active collector, and queues bound
pods of a steady-state op for replacement. Nothing here is O(total pods) per pod.
"""
from __future__ import annotations

import fnmatch
import random
import time
from collections import Counter, defaultdict, deque
from pathlib import Path
from typing import Callable

from drasim.api import kinds
from drasim.bench.collector import FINE_INTERVAL, ThroughputCollector
from drasim.bench.config import ConfigError
from drasim.bench.objects import (DRA_NODE_TEMPLATE, HOSTNAME_LABEL, Renderer, base_node,
                                  dra_node_from_template, drop_unsatisfiable_match, driver_slice,
                                  with_metadata)
from drasim.bench.ops import Op
from drasim.bench.podops import create_pods
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from drasim.store import ADDED, DELETED, MODIFIED, WatchEvent

BURST_TIMEOUT = 600.0   # scheduler_perf waits 10 minutes for a burst to be scheduled


class WorkloadFailed(ConfigError):
    """The workload could not complete (scheduler_perf's tCtx.Fatalf)."""


class Collection:
    """One active metrics collection (collectMetrics or start/stopCollectingMetrics)."""

    def __init__(self, suffix: str, namespaces: set[str], selector: dict[str, str] | None,
                 admitted: Counter) -> None:
        self.suffix = suffix
        self.namespaces = namespaces
        self.selector = selector or {}
        self._admitted = admitted
        self._admitted0 = Counter(admitted)
        self.created: Counter[str] = Counter()   # pods and claims stored in the namespaces, by kind
        self.wall0 = time.perf_counter()
        self.cpu0 = time.process_time()
        self.collector = ThroughputCollector(self.wall0)
        self.fine = ThroughputCollector(self.wall0, FINE_INTERVAL)

    def matches(self, pod: dict) -> bool:
        md = pod["metadata"]
        if md.get("namespace") not in self.namespaces:
            return False
        labels = md.get("labels") or {}
        return all(labels.get(k) == v for k, v in self.selector.items())

    def finish(self) -> dict:
        wall = time.perf_counter() - self.wall0
        cpu = time.process_time() - self.cpu0
        c = self.collector
        overall = c.scheduled / wall if wall > 0 else None
        throughput = c.summary()
        if throughput is not None:
            comparable = {"value": throughput["Average"], "from": "SchedulingThroughput"}
        else:   # scheduler_perf would report nothing: pods over the phase's wall time instead
            comparable = {"value": overall, "from": "OverallThroughput"}
        admitted = self._admitted - self._admitted0
        return {
            "suffix": self.suffix,
            "Throughput": comparable,
            "SchedulingThroughput": throughput,
            "ThroughputSamples": len(c.samples),
            "OverallThroughput": overall,
            # A diagnostic only, not comparable with scheduler_perf: its collector ticks every 1 s.
            "FineSchedulingThroughput": self.fine.summary(),
            "FineThroughputSamples": len(self.fine.samples),
            "FineThroughputTick": self.fine.interval,
            "PodsScheduled": c.scheduled,
            "Created": {k: self.created[k] for k in ("Pod", "ResourceClaim")},
            "Admitted": {k: admitted[k] for k in ("Pod", "ResourceClaim")},
            "SchedulingDuration": wall,
            "CPUTime": cpu,
        }


class Executor:
    def __init__(self, cp: ControlPlane, config_dir: Path, *, seed: int = 0,
                 progress: Callable[[str, int, float | None], object] | None = None) -> None:
        self.cp = cp
        self.store = cp.store
        self.renderer = Renderer(config_dir)
        self.rng = random.Random(seed)
        self.progress = progress
        self.notes: list[str] = []
        self.results: list[dict] = []
        self.unbound: dict[str, int] = defaultdict(int)   # namespace -> pods without nodeName
        self.attempted: set[str] = set()
        self.bound_total = 0
        self.collection: Collection | None = None
        self._replace_ns: str | None = None
        self._replace: deque[tuple[str, str]] = deque()
        self._slice_attribute_seen = False
        self.store.subscribe(self._on_event)

    # -- informer ---------------------------------------------------------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind == "ResourceSlice" and ev.type != DELETED and not self._slice_attribute_seen:
            self._slice_attribute_seen = any("dra.example.com/slice" in (d.get("attributes") or {})
                                             for d in ev.obj["spec"].get("devices") or ())
        c = self.collection
        if ev.type == ADDED and c is not None and ev.kind in ("Pod", "ResourceClaim") and (
                ev.obj["metadata"].get("namespace") in c.namespaces):
            c.created[ev.kind] += 1
        if ev.kind != "Pod":
            return
        pod = ev.obj
        ns = pod["metadata"].get("namespace")
        bound = bool(pod["spec"].get("nodeName"))
        if ev.type == ADDED:
            if bound:
                self._on_bound(pod, ns)
            else:
                self.unbound[ns] += 1
        elif ev.type == MODIFIED:
            if bound and not ev.old["spec"].get("nodeName"):
                self.unbound[ns] -= 1
                self._on_bound(pod, ns)
        elif not bound:
            self.unbound[ns] -= 1

    def _on_bound(self, pod: dict, ns: str) -> None:
        self.bound_total += 1
        c = self.collection
        if c is not None and c.matches(pod):
            c.collector.scheduled += 1
            c.fine.scheduled += 1
        if ns == self._replace_ns:
            self._replace.append((ns, pod["metadata"]["name"]))

    # -- driving ------------------------------------------------------------------------------
    def _poll(self) -> None:
        if self.collection is not None:
            now = time.perf_counter()
            self.collection.collector.poll(now)
            self.collection.fine.poll(now)

    def run(self, ops: list[Op]) -> None:
        for op in ops:
            try:
                getattr(self, "_op_" + op.opcode)(op)
            except InputError as e:   # scheduler_perf: tCtx.Fatalf("op %d: …")
                raise WorkloadFailed(f"op {op.index} ({op.opcode}): {e}") from None
        for folder, names in self.renderer.fallbacks.items():
            self.notes.append(f"templates not next to the config, taken from {folder}: {', '.join(names)}")
        for note in self.renderer.notes:
            if note not in self.notes:
                self.notes.append(note)

    def _start(self, suffix: str, namespaces: set[str], selector: dict | None = None) -> None:
        if self.collection is not None:
            raise ConfigError("metrics collection is already active")
        self.collection = Collection(suffix, namespaces, selector, self.cp.admitted)

    def _stop(self) -> None:
        if self.collection is None:
            raise ConfigError("no metrics collection is active")
        self.results.append(self.collection.finish())
        self.collection = None

    # -- ops ----------------------------------------------------------------------------------
    def _op_createNodes(self, op: Op) -> None:
        for i in range(op.count):
            if op.template:
                node = self.renderer.render(op.template, {**op.template_params, "Index": i, "Count": op.count})
                if op.template.rsplit("/", 1)[-1] == DRA_NODE_TEMPLATE:
                    node = dra_node_from_template(node, i)
            else:
                node = base_node(op.index)
            md = node.get("metadata") or {}
            if md.get("name"):
                self.cp.create(with_metadata(node, labels={HOSTNAME_LABEL: md["name"]}), source=op.template or "")
            else:   # generateName: the hostname label needs the generated name
                created = self.cp.create(node, source=op.template or "")
                name = created["metadata"]["name"]
                self.store.update(with_metadata(created, labels={HOSTNAME_LABEL: name}))

    def _op_createNamespaces(self, op: Op) -> None:
        for i in range(op.count or 0):
            self.cp.ensure_namespace(f"{op.prefix}-{i}")

    def _op_createPodGroups(self, op: Op) -> None:
        """k8s: scheduler_perf createPodGroupsOp — createAny for PodGroups."""
        self._op_createAny(op)

    def _op_createAny(self, op: Op) -> None:
        count = 1 if op.count is None else op.count
        for i in range(count):
            obj = self.renderer.render(op.template, {**op.template_params, "Index": i, "Count": count})
            if obj.get("kind") == "PodGroup" and obj.get("apiVersion") == "scheduling.k8s.io/v1alpha3":
                # v1.37 serves PodGroup at v1beta1 (v1alpha3 is not served by default); same fields here
                obj = dict(obj, apiVersion="scheduling.k8s.io/v1beta1")
                note = f"{op.template}: PodGroup scheduling.k8s.io/v1alpha3 created as v1beta1"
                if note not in self.notes:
                    self.notes.append(note)
            obj, note = drop_unsatisfiable_match(obj, self._slice_attribute_seen)
            if note and note not in self.notes:
                self.notes.append(note)
            kind = kinds.BY_KIND.get(obj.get("kind", ""))
            if kind is not None:
                if op.namespace and not kind.namespaced:
                    raise ConfigError(f'namespace "{op.namespace}" set for "{op.template}", but '
                                      f'"{kind.api_version}, Kind={kind.kind}" has scope "cluster"')
                if kind.namespaced:
                    if not op.namespace:
                        raise ConfigError(f'"{op.template}": {kind.kind} is namespaced: namespace must be set')
                    obj = with_metadata(obj, namespace=op.namespace)
                    self.cp.ensure_namespace(op.namespace)   # k8s: scheduler_perf createNamespaceIfNotPresent
            self.cp.create(obj, source=op.template)

    def _op_createResourceDriver(self, op: Op) -> None:
        nodes = sorted(n["metadata"]["name"] for n in self.store.list("Node"))
        for name in nodes:
            if fnmatch.fnmatchcase(name, op.nodes_glob):
                self.cp.create(driver_slice(name, op.driver, op.max_claims), source="createResourceDriver")

    def _op_allocResourceClaims(self, op: Op) -> None:
        """README §4.4: claims in list order, each on the first node of a freshly shuffled list that fits."""
        claims = sorted(self.store.list("ResourceClaim", op.namespace or None),
                        key=lambda c: (c["metadata"].get("namespace", ""), c["metadata"]["name"]))
        nodes = sorted(self.store.list("Node"), key=lambda n: n["metadata"]["name"])
        allocator, allocated = self.cp.allocator, self.cp.dra.allocated
        for i, claim in enumerate(claims):
            if (claim.get("status") or {}).get("allocation"):
                continue
            self.rng.shuffle(nodes)
            for node in nodes:
                results = allocator.allocate(node, [claim], allocated)
                if results:
                    self.store.update_status({**claim, "status": {**(claim.get("status") or {}),
                                                                  "allocation": results[0]}})
                    break
            else:
                raise ConfigError(f"Could not allocate claim {i} out of {len(claims)}")

    def _op_startCollectingMetrics(self, op: Op) -> None:
        self._start(op.name, set(op.namespaces), op.label_selector)

    def _op_stopCollectingMetrics(self, op: Op) -> None:
        self._stop()

    def _op_sleep(self, op: Op) -> None:
        """Sleep in virtual time: run the cluster up to now + duration."""
        until = self.cp.clock.now + op.duration
        while True:
            nxt = self.cp.clock.next_timer()
            busy = any(c.has_work() for c in self.cp.components)
            if not busy and (nxt is None or nxt > until):
                break
            self.cp.step()
            self._poll()
        self.cp.clock.now = max(self.cp.clock.now, until)

    def _op_barrier(self, op: Op) -> None:
        if op.label_selector:
            raise ConfigError("barrier: labelSelector is not supported by drasim bench")
        namespaces = op.namespaces

        def pending() -> bool:
            keys = namespaces if namespaces else list(self.unbound)
            return any(self.unbound.get(ns, 0) > 0 for ns in keys)
        self._drive_until(lambda: not pending(), "barrier")

    def _react(self) -> None:
        """Let every component act on what was just written, without moving virtual time: in
        scheduler_perf the scheduler and the controllers run while the client creates pods,
        so creation and scheduling overlap and both fall inside the measured phase."""
        components = self.cp.components
        while True:
            for component in components:
                if component.has_work():
                    component.run_once()
                    break
            else:
                return

    def _drive_until(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.perf_counter() + BURST_TIMEOUT
        step, poll = self.cp.step, self._poll
        while not done():
            if not step():
                raise ConfigError(f"{what}: the cluster is quiet but pods are still unscheduled "
                                  f"({self.pods_unscheduled()} pods without a node)")
            poll()
            if time.perf_counter() > deadline:
                raise ConfigError(f"{what}: timed out after {BURST_TIMEOUT:.0f}s")

    def pods_unscheduled(self) -> int:
        return sum(n for n in self.unbound.values() if n > 0)

    def _op_createPods(self, op: Op) -> None:
        create_pods(self, op)
