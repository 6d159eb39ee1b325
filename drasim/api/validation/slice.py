"""ResourceSlice validation.

k8s: pkg/apis/resource/validation/validation.go (validateResourceSliceSpec, validateDevice, ...).
Spec: allocator.md §2 (limits), §3.1-3.8; device-taints.md §2.3-2.4, §3.1-3.3.

Go iterates maps in random order; we iterate keys sorted so messages are stable.
"""
from __future__ import annotations

import re

from drasim.api.fielderrors import Path, forbidden, invalid, required, too_long, too_many
from drasim.api.validation import common, memo
from drasim.api.validation.capacity import validate_request_policy
from drasim.api.validation.common import BAD, Errors, byte_len, dict_items, get_bool, get_dict, get_int, get_list, get_str
from drasim.api.validation.compatibility import validate_compatibility_groups
from drasim.api.validation.core import validate_node_selector
from drasim.api.validation.nodeallocatable import validate_node_allocatable_resources
from drasim.api.validation.partitiontype import validate_partition_type_attribute
from drasim.api.validation.resource import (
    check_list, check_unique, validate_device_taint, validate_dns_label, validate_driver_name,
    validate_node_name, validate_pool_name, validate_qualified_name,
)

MAX_DEVICES = 128
MAX_DEVICES_WITH_ADVANCED_FEATURES = 64
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_SET = 32
MAX_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_CONSUMPTION = 32
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
ATTRIBUTE_VALUE_MAX_LENGTH = 64
MAX_TAINTS = 16
MAX_BINDING_CONDITIONS = 4
_KEY_TRUNCATE = 63 + 1 + 32  # domain/ID
_SCALARS = ("int", "bool", "string", "version")
_LISTS = ("ints", "bools", "strings", "versions")

_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
SEMVER_RE = re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?", re.ASCII)

_ONE_OF = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
_PER_DEVICE = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
               "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")


def validate_resource_slice(obj: dict, old: dict | None = None) -> Errors:
    """VALID ValidateResourceSlice(Update): cluster-scoped, DNS-subdomain name, then the spec."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is BAD:
        return errs
    old_spec = old.get("spec") if isinstance(old, dict) else None
    _validate_spec(spec or {}, old_spec if isinstance(old_spec, dict) else None, Path("spec"), errs)
    return errs


def _validate_spec(spec: dict, old: dict | None, path: Path, errs: Errors) -> None:
    driver = get_str(spec, "driver", path, errs)
    if driver is not BAD:
        errs.extend(validate_driver_name(driver or "", path.child("driver")))
    pool = get_dict(spec, "pool", path, errs)
    if pool is not BAD:
        _validate_pool(pool or {}, path.child("pool"), errs)
    if old is not None:
        for new_v, old_v, p in ((_get(spec, "pool", "name"), _get(old, "pool", "name"), path.child("pool", "name")),
                                (spec.get("driver"), old.get("driver"), path.child("driver")),
                                (spec.get("nodeName"), old.get("nodeName"), path.child("nodeName"))):
            if new_v != old_v:
                errs.append(invalid(p, new_v, "field is immutable"))
    _validate_node_selection(spec, path, errs)
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))

    devices = get_list(spec, "devices", path, errs)
    devices = devices if isinstance(devices, list) else []
    per_device = spec.get("perDeviceNodeSelection") is True
    if old is None:
        # A create: the devices' checks read the list and perDeviceNodeSelection only, and the
        # slices of a fleet list the same devices: remembered when clean, as one list.
        memo.validate("slice.devices", (devices, str(path), per_device),
                      lambda out: _validate_devices(devices, {}, path, per_device, out), errs)
    else:
        _validate_devices(devices, _devices_by_name(old), path, per_device, errs)

    counter_sets = check_list(spec, "sharedCounters", path, MAX_COUNTER_SETS, errs)
    names = []
    for i, cs, p in dict_items(counter_sets or [], path.child("sharedCounters"), errs):
        names.append((i, cs.get("name")))
        _validate_named_counters(cs, "name", p, MAX_COUNTERS_PER_SET, errs)
    check_unique(names, path.child("sharedCounters"), errs)
    validate_partition_type_attribute(spec, path, errs)


def _validate_devices(devices: list, old_devices: dict, path: Path, per_device: bool, errs: Errors) -> None:
    """The device list's checks: its length, each device (against its old self, by name), unique names."""
    limit = MAX_DEVICES_WITH_ADVANCED_FEATURES if _has_advanced_features(devices) else MAX_DEVICES
    dpath = path.child("devices")
    if len(devices) > limit:
        errs.append(too_many(dpath, len(devices), limit))
        return
    names = []
    for i, device, p in dict_items(devices, dpath, errs):
        name = device.get("name")
        names.append((i, name))
        old_device = old_devices.get(name) if isinstance(name, str) else None
        if old_device is None:
            # The slices of a fleet list the same devices: their checks are remembered when clean.
            memo.validate("slice.device", (device, str(p), per_device),
                          lambda out: _validate_device(device, None, p, per_device, out), errs)
        else:
            _validate_device(device, old_device, p, per_device, errs)
    check_unique(names, dpath, errs)


def _get(obj: dict, *keys: str):
    for k in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(k)
    return obj


def _devices_by_name(old_spec: dict | None) -> dict:
    devices = old_spec.get("devices") if old_spec else None
    if not isinstance(devices, list):
        return {}
    return {d["name"]: d for d in devices if isinstance(d, dict) and isinstance(d.get("name"), str)}


def _has_advanced_features(devices: list) -> bool:
    """Taints, counter consumption or (alpha) list attributes lower the limit to 64 (§2)."""
    for d in devices:
        if not isinstance(d, dict):
            continue
        if d.get("taints") or d.get("consumesCounters"):
            return True
        attrs = d.get("attributes")
        if isinstance(attrs, dict) and any(isinstance(a, dict) and any(a.get(k) is not None for k in _LISTS)
                                           for a in attrs.values()):
            return True
    return False


def _validate_pool(pool: dict, path: Path, errs: Errors) -> None:
    name = get_str(pool, "name", path, errs)
    if name is not BAD:
        errs.extend(validate_pool_name(name or "", path.child("name")))
    count = get_int(pool, "resourceSliceCount", path, errs)
    if count is not BAD and (count or 0) <= 0:
        errs.append(invalid(path.child("resourceSliceCount"), count or 0, "must be greater than zero"))
    generation = get_int(pool, "generation", path, errs)
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(path.child("generation"), generation, "must be greater than or equal to zero"))


def _validate_node_selection(spec: dict, path: Path, errs: Errors) -> None:
    """allocator.md §3.1-3.2: exactly one of the four node-selection fields."""
    set_fields = []
    node_name = get_str(spec, "nodeName", path, errs)
    if isinstance(node_name, str):
        if node_name:
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(node_name, path.child("nodeName")))
        else:
            errs.append(invalid(path.child("nodeName"), "", "must be either unset or set to a non-empty string"))
    selector = get_dict(spec, "nodeSelector", path, errs)
    if isinstance(selector, dict):
        set_fields.append("`nodeSelector`")
        spath = path.child("nodeSelector")
        validate_node_selector(selector, spath, errs)
        terms = selector.get("nodeSelectorTerms")
        if not isinstance(terms, list) or len(terms) != 1:
            errs.append(invalid(spath.child("nodeSelectorTerms"), terms, "must have exactly one node selector term"))
    for key in ("allNodes", "perDeviceNodeSelection"):
        flag = get_bool(spec, key, path, errs)
        if flag is True:
            set_fields.append(f"`{key}`")
        elif flag is False:
            errs.append(invalid(path.child(key), False, "must be either unset or set to true"))
    if not set_fields:
        errs.append(required(path, _ONE_OF))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", _ONE_OF + ", but multiple fields are set"))


def _validate_device(device: dict, old: dict | None, path: Path, per_device: bool, errs: Errors) -> None:
    name = get_str(device, "name", path, errs)
    if name is not BAD:
        errs.extend(validate_dns_label(name or "", path.child("name")))
    attrs = get_dict(device, "attributes", path, errs)
    attrs = attrs if isinstance(attrs, dict) else {}
    caps = get_dict(device, "capacity", path, errs)
    caps = caps if isinstance(caps, dict) else {}
    if len(attrs) + len(caps) > MAX_ATTRIBUTES_AND_CAPACITIES:
        errs.append(invalid(path, len(attrs) + len(caps),
                            f"the total number of attributes and capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITIES}"))
    n_values = sum(_value_count(a) for a in attrs.values())
    if n_values > MAX_ATTRIBUTE_VALUES:
        errs.append(invalid(path, n_values, f"the total number of attribute values must not exceed {MAX_ATTRIBUTE_VALUES}"))
    apath = path.child("attributes")
    for key in sorted(attrs, key=str):
        errs.extend(validate_qualified_name(str(key), apath))
        _validate_attribute(attrs[key], apath.key(_truncate(str(key))), errs)
    if old is None or old.get("capacity") != device.get("capacity"):
        multi = device.get("allowMultipleAllocations") is True
        cpath = path.child("capacity")
        for key in sorted(caps, key=str):
            errs.extend(validate_qualified_name(str(key), cpath))
            _validate_capacity(caps[key], cpath.key(_truncate(str(key))), multi, errs)
    if old is None or old.get("taints") != device.get("taints"):
        taints = check_list(device, "taints", path, MAX_TAINTS, errs)
        for _, taint, p in dict_items(taints or [], path.child("taints"), errs):
            validate_device_taint(taint, None, p, errs)
    consumptions = check_list(device, "consumesCounters", path, MAX_CONSUMPTIONS_PER_DEVICE, errs)
    names = []
    for i, c, p in dict_items(consumptions or [], path.child("consumesCounters"), errs):
        names.append((i, c.get("counterSet")))
        _validate_named_counters(c, "counterSet", p, MAX_COUNTERS_PER_CONSUMPTION, errs)
        validate_compatibility_groups(c, p, errs)
    check_unique(names, path.child("consumesCounters"), errs)
    _validate_device_node_selection(device, path, per_device, errs)
    _validate_binding_conditions(device, path, errs)
    validate_node_allocatable_resources(device, path, errs)
    get_bool(device, "allowMultipleAllocations", path, errs)
    get_bool(device, "bindsToNode", path, errs)


def _truncate(key: str, max_len: int = _KEY_TRUNCATE) -> str:
    """VALID truncateIfTooLong: long map keys are shortened in the middle for the path."""
    max_len = max(max_len, 16)
    if len(key) <= max_len:
        return key
    remaining = max_len - 3
    return key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2:]


def _value_count(attr: object) -> int:
    if not isinstance(attr, dict):
        return 1
    n = 0
    for key in _LISTS:
        values = attr.get(key)
        if isinstance(values, list):
            n += len(values)
    return n or 1


# (kind, type, value) of single-value attributes found valid; devices repeat them endlessly.
_VALID_SCALAR_ATTRS: set[tuple] = set()
_VALID_SCALAR_ATTRS_MAX = 50_000
_SCALAR_TYPES = (int, bool, str)


def _validate_attribute(attr: object, path: Path, errs: Errors) -> None:
    """VALID validateDeviceAttribute: exactly one value; strings/versions <= 64 bytes; strict semver."""
    memo_key = None
    if type(attr) is dict and len(attr) == 1:
        ((kind, value),) = attr.items()
        if kind in _SCALARS and type(value) in _SCALAR_TYPES:
            memo_key = (kind, type(value), value)
            if memo_key in _VALID_SCALAR_ATTRS:
                return
    before = len(errs)
    _check_attribute(attr, path, errs)
    if memo_key is not None and len(errs) == before:
        if len(_VALID_SCALAR_ATTRS) >= _VALID_SCALAR_ATTRS_MAX:
            _VALID_SCALAR_ATTRS.clear()
        _VALID_SCALAR_ATTRS.add(memo_key)


def _check_attribute(attr: object, path: Path, errs: Errors) -> None:
    if not isinstance(attr, dict):
        errs.append(common.type_error(path, attr, "an object"))
        return
    kinds = {"int": (int,), "bool": (bool,), "string": (str,), "version": (str,)}
    present = []
    for key in _SCALARS:
        value = attr.get(key)
        if value is None:
            continue
        present.append(key)
        ok = isinstance(value, kinds[key]) and not (key == "int" and isinstance(value, bool))
        if not ok:
            errs.append(common.type_error(path.child(key), value, "a boolean" if key == "bool" else
                                          ("an integer" if key == "int" else "a string")))
        elif key in ("string", "version"):
            _validate_string_value(key, value, path.child(key), errs)
    for key in _LISTS:
        values = attr.get(key)
        if values is None:
            continue
        present.append(key)
        if not isinstance(values, list):
            errs.append(common.type_error(path.child(key), values, "a list"))
        elif not values:
            errs.append(invalid(path.child(key), [], "must not be empty if specified"))
        elif key in ("strings", "versions"):
            for i, v in enumerate(values):
                if isinstance(v, str):
                    _validate_string_value(key[:-1], v, path.child(key).index(i), errs)
                else:
                    errs.append(common.type_error(path.child(key).index(i), v, "a string"))
    if not present:
        errs.append(invalid(path, "", "exactly one value must be specified"))
    elif len(present) > 1:
        errs.append(invalid(path, {k: attr[k] for k in present}, "exactly one value must be specified"))


def _validate_string_value(kind: str, value: str, path: Path, errs: Errors) -> None:
    if kind == "version" and not SEMVER_RE.fullmatch(value):
        errs.append(invalid(path, value, "must be a string compatible with semver.org spec 2.0.0"))
    if byte_len(value) > ATTRIBUTE_VALUE_MAX_LENGTH:
        errs.append(too_long(path, ATTRIBUTE_VALUE_MAX_LENGTH))


def _validate_capacity(cap: object, path: Path, multi: bool, errs: Errors) -> None:
    """allocator.md §3.8: requestPolicy only with allowMultipleAllocations, then its own rules."""
    if not isinstance(cap, dict):
        errs.append(common.type_error(path, cap, "an object"))
        return
    value = common.get_quantity(cap.get("value"), path.child("value"), errs) if cap.get("value") is not None else None
    policy = get_dict(cap, "requestPolicy", path, errs)
    if not isinstance(policy, dict):
        return
    if not multi:
        errs.append(forbidden(path.child("requestPolicy"), "allowMultipleAllocations must be true"))
    elif value is not None:
        validate_request_policy(value, policy, path.child("requestPolicy"), errs)


def _validate_named_counters(obj: dict, name_key: str, path: Path, max_counters: int, errs: Errors) -> None:
    """A counter set (name) or a consumption (counterSet): a DNS-label name and 1..max counters."""
    name = get_str(obj, name_key, path, errs)
    if name is None or name == "":
        errs.append(required(path.child(name_key), ""))
    elif name is not BAD:
        errs.extend(validate_dns_label(name, path.child(name_key)))
    counters = get_dict(obj, "counters", path, errs)
    if counters is BAD:
        return
    cpath = path.child("counters")
    if not counters:
        errs.append(required(cpath, ""))
    elif len(counters) > max_counters:
        errs.append(too_many(cpath, len(counters), max_counters))
    else:
        for key in sorted(counters, key=str):
            errs.extend(validate_dns_label(str(key), cpath))
            counter = counters[key]
            kpath = cpath.key(_truncate(str(key), 63))
            if not isinstance(counter, dict):
                errs.append(common.type_error(kpath, counter, "an object"))
            elif counter.get("value") is not None:
                common.get_quantity(counter["value"], kpath.child("value"), errs)


def _validate_device_node_selection(device: dict, path: Path, per_device: bool, errs: Errors) -> None:
    """allocator.md §3.7: per-device node fields only with perDeviceNodeSelection, then exactly one."""
    present = any(device.get(k) is not None for k in ("nodeName", "nodeSelector", "allNodes"))
    if not per_device:
        if present:
            errs.append(invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                            "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
        return
    set_fields = []
    node_name = get_str(device, "nodeName", path, errs)
    if isinstance(node_name, str):
        if node_name:
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(node_name, path.child("nodeName")))
        else:
            errs.append(invalid(path.child("nodeName"), "", "must not be empty"))
    selector = get_dict(device, "nodeSelector", path, errs)
    if isinstance(selector, dict):
        set_fields.append("`nodeSelector`")
        validate_node_selector(selector, path.child("nodeSelector"), errs)
    all_nodes = get_bool(device, "allNodes", path, errs)
    if all_nodes is True:
        set_fields.append("`allNodes`")
    elif all_nodes is False:
        errs.append(invalid(path.child("allNodes"), False, "must be either unset or set to true"))
    if not set_fields:
        errs.append(required(path, _PER_DEVICE))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", _PER_DEVICE))


def _validate_binding_conditions(device: dict, path: Path, errs: Errors) -> None:
    """VALID validateDeviceBindingParameters: <= 4 each, label keys, unique, disjoint, both or neither."""
    found: dict[str, list[tuple[int, str]]] = {}
    for key in ("bindingConditions", "bindingFailureConditions"):
        found[key] = []
        if check_list(device, key, path, MAX_BINDING_CONDITIONS, errs) is not None:
            found[key] = common.string_list(device, key, path, errs)
            for i, c in found[key]:
                errs.extend(common.validate_label_name(c, path.child(key).index(i)))
    conds, failures = found["bindingConditions"], found["bindingFailureConditions"]
    check_unique(conds, path.child("bindingConditions"), errs)
    check_unique(failures, path.child("bindingFailureConditions"), errs)
    cond_values = {c for _, c in conds}
    for i, c in failures:
        if c in cond_values:
            errs.append(invalid(path.child("bindingFailureConditions").index(i), c,
                                "bindingFailureConditions must not overlap with bindingConditions"))
    if not conds and failures:
        errs.append(invalid(path.child("bindingConditions"), device.get("bindingConditions"),
                            "bindingConditions are required to use bindingFailureConditions"))
    if not failures and conds:
        errs.append(invalid(path.child("bindingFailureConditions"), device.get("bindingFailureConditions"),
                            "bindingFailureConditions are required to use bindingConditions"))
