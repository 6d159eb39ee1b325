"""Claims and classes prepared once for the search: requests, subrequests, constraints (spec §7, §13, §14).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/allocator_incubating.go
(Allocate's per-claim loop and validateDeviceRequest). The node-independent part is cached per claim
object; `allocationMode: All` device sets depend on the node and are computed per call.
"""
from __future__ import annotations

from collections.abc import Mapping

from drasim.allocator.constraints import DistinctAttribute, MatchAttribute
from drasim.allocator.listconstraints import ListDistinctAttribute, ListMatchAttribute
from drasim.allocator.features import Features
from drasim.api.quantity import Quantity, parse_quantity
from drasim.errors import AllocationError

EXACT_COUNT = "ExactCount"
ALL = "All"


class ClassRec:
    """A DeviceClass with its selector expressions extracted."""

    __slots__ = ("name", "selectors", "config", "raw")

    def __init__(self, raw: dict) -> None:
        spec = raw.get("spec") or {}
        self.raw = raw
        self.name: str = (raw.get("metadata") or {}).get("name", "")
        # A class selector without `cel` cannot come from a v1 object; treat its expression as empty.
        self.selectors: tuple[str, ...] = tuple(((s.get("cel") or {}).get("expression", "")) for s in spec.get("selectors") or ())
        self.config: list[dict] = list(spec.get("config") or ())


class ReqData:
    """One request (exactly) or one subrequest (firstAvailable entry), ready for the search."""

    __slots__ = ("name", "parent", "result_name", "klass", "selectors", "sel_key", "admin", "tolerations",
                 "cap_requests", "all_mode", "num_devices", "all_devices", "sub_index")

    def __init__(self, name: str, parent: str | None, body: dict, klass: ClassRec, sub_index: int) -> None:
        self.name = name
        self.parent = parent
        self.result_name = f"{parent}/{name}" if parent is not None else name
        self.klass = klass
        self.sub_index = sub_index
        self.selectors: tuple[str, ...] = tuple(s["cel"].get("expression", "") for s in body.get("selectors") or ())
        # Memo key of "all class and request selectors are true" for a device; a str caches its hash.
        self.sel_key = "\x00" + "\x1f".join(klass.selectors) + "\x1e" + "\x1f".join(self.selectors)
        self.admin = parent is None and bool(body.get("adminAccess"))  # subrequests cannot ask for it
        self.tolerations: list[dict] | None = body.get("tolerations") or None
        requests = (body.get("capacity") or {}).get("requests")
        self.cap_requests: dict[str, Quantity] | None = (
            {k: parse_quantity(v) for k, v in requests.items()} if requests else None)
        self.all_mode = body.get("allocationMode", EXACT_COUNT) == ALL
        self.num_devices = 0 if self.all_mode else int(body.get("count") or 0)
        self.all_devices: list | None = None

    def with_devices(self, devices: list) -> ReqData:
        """A per-call copy of an `All` request with its device set fixed (§15.1)."""
        copy = object.__new__(ReqData)
        for slot in ReqData.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.all_devices = devices
        copy.num_devices = len(devices)
        return copy


class PreparedClaim:
    """The node-independent facts of a claim; *error* is raised when the search reaches *error_at*."""

    __slots__ = ("claim", "label", "requests", "constraints", "error", "error_at", "has_all", "spec_requests",
                 "min_devices")

    def __init__(self, claim: dict) -> None:
        meta = claim.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        self.claim = claim
        self.label = f"{ns}/{name}" if ns else name  # klog.KObj
        self.spec_requests: list[dict] = list(((claim.get("spec") or {}).get("devices") or {}).get("requests") or ())
        self.requests: list[list[ReqData]] = []
        self.constraints: list[tuple[type, frozenset[str], str]] = []
        self.error: AllocationError | None = None
        self.error_at: tuple[int, int] = (len(self.spec_requests), 0)
        self.has_all = False
        self.min_devices = 0

    def for_claim(self, claim: dict) -> PreparedClaim:
        """The same preparation for another claim with an identical spec (only the name differs).

        Errors name the claim, so a preparation that holds one is not shared (prepare anew).
        """
        meta = claim.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        other = object.__new__(PreparedClaim)
        for slot in PreparedClaim.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.claim = claim
        other.label = f"{ns}/{name}" if ns else name
        return other

    def new_constraints(self) -> list:
        return [kind(names, attr) for kind, names, attr in self.constraints]


def prepare_claim(claim: dict, classes: Mapping[str, ClassRec], features: Features) -> PreparedClaim:
    prepared = PreparedClaim(claim)
    try:
        _prepare_requests(prepared, classes, features)
        if prepared.error is None:
            _prepare_constraints(prepared, features.list_type_attributes)
    except AllocationError as exc:
        prepared.error = exc
    prepared.has_all = any(rd.all_mode for subs in prepared.requests for rd in subs)
    if prepared.error is None and not prepared.has_all:
        prepared.min_devices = sum(min(rd.num_devices for rd in subs) for subs in prepared.requests)
    return prepared


def _prepare_requests(prepared: PreparedClaim, classes: Mapping[str, ClassRec], features: Features) -> None:
    label = prepared.label
    for ri, request in enumerate(prepared.spec_requests):
        name = request.get("name", "")
        subs = request.get("firstAvailable") or ()
        prepared.error_at = (ri, 0)
        if not features.prioritized_list and subs:
            raise AllocationError(f"claim {label}, request {name}: has subrequests, but the DRAPrioritizedList feature is disabled")
        if not features.consumable_capacity:
            _check_no_capacity(label, request)
        entries: list[ReqData] = []
        prepared.requests.append(entries)
        if subs:
            for si, sub in enumerate(subs):
                prepared.error_at = (ri, si)
                entries.append(_request_data(label, sub.get("name", ""), name, sub, classes, features, si))
        else:
            entries.append(_request_data(label, name, None, request.get("exactly") or {}, classes, features, 0))
    prepared.error_at = (len(prepared.spec_requests), 0)


def _check_no_capacity(label: str, request: dict) -> None:
    exactly = request.get("exactly")
    if exactly is not None and exactly.get("capacity") is not None:
        raise AllocationError(f"claim {label}, request {request.get('name', '')}: has capacity requests, but the DRAConsumableCapacity feature is disabled")
    for sub in request.get("firstAvailable") or ():
        if sub.get("capacity") is not None:
            raise AllocationError(f"claim {label}, subrequest {sub.get('name', '')}: has capacity requests, but the DRAConsumableCapacity feature is disabled")


def _request_data(label: str, name: str, parent: str | None, body: dict, classes: Mapping[str, ClassRec],
                  features: Features, sub_index: int) -> ReqData:
    """validateDeviceRequest, minus the node-dependent `All` device set."""
    for i, selector in enumerate(body.get("selectors") or ()):
        if selector.get("cel") is None:
            raise AllocationError(f"claim {label}, request {name}, selector #{i}: CEL expression empty (unsupported selector type?)")
    if not features.admin_access and parent is None and body.get("adminAccess") is not None:
        raise AllocationError(f"claim {label}, request {name}: admin access is requested, but the feature is disabled")
    class_name = body.get("deviceClassName") or ""
    if not class_name:
        raise AllocationError(f"claim {label}, request {name}: missing device class name (unsupported request type?)")
    klass = classes.get(class_name)
    if klass is None:
        raise AllocationError(f"claim {label}, request {name}: could not retrieve device class {class_name}: "
                              f'deviceclass.resource.k8s.io "{class_name}" not found')
    mode = body.get("allocationMode", EXACT_COUNT)
    if mode not in (EXACT_COUNT, ALL):
        raise AllocationError(f"claim {label}, request {name}: unsupported count mode {mode}")
    return ReqData(name, parent, body, klass, sub_index)


def _prepare_constraints(prepared: PreparedClaim, list_types: bool) -> None:
    """With DRAListTypeAttributes the experimental allocator's set semantics apply (listconstraints.py)."""
    match, distinct = (ListMatchAttribute, ListDistinctAttribute) if list_types else (MatchAttribute, DistinctAttribute)
    constraints = ((prepared.claim.get("spec") or {}).get("devices") or {}).get("constraints") or ()
    for i, constraint in enumerate(constraints):
        names = frozenset(constraint.get("requests") or ())
        if constraint.get("matchAttribute") is not None:
            prepared.constraints.append((match, names, constraint["matchAttribute"]))
        elif constraint.get("distinctAttribute") is not None:
            prepared.constraints.append((distinct, names, constraint["distinctAttribute"]))
        else:
            prepared.error_at = (len(prepared.spec_requests), 1)  # after the requests and the claim-limit check
            raise AllocationError(f"claim {prepared.label}, constraint #{i}: empty constraint (unsupported constraint type?)")


def missing_classes(claims, classes: Mapping[str, ClassRec]) -> list[tuple[str, str]]:
    """(request or request/subrequest, class) for every request naming a class that does not exist (§14.3)."""
    missing = []
    for claim in claims:
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            name = request.get("name", "")
            exactly = request.get("exactly")
            if exactly is not None:
                class_name = exactly.get("deviceClassName") or ""
                if class_name not in classes:
                    missing.append((name, class_name))
            for sub in request.get("firstAvailable") or ():
                class_name = sub.get("deviceClassName") or ""
                if class_name not in classes:
                    missing.append((f"{name}/{sub.get('name', '')}", class_name))
    return missing
