"""The simulated control plane: store, scheduler, controllers and kubelets, wired together.

This module sits above drasim.scheduler, drasim.controllers and drasim.node and
below drasim.cli and drasim.server: it is the one place that knows all
components. A phase of manifests is admitted like `kubectl apply` would be
(decode, default, validate, admit — all objects first, so nothing is half
applied), then everything runs until nothing more happens.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from drasim import admission
from drasim.allocator import Allocator, Features
from drasim.api import kinds
from drasim.api.defaults import apply_defaults
from drasim.api.extendedresource import ExtendedResourceCache, is_dra_extended_resource_name
from drasim.api.loader import Document
from drasim.controllers.devicetainteviction import DeviceTaintEvictionController
from drasim.controllers.quotacontroller import QuotaController
from drasim.controllers.resourceclaim import ResourceClaimController
from drasim.controllers.workloads import DaemonSetController, JobController, StatefulSetController
from drasim.errors import InputError, InvalidObject, ManifestError
from drasim.metrics import Metrics
from drasim.node.kubelet import Kubelets
from drasim.scheduler.plugins.defaultpreemption import DefaultPreemption
from drasim.scheduler.plugins.dynamicresources import DynamicResources
from drasim.scheduler.plugins.imagelocality import ImageLocality
from drasim.scheduler.plugins import names
from drasim.scheduler.plugins.registry import REGISTRY
from drasim.scheduler.queue import Hint, SchedulingQueue
from drasim.scheduler.scheduler import Scheduler
from drasim.sim.clock import Clock
from drasim.sim.loop import run_until_quiet
from drasim.store import ADDED, DELETED, MemoryStore, StoreError, WatchEvent, clone

DRA = "DynamicResources"
FIT = "NodeResourcesFit"


@dataclass(frozen=True)
class Options:
    seed: int = 0
    start: str = "2026-01-01T00:00:00Z"
    features: Features = Features()
    kubelets: bool = True   # scheduler_perf runs without kubelets: pods are bound, never started
    filter_cache: bool = True   # reuse Filter/Score results per pod signature (same decisions, faster)


class ControlPlane:
    def __init__(self, options: Options = Options()) -> None:
        self.options = options
        self.clock = Clock(options.start)
        self.store = MemoryStore(self.clock, seed=options.seed)
        self.metrics = Metrics()
        self.metrics.watch_claims(lambda: self.store.list("ResourceClaim"))
        self.er_cache = ExtendedResourceCache()
        self.store.subscribe(self._feed_er_cache, kinds=("DeviceClass",))
        self.store.subscribe(self._count_evictions, kinds=("Pod",))
        self.allocator = Allocator(options.features,
                                   share_id=lambda: self.store.new_uid())
        self.dra = DynamicResources(self.store, self.allocator, self.er_cache, self.metrics,
                                    node_info=lambda name: self.scheduler.cache.node(name),
                                    touch_node=lambda name: self.scheduler.cache.touch(name),
                                    touch_all=lambda: self.scheduler.cache.touch_all())
        self.scheduler = Scheduler(self.store, self._default_profile_plugins(), seed=options.seed,
                                   event_interest=self._event_interest, metrics=self.metrics,
                                   filter_cache=options.filter_cache)
        self._freed_by_pods = frozenset(p.name for p in self.scheduler.profile.plugins if p.name != DRA)
        self._aliases: dict[str, str | None] = {}
        self._alias_epoch = -1
        self.scheduler.resource_alias = self.resource_alias
        self.dra.resource_alias = self.resource_alias
        self.dra.class_alias = self.class_alias
        self.dra.create_claim = self.client_create
        self.claim_controller = ResourceClaimController(self.store, self.metrics, create=self.client_create)
        self.eviction_controller = DeviceTaintEvictionController(self.store, self.clock)
        self.quota_controller = QuotaController(self.store, self.er_cache)
        self.kubelets = Kubelets(self.store)
        # Workload controllers (apps/v1, batch/v1): their pods go through admission like any create.
        self.workload_controllers = [StatefulSetController(self.store, self.controller_create),
                                     DaemonSetController(self.store, self.controller_create),
                                     JobController(self.store, self.controller_create)]
        # Controllers before the scheduler: a cluster event is acted on (claims created,
        # deallocated) before the next pod is tried, as informers would let them.
        # The workload controllers come last: a sync reads all of a workload's pods, so it runs
        # once the pods it made have been scheduled and started (one sync for many pod updates,
        # as kube-controller-manager's work queue coalesces a key's events), not once per event.
        # What they decide is the same: each pod they create still reaches the claim controller
        # and the scheduler before their next sync.
        self.components = [self.claim_controller, self.eviction_controller, self.quota_controller,
                           *([self.kubelets] if options.kubelets else []), self.scheduler,
                           *self.workload_controllers]

    @property
    def extended_resource_cache(self) -> ExtendedResourceCache:
        """The scheduler plugin handle's view of the KEP-5004 name → class cache."""
        return self.er_cache

    def _default_profile_plugins(self) -> list:
        """The v1.37 default profile, in order (k8s: default_plugins.go), for the plugins drasim models."""
        plugins = []
        for entry in names.DEFAULT_PROFILE:
            if entry.name == names.DYNAMIC_RESOURCES:
                plugins.append(self.dra)
            elif entry.name == names.IMAGE_LOCALITY:
                plugins.append(ImageLocality(entry.weight, lambda image: self.scheduler.cache.nodes_with_image(image),
                                             lambda: len(self.scheduler.cache)))
            elif entry.name == names.DEFAULT_PREEMPTION:
                plugins.append(DefaultPreemption(
                    nodes=lambda: self.scheduler.cache.nodes(),
                    run_filters=lambda state, pod, node: self.scheduler.filters_fit(state, pod, node),
                    evict=lambda victim, pod, node: self.scheduler.evict_for_preemption(victim, pod, node),
                    nominate=lambda pod, node: self.scheduler.nominate(pod, node)))
            elif entry.simulated and entry.name in REGISTRY:
                plugins.append(REGISTRY[entry.name](self, None))
        return plugins

    def class_alias(self, class_name: str | None) -> str | None:
        """What of a DeviceClass allocation depends on: its selectors and config."""
        dc = self.store.get("DeviceClass", None, class_name) if class_name else None
        if dc is None:
            return None
        spec = dc.get("spec") or {}
        return "class:" + repr((spec.get("selectors"), spec.get("config")))

    def resource_alias(self, name: str) -> str | None:
        """A token for a DRA-extended resource name that every plugin treats like any other
        name with the same token, or None.

        That holds when no node advertises the name (NodeResourcesFit delegates it to DRA
        everywhere) and it maps to a class: DynamicResources then allocates it through that
        class, and only the class's selectors and config matter. Pods asking for different
        such names share Filter verdicts (scheduler/filtercache.py). Cached per epoch: class
        and node changes that could alter the answer start a new one.
        """
        epoch = self.scheduler.cache.epoch
        if epoch != self._alias_epoch:
            self._aliases.clear()
            self._alias_epoch = epoch
        if name in self._aliases:
            return self._aliases[name]
        token = None
        if is_dra_extended_resource_name(name) and not self.scheduler.cache.advertises(name):
            class_token = self.class_alias(self.er_cache.class_for(name))
            if class_token is not None:
                token = "dra:" + class_token
        self._aliases[name] = token
        return token

    # -- informer glue ------------------------------------------------------------
    def _count_evictions(self, ev: WatchEvent) -> None:
        """device_taint_eviction_controller_pod_deletions_total: pods the controller deleted."""
        if ev.type == DELETED and any(c.get("type") == "DisruptionTarget" and c.get("reason") == "DeletionByDeviceTaintManager"
                                      for c in (ev.obj.get("status") or {}).get("conditions") or ()):
            self.metrics.evictions.inc()

    def _feed_er_cache(self, ev: WatchEvent) -> None:
        if ev.kind != "DeviceClass":
            return
        if ev.type == ADDED:
            self.er_cache.on_add(ev.obj)
        elif ev.type == DELETED:
            self.er_cache.on_delete(ev.obj)
        else:
            self.er_cache.on_update(ev.old, ev.obj)

    def _event_interest(self, ev: WatchEvent, queue: SchedulingQueue) -> Hint | None:
        """Which unschedulable pods an event may help (the QueueingHint idea).

        k8s: each plugin's EventsToRegister (dynamicresources.go, fit.go, …). Claim events
        go only to the pods naming the claim (indexed), so the work per event does not
        grow with the number of pending pods.
        """
        kind = ev.kind
        if kind == "Node":
            return None if ev.type == DELETED else Hint(everything=True)
        if kind == "Pod":
            pod = ev.obj
            if ev.type == DELETED or (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                if (pod.get("spec") or {}).get("nodeName"):
                    return Hint(plugins=self._freed_by_pods)   # resources on its node are free again
                return None
            old_claims = ((ev.old or {}).get("status") or {}).get("resourceClaimStatuses")
            if old_claims != (pod.get("status") or {}).get("resourceClaimStatuses"):
                return Hint(pods=frozenset((pod["metadata"]["uid"],)))
            return None
        if kind == "ResourceClaim":
            md = ev.obj["metadata"]
            deallocated = ev.old is not None and (ev.old.get("status") or {}).get("allocation") and not (
                ev.obj.get("status") or {}).get("allocation")
            if ev.type == DELETED or deallocated:
                return Hint(plugins=frozenset((DRA, FIT)))   # devices were freed
            return Hint(pods=queue.pods_naming_claim(md.get("namespace") or "", md["name"]))
        if kind in ("ResourceSlice", "DeviceClass", "DeviceTaintRule"):
            if ev.type == DELETED and kind != "DeviceTaintRule":
                return None
            return Hint(plugins=frozenset((DRA, FIT)), gated=True)
        return None

    # -- phases -------------------------------------------------------------------
    def apply(self, documents: Iterable[Document]) -> list[dict]:
        """Admit one phase: every object is checked first; then each is created or updated."""
        prepared: list[tuple[Document, dict, dict | None]] = []
        creates: list[dict] = []
        for doc in documents:
            md = doc.obj.get("metadata") or {}
            ns = (md.get("namespace") or "default") if doc.kind.namespaced else None
            name = md.get("name")
            # A name or namespace of the wrong type is validation's to report, not a lookup key.
            lookup = isinstance(name, str) and name and (ns is None or isinstance(ns, str))
            old = self.store.get(doc.kind.kind, ns, name) if lookup else None
            obj = doc.obj if old is None else _merge_for_apply(old, doc.obj, doc.kind)
            obj = admission.prepare(self.store, doc.kind, obj, old, doc.source, creates, self.options.features)
            if old is None:
                admission.admit(self.store, self.er_cache, doc.kind, obj, doc.source, creates)
                creates.append(obj)
            prepared.append((doc, obj, old))
        stored: list[dict] = []
        for doc, obj, old in prepared:
            if old is not None:
                stored.append(self._update(doc.kind, obj))
                continue
            if doc.kind.namespaced:
                self._ensure_namespace(obj["metadata"]["namespace"])
            self.clock.advance(1)   # a later document gets a later creationTimestamp
            obj["metadata"].setdefault("creationTimestamp", self.clock.timestamp())
            try:
                stored.append(self.store.create(obj, copy=False))
            except StoreError as e:
                raise InputError(f"{doc.source}: {e}") from None
        return stored

    def _update(self, kind: kinds.Kind, obj: dict) -> dict:
        status = obj.get("status")
        obj["metadata"].pop("resourceVersion", None)
        stored = self.store.update(obj)
        if kind.has_status and status is not None and kind.kind in ("Node",):
            stored = self.store.update_status(dict(stored, status=status))
        return stored

    def _ensure_namespace(self, name: str) -> None:
        if self.store.get("Namespace", None, name) is None:
            ns = apply_defaults({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                                self.clock.timestamp())
            self.store.create(ns)

    def create(self, obj: dict, *, source: str = "") -> dict:
        """Create one object as a client would (decoded, defaulted, validated, admitted), outside a
        phase: drivers such as the benchmark runner use it. The clock does not move."""
        kind = kinds.lookup(obj.get("apiVersion", ""), obj.get("kind", ""))
        if kind is None:
            raise ManifestError(f'{source}: no matches for kind "{obj.get("kind")}" in version "{obj.get("apiVersion")}"')
        obj = admission.prepare(self.store, kind, obj, None, source, features=self.options.features)
        if kind.namespaced:
            self._ensure_namespace(obj["metadata"]["namespace"])
        admission.admit(self.store, self.er_cache, kind, obj, source)
        return self.store.create(obj, copy=False)

    def client_create(self, obj: dict) -> dict:
        """A create by a component (controller, scheduler) through the API server: named, given a
        uid, and quota-admitted like any client's (extended-resources.md §11.7). The dict is
        handed over. Raises InputError when admission forbids it."""
        kind = kinds.BY_KIND[obj["kind"]]
        md = obj["metadata"]
        if not md.get("name"):
            md["name"] = self.store.generate_name(kind, md["generateName"], md.get("namespace") or "")
        md.setdefault("uid", self.store.new_uid())
        admission.admit(self.store, self.er_cache, kind, obj, "")
        return self.store.create(obj, copy=False)

    def controller_create(self, obj: dict) -> dict:
        """A create by a workload controller (k8s: controller.RealPodControl): the whole write path —
        defaults, naming, validation, quota admission — as for any client. Raises InputError."""
        kind = kinds.BY_KIND[obj["kind"]]
        obj = admission.prepare(self.store, kind, obj, None, "", features=self.options.features)
        admission.admit(self.store, self.er_cache, kind, obj, "")
        return self.store.create(obj, copy=False)

    def step(self) -> bool:
        """One unit of work: a component's run_once, or else the next timer. False when quiet."""
        for component in self.components:
            if component.has_work():
                component.run_once()
                return True
        return self.clock.fire_next()

    def settle(self) -> int:
        """Run until nothing more happens (timers fast-forwarded)."""
        return run_until_quiet(self.clock, self.components)

    def run_phase(self, documents: Iterable[Document]) -> None:
        self.apply(documents)
        self.settle()

    # -- views ----------------------------------------------------------------------
    def objects(self, include_events: bool = False) -> list[dict]:
        order = list(kinds.OUTPUT_ORDER) + ([kinds.EVENT] if include_events else [])
        return self.store.all_objects(order)


def _merge_for_apply(old: dict, new: dict, kind: kinds.Kind) -> dict:
    """kubectl apply onto an existing object: fields the manifest gives replace the stored ones.

    metadata keeps what the server owns (uid, creationTimestamp, finalizers unless given).
    """
    merged = clone(old)
    for key, value in new.items():
        if key == "metadata":
            md = merged["metadata"]
            for mk in ("labels", "annotations", "ownerReferences", "finalizers"):
                if mk in value:
                    md[mk] = clone(value[mk])
        elif key == "status" and kind.kind != "Node":
            continue
        else:
            merged[key] = clone(value)
    return merged
