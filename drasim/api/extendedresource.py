"""Extended resource names served by DRA, and the name -> DeviceClass cache.

spec §2 (extended-resources.md). A container resource such as `example.com/gpu`
or `deviceclass.resource.kubernetes.io/gpu-class` can be served by DRA devices
when a DeviceClass answers to that name: explicitly (`spec.extendedResourceName`)
or implicitly (every class `C` answers to `deviceclass.resource.kubernetes.io/C`).

k8s: staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/extendedresourcecache.go
"""
from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

__all__ = [
    "IMPLICIT_PREFIX",
    "ExtendedResourceCache",
    "implicit_name",
    "is_dra_extended_resource_name",
    "is_extended_resource_name",
    "is_native_resource_name",
    "is_qualified_name",
]

# k8s: staging/src/k8s.io/api/resource/v1/types.go (ResourceDeviceClassPrefix)
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
# k8s: staging/src/k8s.io/api/core/v1/types.go (DefaultResourceRequestsPrefix, ResourceDefaultNamespacePrefix)
REQUESTS_PREFIX = "requests."
_DEFAULT_NAMESPACE = "kubernetes.io/"

# k8s: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName)
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")


def is_qualified_name(value: str) -> bool:
    """`[prefix/]name`: prefix a DNS-1123 subdomain (<= 253), name 1-63 chars. k8s: IsQualifiedName."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(_QUALIFIED_NAME_PART.match(name))


def is_native_resource_name(name: str) -> bool:
    """Unprefixed names and names in the `*kubernetes.io/` namespace. k8s: helper.IsNativeResource"""
    return "/" not in name or _DEFAULT_NAMESPACE in name


@lru_cache(maxsize=4096)   # a hot-path predicate over few distinct names
def is_extended_resource_name(name: str) -> bool:
    """k8s: pkg/apis/core/v1/helper/helpers.go IsExtendedResourceName.

    Not native, not `requests.`-prefixed (that is quota's namespace), and
    `requests.<name>` must be a qualified name so quota can track it.
    """
    if is_native_resource_name(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return is_qualified_name(REQUESTS_PREFIX + name)


def is_dra_extended_resource_name(name: str) -> bool:
    """spec §2.1: an extended resource name, or any implicit class name.

    k8s: pkg/scheduler/util/utils.go IsDRAExtendedResourceName. The implicit
    prefix is only a prefix test: the class part is not validated here.
    """
    return is_extended_resource_name(name) or name.startswith(IMPLICIT_PREFIX)


def implicit_name(class_name: str) -> str:
    """spec §2.3: the name every DeviceClass answers to."""
    return IMPLICIT_PREFIX + class_name


def _creation_seconds(device_class: dict) -> float:
    """metadata.creationTimestamp as whole Unix seconds (metav1.Time precision, spec §2.7).

    A missing timestamp sorts before every real one (Go's zero time).
    """
    text = (device_class.get("metadata") or {}).get("creationTimestamp")
    if not text:
        return float("-inf")
    if isinstance(text, datetime):
        return float(int(text.timestamp() // 1))
    stamp = datetime.fromisoformat(str(text).replace("Z", "+00:00").replace("z", "+00:00"))
    return float(int(stamp.timestamp() // 1))


def _explicit(device_class: dict) -> str | None:
    return (device_class.get("spec") or {}).get("extendedResourceName")


def _name(device_class: dict) -> str:
    return device_class["metadata"]["name"]


class ExtendedResourceCache:
    """Event-driven resolver: resource name -> DeviceClass (spec §2.4, §2.7-§2.10).

    Fed by DeviceClass add/update/delete events in informer order; the result
    depends on that order exactly as Kubernetes' cache does (spec §2.9, §12.3).
    """

    __slots__ = ("_by_resource", "_explicit_of")

    def __init__(self) -> None:
        # resource name -> (class name, creation second, class object)
        self._by_resource: dict[str, tuple[str, float, dict]] = {}
        # class name -> its own explicit name (spec §2.10, kept for quota)
        self._explicit_of: dict[str, str] = {}

    # --- queries -----------------------------------------------------------------

    def class_for(self, resource_name: str) -> str | None:
        """The DeviceClass name that serves *resource_name*, if any. k8s: GetDeviceClass"""
        entry = self._by_resource.get(resource_name)
        return entry[0] if entry is not None else None

    def device_class_for(self, resource_name: str) -> dict | None:
        """The DeviceClass object stored for *resource_name* (the version that won the mapping)."""
        entry = self._by_resource.get(resource_name)
        return entry[2] if entry is not None else None

    def explicit_name_of(self, class_name: str) -> str | None:
        """The class's own `extendedResourceName`, whoever owns it (spec §2.10). k8s: GetExtendedResource"""
        return self._explicit_of.get(class_name)

    def resource_names(self) -> dict[str, str]:
        """A copy of the resolvable names: resource name -> class name."""
        return {name: entry[0] for name, entry in self._by_resource.items()}

    # --- events ------------------------------------------------------------------

    def on_add(self, device_class: dict) -> None:
        self._update_mappings(device_class, None)
        self._update_explicit_of(device_class)

    def on_update(self, old: dict, new: dict) -> None:
        self._update_mappings(new, old)
        self._update_explicit_of(new)

    def on_delete(self, device_class: dict) -> None:
        # spec §2.9: the explicit mapping goes even if another class owns that name now.
        self._by_resource.pop(implicit_name(_name(device_class)), None)
        explicit = _explicit(device_class)
        if explicit is not None:
            self._by_resource.pop(explicit, None)
        self._explicit_of.pop(_name(device_class), None)

    # --- internals ---------------------------------------------------------------

    def _update_mappings(self, new: dict, old: dict | None) -> None:
        """k8s: updateResourceName2class. The newer class wins a shared explicit name;
        on an equal second the smaller name wins; a loser's event is ignored entirely
        (not even its implicit name is stored), spec §2.7."""
        name, created, explicit = _name(new), _creation_seconds(new), _explicit(new)
        holder = self._by_resource.get(explicit) if explicit is not None else None
        if holder is not None:
            _, held_created, _ = holder
            if created < held_created:
                return
            if created == held_created and name >= holder[0]:
                return
        if old is not None:
            # spec §2.9: drops the old explicit mapping unconditionally.
            self._by_resource.pop(implicit_name(_name(old)), None)
            old_explicit = _explicit(old)
            if old_explicit is not None:
                self._by_resource.pop(old_explicit, None)
        entry = (name, created, new)
        if explicit is not None:
            self._by_resource[explicit] = entry
        self._by_resource[implicit_name(name)] = entry

    def _update_explicit_of(self, device_class: dict) -> None:
        explicit = _explicit(device_class)
        if explicit is None:
            self._explicit_of.pop(_name(device_class), None)
        else:
            self._explicit_of[_name(device_class)] = explicit
