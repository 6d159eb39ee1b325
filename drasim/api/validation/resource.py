"""resource.k8s.io/v1 validation shared by several kinds, plus DeviceClass and DeviceTaintRule.

k8s: pkg/apis/resource/validation/validation.go (VALID). Spec: allocator.md §2-§3,
device-taints.md §3, extended-resources.md §2.5, cel.md §5-§6.

The checks follow the hand-written validation (not the declarative, beta one);
where both exist the messages agree except where noted.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Callable

from drasim.api.fielderrors import (
    Path, duplicate, forbidden, internal, invalid, not_supported, required, too_long, too_many,
)
from drasim.api.validation import common
from drasim.api.validation.common import BAD, Errors, byte_len, dict_items, get_dict, get_list, get_str

# --- limits (k8s: staging/src/k8s.io/api/resource/v1/types.go) ----------------------------------
DEVICE_SELECTORS_MAX = 32
DEVICE_CONFIG_MAX = 32
DEVICE_TAINTS_MAX = 16
DEVICE_TOLERATIONS_MAX = 16  # documented; the v1.37 validation does not enforce it (device-taints.md §2.6)
CEL_EXPRESSION_MAX_LENGTH = 10 * 1024
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
POOL_NAME_MAX_LENGTH = 253
DRIVER_NAME_MAX_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
DEVICE_MAX_DOMAIN_LENGTH = 63
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")   # sets.List order: sorted
TOLERATION_OPERATORS = ("Equal", "Exists")            # validDeviceTolerationOperators order


# --- names ----------------------------------------------------------------------------------------

def validate_driver_name(name: str, path: Path) -> Errors:
    """k8s: core ValidateCSIDriverName — required, <= 63 bytes, DNS subdomain after lower-casing."""
    errs: Errors = []
    if name == "":
        errs.append(required(path, ""))
    if byte_len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.append(too_long(path, DRIVER_NAME_MAX_LENGTH))
    errs.extend(common.messages_as_errors(common.is_dns1123_subdomain(name.lower()), path, name))
    return errs


def validate_pool_name(name: str, path: Path) -> Errors:
    """VALID validatePoolName: DNS subdomains joined by '/', at most 253 bytes."""
    if name == "":
        return [required(path, "")]
    errs: Errors = []
    if byte_len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(too_long(path, POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errs.extend(common.messages_as_errors(common.is_dns1123_subdomain(part), path, part))
    return errs


def validate_dns_label(name: str, path: Path) -> Errors:
    """Device, request, counter names (core ValidateDNS1123Label; "" is invalid, not required)."""
    return common.messages_as_errors(common.is_dns1123_label(name), path, name)


def validate_dns_subdomain(name: str, path: Path) -> Errors:
    return common.messages_as_errors(common.is_dns1123_subdomain(name), path, name)


def validate_c_identifier(value: str, path: Path) -> Errors:
    errs: Errors = []
    if byte_len(value) > DEVICE_MAX_ID_LENGTH:
        errs.append(too_long(path, DEVICE_MAX_ID_LENGTH))
    errs.extend(common.messages_as_errors(common.is_c_identifier(value), path, value))
    return errs


# Attribute and capacity keys repeat on every device of a slice: remember the valid ones.
_VALID_QUALIFIED: set[str] = set()
_VALID_QUALIFIED_MAX = 50_000


def validate_qualified_name(name: str, path: Path) -> Errors:
    """VALID validateQualifiedName: `identifier` or `domain/identifier` (attribute/capacity keys)."""
    if name in _VALID_QUALIFIED:
        return []
    errs = _qualified_name_errors(name, path)
    if not errs:
        if len(_VALID_QUALIFIED) >= _VALID_QUALIFIED_MAX:
            _VALID_QUALIFIED.clear()
        _VALID_QUALIFIED.add(name)
    return errs


def _qualified_name_errors(name: str, path: Path) -> Errors:
    parts = name.split("/")
    if len(parts) == 1:
        return validate_c_identifier(parts[0], path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    errs: Errors = []
    if parts[0] == "":
        errs.append(invalid(path, "", "the domain must not be empty"))
    else:
        errs.extend(validate_driver_name(parts[0], path))
    if parts[1] == "":
        errs.append(invalid(path, "", "the name must not be empty"))
    else:
        errs.extend(validate_c_identifier(parts[1], path))
    return errs


def validate_fully_qualified_name(name: str, path: Path) -> Errors:
    """VALID validateFullyQualifiedName: a qualified name that must have a domain (constraints)."""
    errs = validate_qualified_name(name, path)
    if "/" not in name:
        errs.append(invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errs


def validate_node_name(name: str, path: Path) -> Errors:
    """VALID validateNodeName: core ValidateNodeName is NameIsDNSSubdomain."""
    return validate_dns_subdomain(name, path)


# --- list helpers (VALID validateSlice / validateSet) --------------------------------------------

def check_list(obj: dict, key: str, path: Path, max_size: int, errs: Errors) -> list | None:
    """The list at obj[key] if it is one and within max_size (the size check short-circuits)."""
    items = get_list(obj, key, path, errs)
    if not isinstance(items, list):
        return None
    if 0 <= max_size < len(items):
        errs.append(too_many(path.child(key), len(items), max_size))
        return None
    return items


def check_unique(keys: list[tuple[int, Any]], path: Path, errs: Errors) -> None:
    """Duplicate value on `path[i]` for every repeated key (first occurrence wins)."""
    seen: set = set()
    for i, k in keys:
        try:
            hash(k)
        except TypeError:
            continue
        if k in seen:
            errs.append(duplicate(path.index(i), k))
        else:
            seen.add(k)


# --- CEL selectors --------------------------------------------------------------------------------
_cel_validator: Callable[..., list] | None = None

# The API server's DRAListTypeAttributes setting while an object is validated. Go's validation
# reads the process-wide feature gate (validateCELExpression: dracel.Features from
# utilfeature.DefaultFeatureGate); validate_object sets this from the gate map it is given.
LIST_TYPE_ATTRIBUTES: ContextVar[bool] = ContextVar("list_type_attributes", default=False)


def _compile_errors(expression: str) -> list:
    """drasim.cel.validate_selector(expr) -> [(error_type, detail)], imported on first use."""
    global _cel_validator
    if _cel_validator is None:
        try:
            from drasim.cel import validate_selector
        except ImportError:  # CEL not available: no compile errors can be reported
            return []
        _cel_validator = validate_selector
    return list(_cel_validator(expression, LIST_TYPE_ATTRIBUTES.get()) or [])


def _cel_error(kind: object, detail: str, path: Path, expression: str):
    """VALID convertCELErrorToValidationError: map the CEL error type to a field error."""
    k = str(getattr(kind, "value", kind)).lower().replace(" ", "").replace("_", "").replace("fieldvalue", "")
    if k.startswith("required"):
        return required(path, detail)
    if k.startswith("forbidden"):
        return forbidden(path, detail)
    if k.startswith("toolong"):
        return too_long(path, CEL_EXPRESSION_MAX_LENGTH)
    if k.startswith("internal"):
        return internal(path, detail)
    return invalid(path, expression, detail)


def validate_cel_expression(expression: str, path: Path, stored: bool, errs: Errors) -> None:
    """VALID validateCELExpression: stored expressions are trusted; too long ones are not compiled."""
    if stored:
        return
    if byte_len(expression) > CEL_EXPRESSION_MAX_LENGTH:
        errs.append(too_long(path, CEL_EXPRESSION_MAX_LENGTH))
        return
    try:
        found = _compile_errors(expression)
    except Exception as exc:  # noqa: BLE001 - a CEL bug must not crash validation; Go reports InternalError
        errs.append(internal(path, f"unsupported error type: {exc}"))
        return
    for kind, detail in found:
        errs.append(_cel_error(kind, detail, path, expression))


def validate_selectors(obj: dict, path: Path, stored: bool, errs: Errors) -> None:
    """VALID validateSelectorSlice: at most 32; each needs `cel` with a valid expression."""
    items = check_list(obj, "selectors", path, DEVICE_SELECTORS_MAX, errs)
    for _, sel, p in dict_items(items or [], path.child("selectors"), errs):
        cel = get_dict(sel, "cel", p, errs)
        if cel is None:
            errs.append(required(p.child("cel"), ""))
        elif isinstance(cel, dict):
            expr = get_str(cel, "expression", p.child("cel"), errs)
            if expr is not BAD:
                validate_cel_expression(expr or "", p.child("cel", "expression"), stored, errs)


# --- opaque configuration -------------------------------------------------------------------------

def validate_device_configuration(config: dict, path: Path, stored: bool, errs: Errors) -> None:
    """VALID validateDeviceConfiguration: `opaque` required, with driver and a JSON object."""
    opaque = get_dict(config, "opaque", path, errs)
    if opaque is None:
        errs.append(required(path.child("opaque"), ""))
        return
    if opaque is BAD:
        return
    opath = path.child("opaque")
    driver = get_str(opaque, "driver", opath, errs)
    if driver is not BAD:
        errs.extend(validate_driver_name(driver or "", opath.child("driver")))
    _validate_raw_extension(opaque.get("parameters"), opath.child("parameters"), stored, errs)


def _validate_raw_extension(value: Any, path: Path, stored: bool, errs: Errors) -> None:
    """VALID validateRawExtension: required, <= 10 KiB as JSON (on create), a JSON object."""
    if value is None:
        errs.append(required(path, ""))
        return
    size = len(common.json_bytes(value))
    if not stored and size > OPAQUE_PARAMETERS_MAX_LENGTH:
        errs.append(too_long(path, OPAQUE_PARAMETERS_MAX_LENGTH))
    elif not isinstance(value, dict):
        errs.append(invalid(path, "<value omitted>", "must be a valid JSON object"))


def validate_class_configs(spec: dict, path: Path, stored: bool, errs: Errors) -> None:
    items = check_list(spec, "config", path, DEVICE_CONFIG_MAX, errs)
    for _, cfg, p in dict_items(items or [], path.child("config"), errs):
        validate_device_configuration(cfg, p, stored, errs)


# --- taints and tolerations (device-taints.md §3) -------------------------------------------------

def validate_device_taint(taint: dict, old: dict | None, path: Path, errs: Errors) -> None:
    """VALID validateDeviceTaint: key a label key, value a label value, effect from the enum.

    The effect is only re-checked when it changed (stored unknown effects survive updates).
    """
    key = get_str(taint, "key", path, errs)
    if key is not BAD:
        errs.extend(common.validate_label_name(key or "", path.child("key")))
    value = get_str(taint, "value", path, errs)
    if isinstance(value, str) and value:
        errs.extend(common.validate_label_value(value, path.child("value")))
    common.validate_time(taint, "timeAdded", path, errs)
    effect = get_str(taint, "effect", path, errs)
    if effect is BAD or (old is not None and old.get("effect") == effect):
        return
    if not effect:
        errs.append(required(path.child("effect"), ""))
    elif effect not in TAINT_EFFECTS:
        errs.append(not_supported(path.child("effect"), effect, TAINT_EFFECTS))


def validate_device_toleration(tol: dict, path: Path, errs: Errors) -> None:
    """VALID validateDeviceToleration (operator defaulted to Equal by the loader)."""
    key = get_str(tol, "key", path, errs)
    if isinstance(key, str) and key:
        errs.extend(common.validate_label_name(key, path.child("key")))
    operator = get_str(tol, "operator", path, errs)
    value = get_str(tol, "value", path, errs)
    value = value if isinstance(value, str) else ""
    if operator == "Exists":
        if value:
            errs.append(invalid(path.child("value"), value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errs.extend(common.validate_label_value(value, path.child("value")))
    elif operator is None or operator == "":
        errs.append(required(path.child("operator"), ""))
    elif operator is not BAD:
        errs.append(not_supported(path.child("operator"), operator, TOLERATION_OPERATORS))
    effect = get_str(tol, "effect", path, errs)
    if isinstance(effect, str) and effect and effect not in TAINT_EFFECTS:
        errs.append(not_supported(path.child("effect"), effect, TAINT_EFFECTS))
    common.get_int(tol, "tolerationSeconds", path, errs)  # type only: negative values are allowed


def validate_tolerations(obj: dict, path: Path, errs: Errors) -> None:
    items = get_list(obj, "tolerations", path, errs)
    for _, tol, p in dict_items(items if isinstance(items, list) else [], path.child("tolerations"), errs):
        validate_device_toleration(tol, p, errs)


# --- DeviceClass ----------------------------------------------------------------------------------

def validate_device_class(obj: dict, old: dict | None = None) -> Errors:
    """VALID ValidateDeviceClass / ValidateDeviceClassUpdate (cluster-scoped, DNS-subdomain name)."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is BAD:
        return errs
    spec = spec or {}
    old_spec = (old or {}).get("spec") if isinstance(old, dict) else None
    old_spec = old_spec if isinstance(old_spec, dict) else None
    path = Path("spec")
    # Unchanged selectors / configs are "stored" and not re-validated (CEL environments may shrink).
    stored = old_spec is not None and old_spec.get("selectors") == spec.get("selectors")
    validate_selectors(spec, path, stored, errs)
    stored = old_spec is not None and old_spec.get("config") == spec.get("config")
    validate_class_configs(spec, path, stored, errs)
    name = get_str(spec, "extendedResourceName", path, errs)
    if isinstance(name, str) and not common.is_extended_resource_name(name):
        # extended-resources.md §2.5: the hand-written message.
        errs.append(invalid(path.child("extendedResourceName"), name, "must be a valid extended resource name"))
    return errs


# --- DeviceTaintRule ------------------------------------------------------------------------------

def validate_device_taint_rule(obj: dict, old: dict | None = None) -> Errors:
    """VALID ValidateDeviceTaintRule(Update): DNS-subdomain name, selector formats, a valid taint."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is BAD:
        return errs
    spec = spec or {}
    path = Path("spec")
    selector = get_dict(spec, "deviceSelector", path, errs)
    if isinstance(selector, dict):
        spath = path.child("deviceSelector")
        for key, check in (("driver", validate_driver_name), ("pool", validate_pool_name),
                           ("device", validate_dns_label)):
            value = get_str(selector, key, spath, errs)
            if isinstance(value, str):
                errs.extend(check(value, spath.child(key)))
    taint = get_dict(spec, "taint", path, errs)
    if taint is not BAD:
        old_taint = None
        if isinstance(old, dict) and isinstance(old.get("spec"), dict):
            old_taint = old["spec"].get("taint") if isinstance(old["spec"].get("taint"), dict) else {}
        validate_device_taint(taint or {}, old_taint, path.child("taint"), errs)
    return errs
