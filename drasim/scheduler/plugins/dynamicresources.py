"""The DynamicResources plugin: allocates a pod's ResourceClaims during scheduling.

k8s: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go,
     .../extendeddynamicresources.go (KEP-5004), .../dra_manager.go.
Spec: ../shared/spec/allocator.md §19, extended-resources.md §3, §5-§7.

The plugin keeps long-lived state that kube-scheduler's DRA manager keeps in
informers and the assume cache: the allocator's slice index (with
DeviceTaintRule taints merged in, as the ResourceSlice tracker does), the
allocated devices of every claim, and the claims in flight between Reserve
and PreBind.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from drasim.allocator import AllocatedState, Allocator, NodeAllocationFailure
from drasim.api.decodedjson import json_key
from drasim.api.devicetaints import rule_taints_device
from drasim.api.podresources import resource_list
from drasim.api.nodeselector import node_selector_matches
from drasim.api.podclaims import (RESERVED_FOR_MAX_SIZE, bound_to_group, claim_name, group_consumer, is_group_consumer,
                                  is_owned_by, is_owned_by_group, is_reserved_for, is_reserved_for_group,
                                  pod_group_name)
from drasim.metrics import Metrics
from drasim.errors import AllocationError, InputError
from drasim.scheduler.framework import (SKIP, CycleState, NodeInfo, Status, error_status,
                                        get_state, unresolvable, unschedulable, verdict_extra)
from drasim.scheduler.plugins import extendedresources as ext
from drasim.scheduler.plugins.tainttoleration import default_normalize_score
from drasim.store import DELETED, MemoryStore, WatchEvent, clone

NAME = "DynamicResources"
_STATE_KEY = "PreFilter" + NAME
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"

# Reasons, verbatim from kube-scheduler (users search for them).
REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"


def _spec_key(value) -> bytes | str:
    return json_key(value)   # equal specs written alike give equal text (drasim/api/decodedjson.py: claims come decoded)


def _in_memory_claim(pod: dict, requests: list[dict]) -> dict:
    """The special claim as PreFilter keeps it in memory: an invalid name on purpose (spec §7.1)."""
    claim = ext.new_extended_resource_claim(pod, requests)
    claim["metadata"]["name"] = ext.SPECIAL_CLAIM_IN_MEMORY_NAME
    claim["metadata"]["uid"] = "extended-resources-" + pod["metadata"]["uid"]
    return claim


@dataclass(slots=True)
class _PodClaims:
    """What PreFilter learned about the pod's claims (k8s: stateData)."""

    claims: list[dict]                         # every claim of the pod, in spec order
    to_allocate: list[dict]                    # claims without allocation, in spec order
    allocated: list[dict]                      # claims with allocation (their nodeSelector filters)
    extended: dict[str, int] = field(default_factory=dict)  # DRA-extended requests, when one maps to a class
    node_results: dict[str, list[dict]] = field(default_factory=dict)   # node -> allocations (to_allocate order [+ ext])
    node_extended: dict[str, tuple[list[dict], list[dict]]] = field(default_factory=dict)  # node -> (requests, mappings)
    unavailable: set[str] = field(default_factory=set)  # allocated claims that fit no node
    extended_claims: dict[tuple, list] = field(default_factory=dict)   # routed names -> [requests, mappings, claim]
    routings: dict[tuple, object] = field(default_factory=dict)        # node allocatable of the names -> Routing
    plans: dict[tuple, object] = field(default_factory=dict)           # routed names -> Allocator.plan


class DynamicResources:
    """PreEnqueue, PreFilter, Filter, PostFilter, Reserve, Unreserve, PreBind."""

    name = NAME
    weight = 1   # k8s: default profile weight of DynamicResources

    def __init__(self, store: MemoryStore, allocator: Allocator, er_cache, metrics: Metrics | None = None,
                 node_info=None, touch_node=None, touch_all=None, device_taint_rules: bool = True) -> None:
        """`device_taint_rules`: the DRADeviceTaintRules gate (k8s: resourceslicetracker.Options
        EnableDeviceTaintRules; off, the tracker is a plain slice informer and rules are not merged)."""
        self.store = store
        self.workload_claims = False   # DRAWorkloadResourceClaims: PodGroup claims and reservations
        self._node_info = node_info or (lambda name: None)
        self._touch_node = touch_node or (lambda name: None)
        self._touch_all = touch_all or (lambda: None)
        self.resource_alias = None                 # see ControlPlane.resource_alias
        self.quick_fit = True                      # allocator.fits_plan before a full search
        # How the scheduler's client creates objects (quota admission applies); see ControlPlane.
        self.create_claim = lambda claim: store.create(claim, copy=False)
        self.class_alias = lambda name: None
        self.allocator = allocator
        self.er_cache = er_cache
        self.metrics = metrics
        self.allocated = AllocatedState()
        self._claim_allocs: dict[str, dict] = {}      # claim uid -> allocation counted in self.allocated
        self._in_flight: dict[str, dict] = {}         # claim uid -> allocation reserved, not yet written
        self._slices: dict[str, dict] = {}            # name -> slice as stored
        self._rules: dict[str, dict] = {}             # name -> DeviceTaintRule
        self._alloc_cache: dict[str, tuple[dict, dict[str, int]]] = {}
        # Change tracking for the scheduler's filter cache (see scheduler.FilterCache): pool
        # name -> nodes with slices in it; pools with node-selector/allNodes slices touch all.
        self._pool_nodes: dict[str, set[str]] = {}
        self._shared_pools: set[str] = set()
        store.subscribe(self._on_event, kinds=("ResourceClaim", "ResourceSlice", "DeviceClass")
                        + (("DeviceTaintRule",) if device_taint_rules else ()))

    # -- allocated-state bookkeeping ---------------------------------------------------
    def _add_alloc(self, allocation: dict) -> None:
        self.allocated.add(allocation)
        self._touch(allocation)

    def _remove_alloc(self, allocation: dict) -> None:
        self.allocated.remove(allocation)
        self._touch(allocation)

    def _touch(self, allocation: dict) -> None:
        """Tell the scheduler which nodes' verdicts an allocation change may affect."""
        shared, pool_nodes, touch_node = self._shared_pools, self._pool_nodes, self._touch_node
        for r in ((allocation.get("devices") or {}).get("results") or ()):
            pool = r.get("pool")
            if pool in shared:   # _touch_pool, inlined: a load calls this once per claim
                self._touch_all()
                continue
            for node_name in pool_nodes.get(pool, ()):
                touch_node(node_name)

    def _touch_pool(self, pool: str | None) -> None:
        # Counter bookkeeping is keyed by pool name alone (allocator.md §11.2): so is this.
        if pool in self._shared_pools:
            self._touch_all()
            return
        for node_name in self._pool_nodes.get(pool, ()):
            self._touch_node(node_name)

    def _track_slice(self, slice_: dict) -> None:
        spec = slice_.get("spec") or {}
        pool = (spec.get("pool") or {}).get("name")
        node_name = spec.get("nodeName")
        self._touch_pool(pool)
        if node_name:
            self._pool_nodes.setdefault(pool, set()).add(node_name)
            self._touch_node(node_name)
        else:
            self._shared_pools.add(pool)
            self._touch_all()

    def signature(self, state: CycleState, pod: dict):
        """The pod as this plugin's Filter sees it: claim specs to allocate, allocated claims'
        node selectors, DRA-extended requests. None means the plugin skips the pod."""
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None:
            return None
        return (tuple(_spec_key(c.get("spec")) for c in s.to_allocate),
                tuple(_spec_key(c["status"]["allocation"].get("nodeSelector")) for c in s.allocated),
                self._extended_signature(pod, s))

    def _extended_requests(self, s: _PodClaims, pod: dict, routed: dict[str, int]) -> list:
        """[requests, mappings, in-memory claim or None] for the routed names, once per cycle."""
        key = tuple(routed.items())
        built = s.extended_claims.get(key)
        if built is None:
            requests, mappings = ext.build_requests_and_mappings(pod, routed, self.er_cache)
            built = s.extended_claims[key] = [requests, mappings, None]
        return built

    def _extended_signature(self, pod: dict, s: _PodClaims) -> tuple:
        """The extended-resource part: names (or their aliases) with amounts, and the layout of
        the claim they would make (request names, counts, classes or class aliases)."""
        extended = s.extended
        if not extended:
            return ()
        alias = self.resource_alias
        names = tuple(sorted(((alias(n) if alias else None) or n, q) for n, q in extended.items()))
        requests = self._extended_requests(s, pod, extended)[0]
        layout = []
        for r in requests:
            exactly = r.get("exactly") or {}
            cls = exactly.get("deviceClassName")
            layout.append((r.get("name"), exactly.get("count"), (self.class_alias(cls) if alias else None) or cls))
        return names, tuple(layout)

    # -- informers ------------------------------------------------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        kind = ev.kind
        if kind == "ResourceClaim":
            self._on_claim(ev)
        elif kind == "ResourceSlice":
            name = ev.obj["metadata"]["name"]
            if ev.old is not None:
                self._track_slice(ev.old)
            self._track_slice(ev.obj)
            if ev.type == DELETED:
                self._slices.pop(name, None)
                self.allocator.remove_slice(name)
            else:
                self._slices[name] = ev.obj
                self.allocator.set_slice(self._with_rule_taints(ev.obj), admitted=True)   # stored: validated
        elif kind == "DeviceClass":
            self._touch_all()
            if ev.type == DELETED:
                self.allocator.remove_class(ev.obj["metadata"]["name"])
            else:
                self.allocator.set_class(ev.obj)
        elif kind == "DeviceTaintRule":
            self._touch_all()
            name = ev.obj["metadata"]["name"]
            if ev.type == DELETED:
                self._rules.pop(name, None)
            else:
                if ev.old is not None and ev.old.get("spec") == ev.obj.get("spec") and name in self._rules:
                    self._rules[name] = ev.obj
                    return   # status-only change
                self._rules[name] = ev.obj
            for s in self._slices.values():
                self.allocator.set_slice(self._with_rule_taints(s), admitted=True)

    def _with_rule_taints(self, slice_: dict) -> dict:
        """Merge DeviceTaintRule taints into the slice's devices (k8s: resourceslice/tracker applyPatches;
        a rule without deviceSelector taints every device here, unlike in the eviction controller)."""
        if not self._rules:
            return slice_
        spec = slice_["spec"]
        driver, pool = spec.get("driver"), (spec.get("pool") or {}).get("name")
        devices = spec.get("devices") or []
        patched = None
        for i, device in enumerate(devices):
            extra = [r["spec"]["taint"] for r in self._rules.values()
                     if rule_taints_device(r, driver, pool, device.get("name"))]
            if extra:
                if patched is None:
                    patched = [dict(d) for d in devices]
                patched[i]["taints"] = list(device.get("taints") or []) + extra
        if patched is None:
            return slice_
        return dict(slice_, spec=dict(spec, devices=patched))

    def _on_claim(self, ev: WatchEvent) -> None:
        claim = ev.obj
        uid = claim["metadata"]["uid"]
        status = None if ev.type == DELETED else claim.get("status")
        allocation = status.get("allocation") if status else None
        current = self._claim_allocs.get(uid)
        if allocation == current:
            return
        if current is not None:
            self._remove_alloc(current)
            del self._claim_allocs[uid]
        if allocation is not None:
            counted = self._in_flight.pop(uid, None) if self._in_flight else None
            if counted is not None:   # our own PreBind write: counted at Reserve
                if counted.get("devices") is allocation.get("devices"):
                    # The written copy differs only in its timestamp, which nothing counted
                    # depends on (AllocatedState counts the results): nothing to redo.
                    self._claim_allocs[uid] = allocation
                    return
                self._remove_alloc(counted)
            self._add_alloc(allocation)
            self._claim_allocs[uid] = allocation

    # -- PreEnqueue -------------------------------------------------------------------
    def pre_enqueue(self, pod: dict) -> Status | None:
        """All claims must exist before the pod is tried (k8s: PreEnqueue)."""
        ns = pod["metadata"].get("namespace")
        for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
            name, _, err = claim_name(pod, entry)
            if err:
                return unresolvable(err)
            if name is not None and self.store.get("ResourceClaim", ns, name) is None:
                return unresolvable(f'resourceclaim.resource.k8s.io "{name}" not found')
        return None

    # -- PreFilter ---------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]):
        ns = pod["metadata"].get("namespace")
        claims: list[dict] = []
        for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
            name, check_owner, err = claim_name(pod, entry)
            if err:
                return None, unresolvable(err)
            if name is None:
                continue
            claim = self.store.get("ResourceClaim", ns, name)
            if claim is None:
                return None, unresolvable(f'resourceclaim.resource.k8s.io "{name}" not found')
            if claim["metadata"].get("deletionTimestamp"):
                return None, unresolvable(f'resourceclaim "{name}" is being deleted')
            if check_owner and not (is_owned_by(claim, pod) or (self.workload_claims and is_owned_by_group(claim, pod))):
                return None, unresolvable(f"ResourceClaim {ns}/{name} was not created for Pod "
                                          f"{ns}/{pod['metadata']['name']} (Pod is not owner)")
            claims.append(claim)
        ext_reqs = ext.pod_extended_requests(pod)
        extended = ext_reqs if ext.has_mapped_extended_resource(ext_reqs, self.er_cache) else {}
        if not claims and not extended:
            return None, SKIP
        to_allocate = [c for c in claims if not (c.get("status") or {}).get("allocation")]
        allocated = [c for c in claims if (c.get("status") or {}).get("allocation")]
        missing = self.allocator.missing_classes(to_allocate)
        if missing:   # allocator.md §14.3
            request, class_name = missing[0]
            return None, unresolvable(f"request {request}: device class {class_name} does not exist")
        for claim in to_allocate:
            if claim["metadata"]["uid"] in self._in_flight:
                return None, unschedulable(f"resource claim {ns}/{claim['metadata']['name']} "
                                           "is in the process of being allocated")
        for claim in allocated:
            if len((claim.get("status") or {}).get("reservedFor") or ()) >= RESERVED_FOR_MAX_SIZE \
                    and not is_reserved_for(claim, pod) \
                    and not (self.workload_claims and is_reserved_for_group(claim, pod)):
                return None, unresolvable(f"resourceclaim {ns}/{claim['metadata']['name']} "
                                          "has reached its maximum number of consumers (256)")
        state[_STATE_KEY] = _PodClaims(claims, to_allocate, allocated, extended)
        return None, None

    # -- Filter ---------------------------------------------------------------------
    def filter(self, state: CycleState, pod: dict, node: NodeInfo, need_results: bool = False) -> Status | None:
        s: _PodClaims = get_state(state, _STATE_KEY)
        labels_node = node.node
        for claim in s.allocated:
            selector = claim["status"]["allocation"].get("nodeSelector")
            if selector is not None and not node_selector_matches(selector, labels_node):
                return unresolvable(REASON_NOT_AVAILABLE)
        claims = s.to_allocate
        plan_key: tuple = ()
        if s.extended:
            # Nodes with the same allocatable for the pod's names route them alike: once per cycle.
            allocatable = self._allocatable(node)
            alloc_key = tuple([allocatable.get(name, 0) for name in s.extended])
            routing = s.routings.get(alloc_key)
            if routing is None:
                routing = s.routings[alloc_key] = ext.route_extended_resources(s.extended, allocatable,
                                                                                self.er_cache)
            if routing.unresolved:
                return unresolvable(ext.REASON_CANNOT_FIT_RESOURCE)
            if routing.dra:
                plan_key = tuple(routing.dra.items())
                built = self._extended_requests(s, pod, routing.dra)
                if built[2] is None:
                    built[2] = _in_memory_claim(pod, built[0])
                s.node_extended[node.name] = (built[0], built[1])
                claims = claims + [built[2]]
            else:
                s.node_extended.pop(node.name, None)
        if not claims:
            s.node_results[node.name] = []
            return None
        try:
            results = NotImplemented
            if self.quick_fit:
                if plan_key in s.plans:
                    plan = s.plans[plan_key]
                else:
                    plan = s.plans[plan_key] = self.allocator.plan(claims)
                if not need_results:
                    # Most pods only need to know whether they fit; the devices are picked in
                    # Reserve for the one node chosen (same answer as the search).
                    fits = self.allocator.fits_plan(labels_node, plan, self.allocated)
                    if fits is not None:
                        return None if fits else unresolvable(REASON_CANNOT_ALLOCATE)
                else:   # the devices the search would pick, taken without it where the shape allows
                    results = self.allocator.allocate_plan(labels_node, claims, plan, self._effective_allocated())
            if results is NotImplemented:
                results = self.allocator.allocate(labels_node, claims, self._effective_allocated())
        except NodeAllocationFailure as e:
            return unresolvable(str(e))
        except AllocationError as e:
            return error_status(str(e))
        if results is None:
            return unresolvable(REASON_CANNOT_ALLOCATE)
        s.node_results[node.name] = results
        return None

    # -- Score (prioritized lists) ------------------------------------------------------
    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        """Only claims with firstAvailable requests are scored (allocator.md §14.4)."""
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None or not any(r.get("firstAvailable")
                                for c in s.to_allocate
                                for r in ((c.get("spec") or {}).get("devices") or {}).get("requests") or ()):
            return SKIP
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        """Each request satisfied by a subrequest adds 8 − its position in the list (first choice 8)."""
        s: _PodClaims = get_state(state, _STATE_KEY)
        results = s.node_results.get(node.name)
        if results is None:
            return 0
        total = 0
        for claim, allocation in zip(s.to_allocate, results):
            positions = {}
            for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
                for i, sub in enumerate(r.get("firstAvailable") or ()):
                    positions[f"{r.get('name')}/{sub.get('name')}"] = i
            chosen = {r["request"] for r in (allocation.get("devices") or {}).get("results") or ()
                      if r["request"] in positions}
            total += sum(8 - positions[name] for name in chosen)
        return total

    def normalize(self, state: CycleState, pod: dict, scores: list[int]) -> None:
        default_normalize_score(scores, reverse=False)

    def verdict_extra(self, state: CycleState, node: NodeInfo):
        """The allocation behind a positive verdict, kept with it by the scheduler's filter cache.

        Not kept when a result carries a shareID: those are fresh per allocation.
        """
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None:
            return None
        results = s.node_results.get(node.name)
        if results is None or any("shareID" in r for a in results
                                  for r in (a.get("devices") or {}).get("results") or ()):
            return None
        return results

    def _effective_allocated(self) -> AllocatedState:
        return self.allocated

    def _allocatable(self, node: NodeInfo) -> dict[str, int]:
        cached = self._alloc_cache.get(node.name)
        if cached is None or cached[0] is not node.node:
            status = node.node.get("status") or {}
            cached = (node.node, resource_list(status.get("allocatable") or status.get("capacity")))
            self._alloc_cache[node.name] = cached
        return cached[1]

    # -- PostFilter -----------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: dict, diagnosis) -> Status | None:
        """Deallocate an allocated claim that fits no node if nobody else uses it (allocator.md §19.5).

        k8s: dynamicresources.go PostFilter; its messages end up in the pod's condition.
        """
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None or (not s.claims and not s.extended):
            return unschedulable("no new claims to deallocate")
        unavailable = {n for n, st in diagnosis.node_to_status.items() if REASON_NOT_AVAILABLE in st.reasons}
        if unavailable:
            for claim in s.allocated:
                reserved = (claim.get("status") or {}).get("reservedFor") or []
                if len(reserved) == 0 or (len(reserved) == 1 and reserved[0].get("uid") == pod["metadata"]["uid"]):
                    current = self.store.get("ResourceClaim", claim["metadata"]["namespace"],
                                             claim["metadata"]["name"])
                    if current is None:
                        continue
                    status = dict(current.get("status") or {})
                    for key in ("allocation", "reservedFor", "devices"):
                        status.pop(key, None)
                    self.store.update_status(dict(current, status=status), copy=False)
                    return unschedulable("deallocation of ResourceClaim completed")
        return unschedulable("still not schedulable")

    # -- Reserve / Unreserve ----------------------------------------------------------
    def reserve(self, state: CycleState, pod: dict, node_name: str) -> Status | None:
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None:
            return None
        results = s.node_results.get(node_name)
        if results is None:
            # The scheduler's filter cache answered for this node: take the allocation kept
            # with that verdict, or allocate now. Nothing the result depends on changed since.
            node = self._node_info(node_name)
            stashed = verdict_extra(state, node, NAME) if node is not None else None
            if stashed is not None:
                # The stashed devices may come from another pod of the same signature: this
                # pod's own extended-resource requests are routed again (cheap, no search).
                self.filter(state, pod, node)
                s.node_results[node_name] = stashed
            status = None
            if node is not None and node_name not in s.node_results:
                status = self.filter(state, pod, node, need_results=True)
            results = s.node_results.get(node_name)
            if status is not None or results is None:
                return error_status(f"internal error: no allocation for node {node_name}: "
                                    f"{status.message() if status else 'node unknown'}")
        for claim, allocation in zip(s.to_allocate, results):
            self._in_flight[claim["metadata"]["uid"]] = allocation
            self._add_alloc(allocation)
        if len(results) > len(s.to_allocate):
            state[_STATE_KEY + "/extended"] = results[len(s.to_allocate)]
            self._add_alloc(results[len(s.to_allocate)])
        return None

    def unreserve(self, state: CycleState, pod: dict, node_name: str) -> None:
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None:
            return
        for claim in s.to_allocate:
            allocation = self._in_flight.pop(claim["metadata"]["uid"], None)
            if allocation is not None:
                self._remove_alloc(allocation)
        er_alloc = state.pop(_STATE_KEY + "/extended", None)
        if er_alloc is not None:
            self._remove_alloc(er_alloc)
            created = state.pop(_STATE_KEY + "/extended-claim", None)
            if created is not None:
                self._delete_extended_claim(created)

    # -- PreBind -----------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: dict, node_name: str) -> Status | None:
        """Write allocations and reservations (k8s: bindClaim), and the extended-resource claim."""
        s: _PodClaims | None = state.get(_STATE_KEY)
        if s is None:
            return None
        results = s.node_results.get(node_name) or []
        now = self.store.clock.timestamp()
        allocations = dict(zip((c["metadata"]["uid"] for c in s.to_allocate), results))
        group_claims = self._group_claims(pod)
        for claim in s.claims:
            self._bind_claim(claim, pod, allocations.get(claim["metadata"]["uid"]), now,
                             group_claims.get(claim["metadata"]["name"]))
        er_alloc = state.get(_STATE_KEY + "/extended")
        if er_alloc is not None:
            requests, mappings = s.node_extended[node_name]
            return self._bind_extended_claim(state, pod, requests, mappings, er_alloc, now)
        return None

    def _group_claims(self, pod: dict) -> dict[str, dict]:
        """claim name -> the PodGroup's reservedFor entry, for the pod's entries bound to its group
        (k8s: resourceclaim.BindTo; DRAWorkloadResourceClaims)."""
        name = pod_group_name(pod) if self.workload_claims else None
        group = self.store.get("PodGroup", pod["metadata"].get("namespace"), name) if name else None
        if group is None:
            return {}
        out = {}
        for entry in pod["spec"].get("resourceClaims") or ():
            if bound_to_group(pod, group, entry):
                claim, _, _ = claim_name(pod, entry)
                if claim is not None:
                    out[claim] = group_consumer(group)
        return out

    def _bind_claim(self, claim: dict, pod: dict, allocation: dict | None, now: str,
                    consumer: dict | None = None) -> dict:
        md = claim["metadata"]
        current = self.store.get("ResourceClaim", md["namespace"], md["name"])
        if allocation is not None and DELETE_PROTECTION_FINALIZER not in (current["metadata"].get("finalizers") or ()):
            md_new = dict(current["metadata"])
            md_new["finalizers"] = list(md_new.get("finalizers") or ()) + [DELETE_PROTECTION_FINALIZER]
            current = self.store.update(dict(current, metadata=md_new), copy=False)
        # Shallow copies: stored objects are never mutated, only replaced.
        status = dict(current.get("status") or {})
        if "reservedFor" in status:
            status["reservedFor"] = list(status["reservedFor"])
        if allocation is not None:   # counted at Reserve (_in_flight); the write adds its timestamp
            status["allocation"] = dict(allocation, allocationTimestamp=now)
        reserved = status.setdefault("reservedFor", [])
        if consumer is not None:   # one entry for the whole PodGroup; later members write nothing
            if not any(is_group_consumer(r) and r.get("name") == consumer["name"] for r in reserved):
                reserved.append(consumer)
            elif allocation is None:
                return current
        elif not any(r.get("uid") == pod["metadata"]["uid"] for r in reserved):
            reserved.append({"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]})
        return self.store.update_status(dict(current, status=status), copy=False)

    def _bind_extended_claim(self, state: CycleState, pod: dict, requests: list[dict], mappings: list[dict],
                             allocation: dict, now: str) -> Status | None:
        claim = ext.new_extended_resource_claim(pod, requests)
        claim["metadata"]["finalizers"] = [DELETE_PROTECTION_FINALIZER]
        # k8s: createExtendedResourceClaimInAPI names the claim by klog.KObj before the server
        # generated its name: "<namespace>/".
        key = f'{claim["metadata"].get("namespace", "")}/{claim["metadata"].get("name", "")}'
        try:
            created = self.create_claim(claim)
        except InputError as e:  # quota admission or a name clash: PreBind fails, the pod is retried
            if self.metrics:
                self.metrics.claim_create("failure", "false")
            return error_status(f"create claim for extended resources {key}: {e}")
        if self.metrics:
            self.metrics.claim_create("success", "false")
        state[_STATE_KEY + "/extended-claim"] = created
        stored_alloc = dict(allocation, allocationTimestamp=now)
        self._in_flight[created["metadata"]["uid"]] = allocation   # counted at Reserve
        status = {"allocation": stored_alloc,
                  "reservedFor": [{"resource": "pods", "name": pod["metadata"]["name"],
                                   "uid": pod["metadata"]["uid"]}]}
        self.store.update_status(dict(created, status=status), copy=False)
        current = self.store.get("Pod", pod["metadata"]["namespace"], pod["metadata"]["name"])
        pod_status = clone(current.get("status") or {})
        pod_status["extendedResourceClaimStatus"] = {"resourceClaimName": created["metadata"]["name"],
                                                     "requestMappings": mappings}
        self.store.update_status(dict(current, status=pod_status), copy=False)
        return None

    def _delete_extended_claim(self, claim: dict) -> None:
        """k8s: unreserveExtendedResourceClaim — drop the finalizer and delete (errors only logged)."""
        md = claim["metadata"]
        current = self.store.get("ResourceClaim", md["namespace"], md["name"])
        if current is None:
            return
        updated = clone(current)
        updated["metadata"]["finalizers"] = [f for f in current["metadata"].get("finalizers") or ()
                                             if f != DELETE_PROTECTION_FINALIZER]
        self.store.update(updated)
        if self.store.get("ResourceClaim", md["namespace"], md["name"]) is not None:
            self.store.delete("ResourceClaim", md["namespace"], md["name"])
