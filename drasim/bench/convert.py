"""Older resource.k8s.io versions in the copied templates, converted to v1 (README §7.5).

v1.37 serves resource.k8s.io/v1 only; the API server of the upstream run would convert.
- v1beta2 has the v1 shape: only apiVersion changes.
- v1alpha3 and v1beta1 requests carry deviceClassName, selectors, allocationMode, count,
  adminAccess, tolerations and capacity directly; v1 puts them under `exactly`.
  `firstAvailable` subrequests have the same shape in every version.
  (k8s: staging/src/k8s.io/api/resource/v1beta1/types.go DeviceRequest)
- v1alpha3/v1beta1 ResourceSlice devices wrap their fields in `basic`; v1 does not.
- v1alpha3 DeviceTaintRule: same shape; deviceSelector.deviceClassName/selectors were dropped
  in 1.35, so a rule that uses them cannot be converted.
"""
from __future__ import annotations

from drasim.bench.config import ConfigError
from drasim.store import clone

GROUP = "resource.k8s.io"
OLD_VERSIONS = ("v1alpha3", "v1beta1", "v1beta2")
_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                 "capacity")


def to_v1(obj: dict, source: str) -> tuple[dict, str | None]:
    """The object in resource.k8s.io/v1, and a note saying what was converted (None if nothing)."""
    api = obj.get("apiVersion", "")
    group, _, version = api.rpartition("/")
    if group != GROUP or version not in OLD_VERSIONS:
        return obj, None
    kind = obj.get("kind")
    out = clone(obj)
    out["apiVersion"] = f"{GROUP}/v1"
    if version != "v1beta2":
        if kind == "ResourceClaim":
            _convert_claim_spec(out.get("spec"))
        elif kind == "ResourceClaimTemplate":
            _convert_claim_spec((out.get("spec") or {}).get("spec"))
        elif kind == "ResourceSlice":
            _unwrap_basic(out.get("spec"))
        elif kind == "DeviceTaintRule":
            selector = (out.get("spec") or {}).get("deviceSelector") or {}
            dropped = [f for f in ("deviceClassName", "selectors") if selector.get(f)]
            if dropped:
                raise ConfigError(f"{source}: DeviceTaintRule {api}: deviceSelector.{dropped[0]} "
                                  "has no resource.k8s.io/v1 equivalent")
    return out, f"{kind} converted from {api} to {GROUP}/v1"


def _convert_claim_spec(spec: dict | None) -> None:
    requests = ((spec or {}).get("devices") or {}).get("requests") or []
    for request in requests:
        if not isinstance(request, dict) or "exactly" in request or "firstAvailable" in request:
            continue
        exactly = {f: request.pop(f) for f in _EXACT_FIELDS if f in request}
        if exactly:
            request["exactly"] = exactly


def _unwrap_basic(spec: dict | None) -> None:
    for device in (spec or {}).get("devices") or []:
        basic = device.pop("basic", None) if isinstance(device, dict) else None
        if isinstance(basic, dict):
            device.update(basic)
