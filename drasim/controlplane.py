"""The simulated control plane: store, scheduler, controllers and kubelets, wired together.

This module sits above drasim.scheduler, drasim.controllers and drasim.node and
below drasim.cli and drasim.server: it is the one place that knows all
components. A phase of manifests is admitted like `kubectl apply` would be
(decode, default, validate, admit — all objects first, so nothing is half
applied), then everything runs until nothing more happens.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from drasim import admission, deletion, featuregates, namespacelifecycle, phaseops
from drasim.allocator import Allocator, Features
from drasim.api import kinds
from drasim.api.defaults import apply_defaults
from drasim.api.extendedresource import ExtendedResourceCache, is_dra_extended_resource_name
from drasim.api.loader import Document, gc_paused
from drasim.api.patch import strategic_merge
from drasim.controllers import workloads
from drasim.controllers.devicetainteviction import DeviceTaintEvictionController
from drasim.controllers.disruption import DisruptionController
from drasim.controllers.namespace import NamespaceController
from drasim.controllers.quotaadmission import unsynced_quota_warnings
from drasim.controllers.quotacontroller import QuotaController
from drasim.controllers.resourceclaim import ResourceClaimController
from drasim.errors import InputError, ManifestError
from drasim.metrics import Metrics
from drasim.node.kubelet import Kubelets
from drasim.scheduler.plugins.defaultpreemption import DefaultPreemption
from drasim.scheduler.plugins.dynamicresources import DynamicResources
from drasim.scheduler.plugins.gangscheduling import GangScheduling, group_key
from drasim.scheduler.plugins.imagelocality import ImageLocality
from drasim.scheduler.plugins import names
from drasim.scheduler.plugins.registry import REGISTRY
from drasim.scheduler.plugins.schedulinggates import gate_names
from drasim.scheduler.queue import Hint, SchedulingQueue
from drasim.scheduler.scheduler import Scheduler
from drasim.sim.clock import Clock
from drasim.sim.loop import run_until_quiet
from drasim.store import ADDED, DELETED, MemoryStore, StoreError, WatchEvent, clone
from drasim.store.memory import conflict

DRA = "DynamicResources"
FIT = "NodeResourcesFit"


@dataclass(frozen=True)
class Options:
    seed: int = 0
    start: str = "2026-01-01T00:00:00Z"
    features: Features = Features()
    # Every v1.37 DRA and scheduling gate (drasim.featuregates); `features` is the allocator's share of them.
    gates: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType(dict(featuregates.DEFAULTS)))
    kubelets: bool = True   # scheduler_perf runs without kubelets: pods are bound, never started
    # Optimisations, each making the same decisions faster (tests/property/test_optimisation_equivalence.py
    # runs random workloads with all of them on and off and requires identical outcomes):
    filter_cache: bool = True      # reuse Filter/Score results per pod signature, node index included
    quick_fit: bool = True         # decide "fits" for plain requests by counting usable devices
    resource_aliases: bool = True  # equivalent DRA-extended names share verdicts
    indexed_claim_hints: bool = True  # claim events find their pods by index, not by asking every pod
    lazy_in_flight_hints: bool = True  # events of a cycle are asked about only if its pod fails


def options_for(gates: Mapping[str, bool] | None = None, **kw) -> Options:
    """Options for a full gate map (drasim.featuregates.from_flag), the allocator's switches derived from it."""
    gates = dict(featuregates.DEFAULTS if gates is None else gates)
    return Options(features=featuregates.allocator_features(gates), gates=MappingProxyType(gates), **kw)


class ControlPlane:
    def __init__(self, options: Options = Options()) -> None:
        self.options = options
        self.admitted: Counter[str] = Counter()   # objects through the write path, by kind
        self.warnings: list[str] = []             # manifests skipped (e.g. an API its gate leaves unserved)
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
                                    touch_all=lambda: self.scheduler.cache.touch_all(),
                                    device_taint_rules=self._gate("DRADeviceTaintRules"))
        self.gang: GangScheduling | None = None
        self.scheduler = Scheduler(self.store, self._default_profile_plugins(), seed=options.seed,
                                   event_interest=self._event_interest, metrics=self.metrics,
                                   filter_cache=options.filter_cache,
                                   lazy_in_flight_hints=options.lazy_in_flight_hints)
        self.scheduler.gang = self.gang
        self.scheduler.topology_placements = self._gate("TopologyAwareWorkloadScheduling")
        # PodGroup claims need the PodGroup API (GenericWorkload) as well as their own gate
        workload_claims = self._gate("DRAWorkloadResourceClaims") and self._gate("GenericWorkload")
        self.dra.workload_claims = workload_claims
        self._freed_by_pods = frozenset(p.name for p in self.scheduler.profile.plugins if p.name != DRA)
        self._aliases: dict[str, str | None] = {}
        self._class_aliases: dict[str | None, str | None] = {}
        self._alias_epoch = -1
        if options.resource_aliases:
            self.scheduler.resource_alias = self.resource_alias
            self.dra.resource_alias = self.resource_alias
        self.dra.quick_fit = options.quick_fit
        self.dra.class_alias = self.class_alias
        # The plugin builds each claim afresh (extendedresources.new_extended_resource_claim copies
        # its requests): admission may default it in place instead of copying it first.
        self.dra.create_claim = lambda claim: self.client_create(claim, owned=True)
        self.claim_controller = ResourceClaimController(self.store, self.metrics, create=self.client_create)
        self.claim_controller.workload_claims = workload_claims
        # k8s: kube-controller-manager starts the device-taint-eviction controller only with DRADeviceTaints on
        self.eviction_controller = (DeviceTaintEvictionController(self.store, self.clock,
                                                                  rules=self._gate("DRADeviceTaintRules"))
                                    if self._gate("DRADeviceTaints") else None)
        self.quota_controller = QuotaController(self.store, self.er_cache)
        self.disruption_controller = DisruptionController(self.store, self.clock)
        self.kubelets = Kubelets(self.store, watch=options.kubelets)
        self.kubelets.workload_claims = workload_claims
        self._create_system_namespaces()
        self.workload_controllers = workloads.build(workloads.ControllerContext(
            self.store, self.clock, create=self.client_create, delete=self.delete))
        self.namespace_controller = NamespaceController(self.store, delete=self.delete)
        # Controllers before the scheduler: a cluster event is acted on (claims created,
        # deallocated) before the next pod is tried, as informers would let them.
        # The workload controllers come last: a sync reads all of a workload's pods, so it runs
        # once the pods it made have been scheduled and started (one sync for many pod updates,
        # as kube-controller-manager's work queue coalesces a key's events), not once per event.
        # What they decide is the same: each pod they create still reaches the claim controller
        # and the scheduler before their next sync.
        self.components = [c for c in (self.claim_controller, self.eviction_controller, self.quota_controller,
                                       self.disruption_controller,
                                       *([self.kubelets] if options.kubelets else []), self.scheduler,
                                       *self.workload_controllers, self.namespace_controller) if c is not None]

    def _gate(self, name: str) -> bool:
        return bool(self.options.gates.get(name, featuregates.DEFAULTS[name]))

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
                    nominate=lambda pod, node: self.scheduler.nominate(pod, node),
                    now=lambda: self.clock.now,
                    budgets=lambda: self.store.list("PodDisruptionBudget")))
            elif entry.simulated and entry.name in REGISTRY:   # the rest: a test checks nothing simulated is left out
                plugins.append(REGISTRY[entry.name](self, None))
        if self._gate("GenericWorkload"):   # k8s: applyFeatureGates adds GangScheduling
            self.gang = GangScheduling(self.store)
            plugins.append(self.gang)
        return plugins

    def class_alias(self, class_name: str | None) -> str | None:
        """What of a DeviceClass allocation depends on: its selectors and config. Cached per
        epoch, as resource_alias: a class event starts a new one (DynamicResources touch_all)."""
        self._alias_cache_epoch()
        if class_name in self._class_aliases:
            return self._class_aliases[class_name]
        dc = self.store.get("DeviceClass", None, class_name) if class_name else None
        token = None
        if dc is not None:
            spec = dc.get("spec") or {}
            token = "class:" + repr((spec.get("selectors"), spec.get("config")))
        self._class_aliases[class_name] = token
        return token

    def _alias_cache_epoch(self) -> None:
        epoch = self.scheduler.cache.epoch
        if epoch != self._alias_epoch:
            self._aliases.clear()
            self._class_aliases.clear()
            self._alias_epoch = epoch

    def resource_alias(self, name: str) -> str | None:
        """A token for a DRA-extended resource name that every plugin treats like any other
        name with the same token, or None.

        That holds when no node advertises the name (NodeResourcesFit delegates it to DRA
        everywhere) and it maps to a class: DynamicResources then allocates it through that
        class, and only the class's selectors and config matter. Pods asking for different
        such names share Filter verdicts (scheduler/filtercache.py). Cached per epoch: class
        and node changes that could alter the answer start a new one.
        """
        self._alias_cache_epoch()
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
        base = self._base_interest(ev, queue)
        gang = self._gang_interest(ev) if self.gang is not None else None
        if gang is None or base is None:
            return base or gang
        return Hint(pods=base.pods | gang.pods, plugins=base.plugins, gated=base.gated, everything=base.everything)

    def _base_interest(self, ev: WatchEvent, queue: SchedulingQueue) -> Hint | None:
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
            if ev.old is not None and gate_names(ev.old) and gate_names(ev.old) != gate_names(pod):
                # k8s: UpdatePodSchedulingGatesEliminated (SchedulingGates EventsToRegister). drasim
                # also re-runs PreEnqueue when only some gates go, so its explanation names the
                # gates left; the pod stays held either way.
                return Hint(pods=frozenset((pod["metadata"]["uid"],)))
            return None
        if kind == "ResourceClaim":
            md = ev.obj["metadata"]
            deallocated = ev.old is not None and (ev.old.get("status") or {}).get("allocation") and not (
                ev.obj.get("status") or {}).get("allocation")
            if ev.type == DELETED or deallocated:
                return Hint(plugins=frozenset((DRA, FIT)))   # devices were freed
            naming = queue.pods_naming_claim if self.options.indexed_claim_hints else queue.pods_naming_claim_unindexed
            return Hint(pods=naming(md.get("namespace") or "", md["name"]))
        if kind in ("ResourceSlice", "DeviceClass", "DeviceTaintRule"):
            if ev.type == DELETED and kind != "DeviceTaintRule":
                return None
            return Hint(plugins=frozenset((DRA, FIT)), gated=True)
        return None

    def _gang_interest(self, ev: WatchEvent) -> Hint | None:
        """k8s: GangScheduling EventsToRegister — a pod of the group added, the PodGroup added or
        changed: its members held at PreEnqueue may now pass."""
        if ev.kind == "PodGroup" and ev.type != DELETED:
            md = ev.obj["metadata"]
            return Hint(pods=self.gang.member_uids((md.get("namespace") or "", md["name"])))
        if ev.kind == "Pod" and ev.type == ADDED:
            key = group_key(ev.obj)
            if key is not None:
                return Hint(pods=self.gang.member_uids(key))
        return None

    # -- phases -------------------------------------------------------------------
    def apply(self, documents: Iterable[Document], owned: bool = False) -> list[dict]:
        """Admit one phase: every object is checked first; then each is created or updated.
        `owned`: the caller hands the documents' objects over (the loader built them and nothing
        reads them again): admission defaults and stores them without its defensive copy."""
        # A snapshot's objects live on: collector passes over them are waste; documents handed
        # over come from a one-shot run (the CLI), whose objects may be frozen out of its sight.
        with gc_paused(freeze=owned):
            return self._apply(documents, owned)

    def _apply(self, documents: Iterable[Document], owned: bool = False) -> list[dict]:
        prepared: list[tuple[Document, dict, dict | None]] = []
        creates: list[dict] = []
        quota_batch = admission.QuotaBatch(self.store)   # the phase's quota charges, written once admitted
        operations: list[phaseops.Target] = []
        documents = list(documents)
        for doc in documents:
            if doc.kind is kinds.PHASE_OPERATIONS:
                operations.extend(phaseops.parse(doc.obj, doc.source))
        pending_namespaces = namespacelifecycle.PendingNamespaces(d.obj for d in documents if d.kind is kinds.NAMESPACE)
        phase_classes = [d.obj for d in documents if d.kind is kinds.PRIORITY_CLASS and isinstance(d.obj, dict)]
        quota_created = False
        for doc in documents:
            if doc.kind is kinds.PHASE_OPERATIONS:
                continue
            unserved = self.unserved(doc.kind)
            if unserved:   # a manifest for a gated-off API: skipped, as the loader skips unsimulated kinds
                name = (doc.obj.get("metadata") or {}).get("name") if isinstance(doc.obj.get("metadata"), dict) else ""
                self.warnings.append(f"{doc.source}: skipped {doc.kind.kind} {name!s}: {unserved}")
                continue
            # The body is decoded before anything reads it (a namespace of 0 is a type error).
            body = admission.decode_body(doc.kind, doc.obj, doc.source)
            md = body.get("metadata") or {}
            ns = (md.get("namespace") or "default") if doc.kind.namespaced else None
            name = md.get("name")
            # A name or namespace of the wrong type is validation's to report, not a lookup key.
            lookup = isinstance(name, str) and name and (ns is None or isinstance(ns, str))
            old = self.store.get(doc.kind.kind, ns, name) if lookup else None
            obj = body if old is None else _merge_for_apply(old, body, doc.kind)
            # The merge built a tree of its own: no second copy of it either.
            obj = self._prepare(doc.kind, obj, old, doc.source, creates, decoded=True, owned=owned or old is not None,
                                phase_classes=phase_classes)
            if old is None:
                problem = namespacelifecycle.admission_error(self.store, doc.kind, obj, pending_namespaces, doc.source,
                                                             name=md.get("name") or md.get("generateName"))
                if problem is not None:
                    raise problem
                admission.admit(self.store, self.er_cache, doc.kind, obj, doc.source, creates, quota_batch)
                creates.append(obj)
                quota_created = quota_created or doc.kind.kind == "ResourceQuota"
            prepared.append((doc, obj, old))
        scales = self._check_operations(operations, creates)
        quota_batch.commit()
        if quota_created:
            self.warnings += unsynced_quota_warnings(
                [(doc.kind.kind, obj, doc.source) for doc, obj, old in prepared if old is None])
        stored: list[dict] = []
        for doc, obj, old in prepared:
            if old is not None:
                # k8s: an apply that changes nothing writes nothing ("pod/x unchanged")
                unchanged = _same_but_version(obj, old, False, doc.kind.has_status and doc.kind.kind != "Node")
                stored.append(old if unchanged else self._update(doc.kind, obj))
                continue
            self.clock.advance(1)   # a later document gets a later creationTimestamp
            if "creationTimestamp" not in obj["metadata"]:   # a snapshot's objects have theirs: none formatted
                obj["metadata"]["creationTimestamp"] = self.clock.timestamp()
            try:
                stored.append(self.store.create(obj, copy=False))
            except StoreError as e:
                raise InputError(f"{doc.source}: {e}") from None
        for op in operations:
            if isinstance(op, phaseops.Delete):
                try:
                    self.delete(op.kind.kind, op.namespace, op.name, propagation=op.propagation)
                except StoreError:
                    pass   # removed meanwhile (an owner's cascade); kubectl would say NotFound
        for op in scales:   # on the object as this phase left it (kubectl scale after apply)
            current = self.store.get(op.kind.kind, op.namespace, op.name)
            obj = clone(current)
            obj["spec"]["replicas"] = op.replicas
            obj = admission.prepare(self.store, op.kind, obj, current, op.source, gates=self.options.gates)
            stored.append(self._update(op.kind, obj))
        return stored

    def _check_operations(self, operations: list, creates: list[dict]) -> list:
        """Every delete and scale target exists (or is created in this phase); scales validate.
        Returns the scale operations, checked."""
        scales = []
        for op in operations:
            current = self.store.get(op.kind.kind, op.namespace, op.name)
            if current is None and not any(o["kind"] == op.kind.kind and o["metadata"]["name"] == op.name and
                                           (o["metadata"].get("namespace") if op.kind.namespaced else None) == op.namespace
                                           for o in creates):
                raise InputError(f'{op.source}: {op.kind.resource} "{op.name}" not found')
            if isinstance(op, phaseops.Delete):
                if op.kind.kind == "Namespace" and op.name in deletion.IMMORTAL_NAMESPACES:
                    raise InputError(f'{op.source}: namespaces "{op.name}" is forbidden: this namespace may not be deleted')
                continue
            if current is None:
                raise InputError(f'{op.source}: {op.kind.resource} "{op.name}" not found (create it in an earlier phase)')
            if op.replicas < 0:
                raise InputError(f'{op.source}: Scale.autoscaling "{op.name}" is invalid: spec.replicas: '
                                 f"Invalid value: {op.replicas}: must be greater than or equal to 0")
            obj = clone(current)
            obj["spec"]["replicas"] = op.replicas
            admission.prepare(self.store, op.kind, obj, current, op.source, gates=self.options.gates)
            scales.append(op)
        return scales

    def delete(self, kind: str, namespace: str | None, name: str, propagation: str | None = None) -> dict | None:
        """Delete as a client would (kubectl delete): finalizers, propagation policy; raises StoreError."""
        return deletion.delete(self.store, kind, namespace, name, propagation)

    def ensure_namespace(self, name: str) -> None:
        """Create the namespace unless it exists, as scheduler_perf's harness does for its
        workloads (createNamespaceIfNotPresent); manifests must create theirs."""
        if self.store.get("Namespace", None, name) is None:
            ns = apply_defaults({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                                self.clock.timestamp())
            self.store.create(ns)

    def _create_system_namespaces(self) -> None:
        """k8s: the system namespaces controller of kube-apiserver creates these at start."""
        for name in namespacelifecycle.SYSTEM_NAMESPACES:
            ns = apply_defaults({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                                self.clock.timestamp())
            self.store.create(ns, copy=False)

    def _update(self, kind: kinds.Kind, obj: dict) -> dict:
        status = obj.get("status")
        obj["metadata"].pop("resourceVersion", None)
        stored = self.store.update(obj)
        if kind.has_status and status is not None and kind.kind in ("Node",):
            stored = self.store.update_status(dict(stored, status=status))
        return stored

    def create(self, obj: dict, *, source: str = "") -> dict:
        """Create one object as a client would (decoded, defaulted, validated, admitted), outside a
        phase: drivers such as the benchmark runner use it. The clock does not move."""
        kind = kinds.lookup(obj.get("apiVersion", ""), obj.get("kind", ""))
        if kind is None:
            raise ManifestError(f'{source}: no matches for kind "{obj.get("kind")}" in version "{obj.get("apiVersion")}"')
        obj = self._prepare(kind, obj, None, source)
        problem = namespacelifecycle.admission_error(self.store, kind, obj, source=source)
        if problem is not None:
            raise problem
        admission.admit(self.store, self.er_cache, kind, obj, source)
        return self.store.create(obj, copy=False)

    def update(self, obj: dict, old: dict, *, status_only: bool = False, source: str = "") -> dict:
        """Update one object as a client would (PUT or PATCH through the API server): decoded,
        defaulted and validated against the stored object, then stored (spec and metadata, or only
        status for the /status subresource). Raises InputError; a stale resourceVersion is a Conflict."""
        kind = kinds.BY_KIND[old["kind"]]
        if status_only and kind.kind == "Pod" and isinstance(obj, dict) and "spec" in old:
            # k8s: podStatusStrategy.PrepareForUpdate — pods/status keeps the stored spec (and
            # ownerReferences): a status writer's stale spec is no pod update to refuse
            obj = dict(obj, spec=old["spec"])
            if isinstance(obj.get("metadata"), dict):
                md = {k: v for k, v in obj["metadata"].items() if k != "ownerReferences"}
                if "ownerReferences" in old["metadata"]:
                    md["ownerReferences"] = old["metadata"]["ownerReferences"]
                obj["metadata"] = md
        obj = self._prepare(kind, obj, old, source)
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            # k8s: registry.Store.Update checks the precondition before storage's no-op shortcut,
            # so a stale resourceVersion is a Conflict even when nothing would change.
            raise conflict(kind, old["metadata"]["name"])
        if _same_but_version(obj, old, status_only, kind.has_status):
            return old   # k8s: storage GuaranteedUpdate writes nothing when the bytes are unchanged
        if status_only:
            return self.store.update_status(obj, copy=False)
        return self.store.update(obj, copy=False)

    def client_create(self, obj: dict, owned: bool = False) -> dict:
        """A create by a component (controller, scheduler) through the API server: decoded,
        defaulted, named, validated and quota-admitted like any client's
        (extended-resources.md §11.7). Raises InputError when the API server would refuse it."""
        kind = kinds.BY_KIND[obj["kind"]]
        md = obj["metadata"]
        # NamespaceLifecycle runs before the server names the object (k8s: mutating admission).
        problem = namespacelifecycle.admission_error(self.store, kind, obj,
                                                     name=md.get("name") or md.get("generateName"))
        if problem is not None:
            raise problem
        obj = self._prepare(kind, obj, None, "", owned=owned)
        admission.admit(self.store, self.er_cache, kind, obj, "")
        return self.store.create(obj, copy=False)

    def unserved(self, kind: kinds.Kind) -> str | None:
        """Why the API server would not serve this kind with the run's gates (None: it is served)."""
        gate = kinds.GATED_KINDS.get(kind.kind)
        if gate is None or self._gate(gate):
            return None
        return f"{kind.api_version} {kind.plural} is served only with the {gate} feature gate on"

    def _prepare(self, kind: kinds.Kind, obj: dict, old: dict | None, source: str, pending: list[dict] = (),
                 decoded: bool = False, owned: bool = False, phase_classes: list[dict] = ()) -> dict:
        """admission.prepare, counted per kind (`admitted`: what went through the whole write path)."""
        unserved = self.unserved(kind)
        if unserved:
            raise ManifestError(f"{source}: the server could not find the requested resource ({unserved})")
        prepared = admission.prepare(self.store, kind, obj, old, source, pending, self.options.gates,
                                     decoded=decoded, owned=owned, phase_classes=phase_classes)
        self.admitted[kind.kind] += 1
        return prepared

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

    def fork(self) -> "ControlPlane":
        """A cheap copy of this settled plane for what-ifs (drasim/forking.py): it shares the
        stored objects, and writes to either leave the other as it was."""
        from drasim.forking import fork
        return fork(self)

    def run_phase(self, documents: Iterable[Document], owned: bool = False) -> None:
        self.apply(documents, owned)
        self.settle()

    # -- views ----------------------------------------------------------------------
    def objects(self, include_events: bool = False) -> list[dict]:
        order = list(kinds.OUTPUT_ORDER) + ([kinds.EVENT] if include_events else [])
        return self.store.all_objects(order)


def _same_but_version(new: dict, old: dict, status_only: bool, has_status: bool) -> bool:
    if status_only:
        return new.get("status") == old.get("status")
    md = {k: v for k, v in new["metadata"].items() if k != "resourceVersion"}
    old_md = {k: v for k, v in old["metadata"].items() if k != "resourceVersion"}
    skip = ("metadata", "status") if has_status else ("metadata",)
    return md == old_md and {k: v for k, v in new.items() if k not in skip} == {
        k: v for k, v in old.items() if k not in skip}


def _merge_for_apply(old: dict, new: dict, kind: kinds.Kind) -> dict:
    """kubectl apply onto an existing object: fields the manifest gives replace the stored ones.

    metadata keeps what the server owns (uid, creationTimestamp, finalizers unless given).
    A Pod's spec is merged into the stored one instead (strategic merge, containers by name):
    what the server wrote there (spec.nodeName by the binding, admission's fields) stays, as
    kubectl apply's patch leaves it, and ValidatePodUpdate judges what the manifest changed.
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
        elif key == "spec" and kind.kind == "Pod" and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = strategic_merge({key: merged[key]}, {key: value})[key]   # rooted: its merge keys are the spec's
        else:
            merged[key] = clone(value)
    return merged
