"""ResourceClaim and ResourceClaimTemplate validation.

k8s: pkg/apis/resource/validation/validation.go (validateDeviceClaim and friends).
Spec: allocator.md §2-§3 (3.9-3.13), cel.md §6.1, device-taints.md §3.8.

Objects arrive defaulted (allocationMode ExactCount, count 1); like the API server's
defaulting, a missing mode is ExactCount and ExactCount with count 0 means 1.
Status is not validated here: create resets it, and status updates are the
controllers' business.
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, invalid, not_supported, required, too_many
from drasim.api.validation import common, memo
from drasim.api.validation.common import BAD, Errors, dict_items, get_dict, get_int, get_str
from drasim.api.validation.resource import (
    check_list, check_unique, validate_device_configuration, validate_dns_label, validate_dns_subdomain,
    validate_fully_qualified_name, validate_selectors, validate_tolerations,
)

DEVICE_REQUESTS_MAX = 32
FIRST_AVAILABLE_MAX = 8
DEVICE_CONSTRAINTS_MAX = 32
DEVICE_CONFIG_MAX = 32
ALLOCATION_MODES = ("All", "ExactCount")
_REQUEST_REF_MSG = ("must be the name of a request in the claim or the name of a request and a subrequest "
                    "separated by '/'")
_EXACTLY_ONE = "exactly one of `exactly` or `firstAvailable` is required"


def validate_resource_claim(obj: dict, old: dict | None = None) -> Errors:
    """Create: metadata + spec. Update: metadata + spec immutability only (VALID ...Update)."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    if isinstance(old, dict):
        _check_immutable(obj.get("spec"), old.get("spec"), Path("spec"), errs)
        return errs
    spec = get_dict(obj, "spec", Path(), errs)
    if isinstance(spec, dict) or spec is None:
        # The claims of a fleet share a few specs: their checks are remembered when clean.
        memo.validate("claim.spec", (spec,), lambda out: validate_claim_spec(spec or {}, Path("spec"), out), errs)
    return errs


def validate_resource_claim_template(obj: dict, old: dict | None = None) -> Errors:
    """Template: metadata, spec.metadata (labels/annotations), spec.spec like a claim spec."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    if isinstance(old, dict):
        _check_immutable(obj.get("spec"), old.get("spec"), Path("spec"), errs)
        return errs
    spec = get_dict(obj, "spec", Path(), errs)
    if not isinstance(spec, dict):
        spec = {}
    path = Path("spec")
    meta = get_dict(spec, "metadata", path, errs)
    if isinstance(meta, dict):
        # k8s: core ValidateTemplateObjectMeta — only labels and annotations are checked.
        common._validate_labels(meta, path.child("metadata"), errs)
        common._validate_annotations(meta, path.child("metadata"), errs)
    inner = get_dict(spec, "spec", path, errs)
    if inner is not BAD:
        validate_claim_spec(inner or {}, path.child("spec"), errs)
    return errs


def _check_immutable(new: object, old: object, path: Path, errs: Errors) -> None:
    """k8s: ValidateImmutableField — the whole spec is printed as the bad value."""
    if new != old:
        errs.append(invalid(path, new, "field is immutable"))


def validate_claim_spec(spec: dict, path: Path, errs: Errors) -> None:
    devices = get_dict(spec, "devices", path, errs)
    if not isinstance(devices, dict):
        return
    dpath = path.child("devices")
    requests = check_list(devices, "requests", dpath, DEVICE_REQUESTS_MAX, errs)
    rpath = dpath.child("requests")
    names: list[tuple[int, str]] = []
    request_names: dict[str, set[str] | None] = {}
    for i, req, p in dict_items(requests or [], rpath, errs):
        name = _validate_request(req, p, errs)
        names.append((i, name))
        request_names[name] = _subrequest_names(req)
    check_unique(names, rpath, errs)

    constraints = check_list(devices, "constraints", dpath, DEVICE_CONSTRAINTS_MAX, errs)
    for _, c, p in dict_items(constraints or [], dpath.child("constraints"), errs):
        _validate_request_refs(c, p, request_names, errs)
        _validate_constraint_attribute(c, p, errs)

    configs = check_list(devices, "config", dpath, DEVICE_CONFIG_MAX, errs)
    for _, cfg, p in dict_items(configs or [], dpath.child("config"), errs):
        _validate_request_refs(cfg, p, request_names, errs)
        validate_device_configuration(cfg, p, False, errs)


def _subrequest_names(req: dict) -> set[str] | None:
    subs = req.get("firstAvailable")
    if not isinstance(subs, list) or not subs:
        return None
    return {s.get("name") for s in subs if isinstance(s, dict) and isinstance(s.get("name"), str)}


def _validate_request(req: dict, path: Path, errs: Errors) -> str:
    """VALID validateDeviceRequest: name, then exactly one of `exactly` / `firstAvailable`."""
    name = get_str(req, "name", path, errs)
    name = name if isinstance(name, str) else ""
    if name is not BAD:
        errs.extend(validate_dns_label(name, path.child("name")))
    exactly = get_dict(req, "exactly", path, errs)
    subs = common.get_list(req, "firstAvailable", path, errs)
    has_first = isinstance(subs, list) and len(subs) > 0
    has_exactly = exactly is not None
    if not has_first and not has_exactly:
        errs.append(required(path, _EXACTLY_ONE))
    elif has_first and has_exactly:
        errs.append(invalid(path, None, _EXACTLY_ONE + ", but multiple fields are set"))
    elif has_first:
        fpath = path.child("firstAvailable")
        if len(subs) > FIRST_AVAILABLE_MAX:
            errs.append(too_many(fpath, len(subs), FIRST_AVAILABLE_MAX))
            return name
        sub_names = []
        for i, sub, p in dict_items(subs, fpath, errs):
            sub_name = get_str(sub, "name", p, errs)
            if sub_name is not BAD:
                errs.extend(validate_dns_label(sub_name or "", p.child("name")))
                sub_names.append((i, sub_name or ""))
            _validate_exact_fields(sub, p, errs)
        check_unique(sub_names, fpath, errs)
    elif isinstance(exactly, dict):
        _validate_exact_fields(exactly, path.child("exactly"), errs)
    return name


def _validate_exact_fields(req: dict, path: Path, errs: Errors) -> None:
    """Fields shared by `exactly` and a subrequest: class, selectors, mode/count, tolerations."""
    cls = get_str(req, "deviceClassName", path, errs)
    if cls is None or cls == "":
        errs.append(required(path.child("deviceClassName"), ""))
    elif cls is not BAD:
        errs.extend(validate_dns_subdomain(cls, path.child("deviceClassName")))
    validate_selectors(req, path, False, errs)
    _validate_allocation_mode(req, path, errs)
    validate_tolerations(req, path, errs)
    capacity = get_dict(req, "capacity", path, errs)
    if isinstance(capacity, dict):
        cpath = path.child("capacity")
        reqs = get_dict(capacity, "requests", cpath, errs)
        for key, value in (reqs.items() if isinstance(reqs, dict) else ()):
            common.get_quantity(value, cpath.child("requests").key(str(key)), errs)


def _validate_allocation_mode(req: dict, path: Path, errs: Errors) -> None:
    """VALID validateDeviceAllocationMode, after defaulting (ExactCount; count 0 -> 1)."""
    mode = get_str(req, "allocationMode", path, errs)
    count = get_int(req, "count", path, errs)
    if mode is BAD or count is BAD:
        return
    mode = mode or "ExactCount"
    count = count or 0
    if mode == "All":
        if count != 0:
            errs.append(invalid(path.child("count"), count, "must not be specified when allocationMode is 'All'"))
    elif mode == "ExactCount":
        if count < 0:
            errs.append(invalid(path.child("count"), count, "must be greater than zero"))
    else:
        errs.append(not_supported(path.child("allocationMode"), mode, ALLOCATION_MODES))


def _validate_request_refs(obj: dict, path: Path, names: dict[str, set[str] | None], errs: Errors) -> None:
    """VALID validateRequestNameRef over `requests`: `req` or `req/sub`, unique, at most 32."""
    items = check_list(obj, "requests", path, DEVICE_REQUESTS_MAX, errs)
    if items is None:
        return
    rpath = path.child("requests")
    refs = []
    for i, ref in enumerate(items):
        p = rpath.index(i)
        if not isinstance(ref, str):
            errs.append(common.type_error(p, ref, "a string"))
            continue
        refs.append((i, ref))
        segments = ref.split("/")
        if len(segments) > 2:
            errs.append(invalid(p, ref, _REQUEST_REF_MSG))
            continue
        for seg in segments:
            errs.extend(validate_dns_label(seg, p))
        subs = names.get(segments[0], ())
        known = segments[0] in names and (len(segments) == 1 or (subs is not None and segments[1] in subs))
        if not known:
            errs.append(invalid(p, ref, _REQUEST_REF_MSG))
    check_unique(refs, rpath, errs)


def _validate_constraint_attribute(c: dict, path: Path, errs: Errors) -> None:
    """VALID validateDeviceConstraint: matchAttribute wins over distinctAttribute; one is required."""
    match = get_str(c, "matchAttribute", path, errs)
    distinct = get_str(c, "distinctAttribute", path, errs)
    if match is BAD or distinct is BAD:
        return
    if match is not None:
        errs.extend(validate_fully_qualified_name(match, path.child("matchAttribute")))
    elif distinct is not None:
        errs.extend(validate_fully_qualified_name(distinct, path.child("distinctAttribute")))
    else:
        # Verbatim, including its odd wording (DRAConsumableCapacity is on in v1.37).
        errs.append(required(path, 'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                                   "but multiple fields are set"))
