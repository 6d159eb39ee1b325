"""Name formats, typed field access and ObjectMeta checks shared by every kind.

k8s: staging/src/k8s.io/apimachinery/pkg/api/validate/content/{dns,kube,identifier,errors}.go
     staging/src/k8s.io/apimachinery/pkg/api/validation/{generic,objectmeta}.go
     staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go (labels)

Every reader here tolerates any JSON shape: a value of the wrong type becomes an
`Invalid value ...: must be a string` (etc.) error, never an exception. Go's
regexp `$` anchors at the very end, so patterns are used with fullmatch.
"""
from __future__ import annotations

from datetime import datetime

import json
import re
from functools import lru_cache
from typing import Any

from drasim.api.fielderrors import FieldError, Path, forbidden, invalid, required, too_long
from drasim.api.quantity import Quantity, QuantityError, parse_quantity

Errors = list[FieldError]

def byte_len(s: str) -> int:
    """Length in bytes, as Go's len(string); lone surrogates (not valid UTF-8) count as 3.
    An ASCII text (str.isascii reads a flag: no scan) is one byte a character: no encoding."""
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


# --- content/errors.go ---------------------------------------------------------------------------

def max_len_error(n: int) -> str:
    return f"must be no more than {n} bytes"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


# --- content/dns.go ------------------------------------------------------------------------------
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                          "'-' or '.', and must start and end with an alphanumeric character")
_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)


@lru_cache(maxsize=8192)
def is_dns1123_label(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_RE.fullmatch(value):
        if _SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=8192)
def is_dns1123_subdomain(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > 253:
        errs.append(max_len_error(253))
    if not _SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


# "No messages" read off the patterns, for values too many and too unique for the caches above
# (every object's name, every pod's nodeName and label values of a fleet): a value a pattern
# matches is ASCII, one byte a character, so the byte limit is its length.
def dns1123_subdomain_clean(value: str) -> bool:
    """not is_dns1123_subdomain(value)."""
    return len(value) <= 253 and _SUBDOMAIN_RE.fullmatch(value) is not None


def dns1123_label_clean(value: str) -> bool:
    """not is_dns1123_label(value)."""
    return len(value) <= 63 and _LABEL_RE.fullmatch(value) is not None


# --- content/kube.go -----------------------------------------------------------------------------
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)


@lru_cache(maxsize=8192)
def is_qualified_name(value: str) -> tuple[str, ...]:
    """IsQualifiedName == IsLabelKey: optional DNS-subdomain prefix, '/', name of <= 63 bytes."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ("a valid label key " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errs.append("name part must be non-empty")
    elif byte_len(name) > 63:
        errs.append("name part " + max_len_error(63))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


def label_value_clean(value: str) -> bool:
    """not is_label_value(value) (see dns1123_subdomain_clean)."""
    return len(value) <= 63 and _LABEL_VALUE_RE.fullmatch(value) is not None


@lru_cache(maxsize=8192)
def is_label_value(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


# --- content/identifier.go -----------------------------------------------------------------------
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)
_C_IDENTIFIER_MSG = ("a valid C identifier must start with alphabetic character or '_', "
                     "followed by a string of alphanumeric characters or '_'")


def is_c_identifier(value: str) -> tuple[str, ...]:
    if _C_IDENTIFIER_RE.fullmatch(value):
        return ()
    return (regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName"),)


def messages_as_errors(messages: tuple[str, ...], path: Path, value: Any) -> Errors:
    return [invalid(path, value, m) for m in messages]


def validate_label_value(value: str, path: Path) -> Errors:
    return messages_as_errors(is_label_value(value), path, value)


def validate_label_name(value: str, path: Path) -> Errors:
    """k8s: metav1validation.ValidateLabelName — a qualified name; "" fails as `name part must be non-empty`."""
    return messages_as_errors(is_qualified_name(value), path, value)


# --- typed access ---------------------------------------------------------------------------------
# Go decodes null as the zero value / nil pointer, so None means "absent" everywhere.

class Bad:
    """Marker returned when a field had the wrong JSON type (an error was recorded)."""

    __slots__ = ()


BAD = Bad()


def type_error(path: Path, value: Any, want: str) -> FieldError:
    return invalid(path, value, f"must be {want}")


def get_str(obj: dict, key: str, path: Path, errs: Errors) -> str | None | Bad:
    """The string at obj[key]; None if absent; BAD (error recorded) for another type."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    errs.append(type_error(path.child(key), value, "a string"))
    return BAD


def get_int(obj: dict, key: str, path: Path, errs: Errors) -> int | None | Bad:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    errs.append(type_error(path.child(key), value, "an integer"))
    return BAD


def get_bool(obj: dict, key: str, path: Path, errs: Errors) -> bool | None | Bad:
    value = obj.get(key)
    if value is None or isinstance(value, bool):
        return value
    errs.append(type_error(path.child(key), value, "a boolean"))
    return BAD


def get_dict(obj: dict, key: str, path: Path, errs: Errors) -> dict | None | Bad:
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return value
    errs.append(type_error(path.child(key), value, "an object"))
    return BAD


def get_list(obj: dict, key: str, path: Path, errs: Errors) -> list | None | Bad:
    value = obj.get(key)
    if value is None or isinstance(value, list):
        return value
    errs.append(type_error(path.child(key), value, "a list"))
    return BAD


def string_list(obj: dict, key: str, path: Path, errs: Errors) -> list[tuple[int, str]]:
    """(index, item) of a list of strings; wrong-typed items are reported and skipped."""
    items = get_list(obj, key, path, errs)
    if not isinstance(items, list):
        return []
    out = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            out.append((i, item))
        else:
            errs.append(type_error(path.child(key).index(i), item, "a string"))
    return out


def dict_items(value: list, path: Path, errs: Errors) -> list[tuple[int, dict, Path]]:
    """(index, item, item path) of a list of objects; other items are reported and skipped."""
    out = []
    for i, item in enumerate(value):
        p = path.index(i)
        if isinstance(item, dict):
            out.append((i, item, p))
        elif item is not None:
            errs.append(type_error(p, item, "an object"))
        else:
            out.append((i, {}, p))
    return out


def get_quantity(value: Any, path: Path, errs: Errors) -> Quantity | None:
    """A quantity value (string or number); a parse error becomes a field error."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        errs.append(type_error(path, value, "a quantity"))
        return None
    try:
        return parse_quantity(value)
    except (QuantityError, ValueError, OverflowError) as exc:
        errs.append(invalid(path, value, str(exc) or "must be a quantity"))
        return None


# --- ObjectMeta -----------------------------------------------------------------------------------
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024


def validate_time(obj: dict, key: str, path: Path, errs: Errors) -> None:
    """A metav1.Time must decode: an RFC 3339 string (k8s: metav1.Time UnmarshalJSON)."""
    value = obj.get(key)
    if value is None:
        return
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value)
            return
        except ValueError:
            pass
    errs.append(invalid(path.child(key), value, "must be an RFC 3339 timestamp (e.g. 2026-03-01T00:00:00Z)"))


_ROOT = Path()
_METADATA = Path("metadata")


def validate_object_meta(obj: dict, *, namespaced: bool, name_fn, errs: Errors) -> dict:
    """k8s: apimachinery/pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor.

    name_fn(name) returns messages; each becomes `metadata.name: Invalid value`.
    Returns the metadata dict (empty if missing or malformed).
    """
    if metaclean.clean(obj, namespaced, name_fn):   # nearly always: no paths to build
        return obj["metadata"]
    return _object_meta_errors(obj, namespaced, name_fn, errs)


def _object_meta_errors(obj: dict, namespaced: bool, name_fn, errs: Errors) -> dict:
    path = _METADATA
    meta = get_dict(obj, "metadata", _ROOT, errs)
    if not isinstance(meta, dict):
        meta = {}
    name = get_str(meta, "name", path, errs)
    if name is None or name == "":
        errs.append(required(path.child("name"), "name or generateName is required"))
    elif isinstance(name, str):
        messages = name_fn(name)
        if messages:   # paths are built for errors only: most objects have none
            errs.extend(messages_as_errors(messages, path.child("name"), name))
    namespace = get_str(meta, "namespace", path, errs)
    if namespaced:
        if namespace is None or namespace == "":
            errs.append(required(path.child("namespace"), ""))
        elif isinstance(namespace, str):
            messages = is_dns1123_label(namespace)
            if messages:
                errs.extend(messages_as_errors(messages, path.child("namespace"), namespace))
    elif isinstance(namespace, str) and namespace:
        errs.append(forbidden(path.child("namespace"), "not allowed on this type"))
    validate_time(meta, "creationTimestamp", path, errs)
    generation = get_int(meta, "generation", path, errs)
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(path.child("generation"), generation, "must be greater than or equal to 0"))
    _validate_labels(meta, path, errs)
    _validate_annotations(meta, path, errs)
    return meta


def _string_map(meta: dict, key: str, path: Path, errs: Errors) -> list[tuple[str, str]]:
    value = get_dict(meta, key, path, errs)
    if not isinstance(value, dict):
        return []
    out = []
    for k, v in value.items():
        if not isinstance(k, str):
            errs.append(type_error(path.child(key), k, "a map of strings"))
        elif v is not None and not isinstance(v, str):
            errs.append(type_error(path.child(key).key(k), v, "a string"))
        else:
            out.append((k, v or ""))
    return out


def _validate_labels(meta: dict, path: Path, errs: Errors) -> None:
    """k8s: metav1validation.ValidateLabels — key errors on `labels`, value errors on `labels`."""
    lpath = path.child("labels")
    for k, v in _string_map(meta, "labels", path, errs):
        errs.extend(validate_label_name(k, lpath))
        errs.extend(validate_label_value(v, lpath))


def _validate_annotations(meta: dict, path: Path, errs: Errors) -> None:
    apath = path.child("annotations")
    items = _string_map(meta, "annotations", path, errs)
    for k, _ in items:
        errs.extend(messages_as_errors(is_qualified_name(k.lower()), apath, k))
    if sum(byte_len(k) + byte_len(v) for k, v in items) > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(apath, TOTAL_ANNOTATION_SIZE_LIMIT))


def meta_name(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def json_bytes(value: Any) -> bytes:
    """The compact JSON encoding of a decoded value (what a RawExtension holds)."""
    try:
        return json.dumps(value, separators=(",", ":"), default=str).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        return repr(value).encode("utf-8", "surrogatepass")


# --- resource names (k8s: pkg/apis/core/v1/helper/helpers.go) --------------------------------------
RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."


def is_native_resource(name: str) -> bool:
    """No domain, or a domain containing `kubernetes.io/` (implicit DRA names are native, §4.3)."""
    return "/" not in name or RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """Not native, not `requests.`-prefixed, and `requests.<name>` is a qualified name."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_overcommit_allowed(name: str) -> bool:
    """k8s: helper.IsOvercommitAllowed — native, non-hugepage resources may overcommit."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


from drasim.api.validation import metaclean  # noqa: E402  (it reads this module's checks)
