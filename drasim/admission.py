"""The API server's write path for a create or update: strict decoding, defaulting, naming,
validation and quota admission — in that order, as kube-apiserver does it.

k8s: staging/src/k8s.io/apiserver/pkg/registry/rest (BeforeCreate/BeforeUpdate),
     the resource strategies (PrepareForCreate drops status for some kinds),
     plugin/pkg/admission/resourcequota.
Used by ControlPlane.apply (phases of manifests), ControlPlane.create (clients such as the
benchmark runner) and, later, the HTTP API server. Every check happens before anything is
stored, so a rejected request changes nothing.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from drasim import featuregates, priorityadmission
from drasim.api import decode, kinds
from drasim.api.decodedjson import copy_decoded
from drasim.api.defaults import apply_defaults
from drasim.api.fielderrors import forbidden
from drasim.api.workloaddefaults import prepare_for_create
from drasim.api.validation import DROPPED_ON_CREATE, validate_object
from drasim.controllers.quotaadmission import QuotaBatch, admission_error_for
from drasim.disabledfields import drop_disabled_fields
from drasim.errors import InputError, InvalidObject, ManifestError
from drasim.store import MemoryStore, clone

QUOTA_ADMITTED = ("Pod", "ResourceClaim")


def decode_body(kind: kinds.Kind, obj: dict, source: str) -> dict:
    """The request body decoded into the kind's Go type, before anything else reads it: a value
    of the wrong type, a malformed quantity or time, an unknown field (kubectl's default
    --validate=strict) fails with the decoder's message; raises ManifestError.

    k8s: apiserver/pkg/endpoints/handlers/rest.go transformDecodeError wraps it as
    `<Kind> in version "<v>" cannot be handled as a <Kind>: <error>` (api/decode.py)."""
    try:
        return decode.decode(kind.kind, obj)
    except decode.DecodeError as e:
        raise ManifestError(f'{source}: {kind.kind} in version "{kind.version}" cannot be handled as a '
                            f"{kind.kind}: {e}") from None


ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def admin_access_errors(store: MemoryStore, kind: kinds.Kind, obj: dict, pending: list[dict] = ()) -> list:
    """Admin access needs the namespace label (k8s: pkg/registry/resource/utils.go; allocator.md §3.12).

    Namespaces created earlier in the same phase count (`pending`)."""
    if kind.kind == "ResourceClaim":
        spec, prefix = obj.get("spec"), "spec"
    elif kind.kind == "ResourceClaimTemplate":
        spec, prefix = (obj.get("spec") or {}).get("spec") if isinstance(obj.get("spec"), dict) else None, "spec.spec"
    else:
        return []
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    wanted = [i for i, r in enumerate(requests if isinstance(requests, list) else ()) if isinstance(r, dict)
              and isinstance(r.get("exactly"), dict) and r["exactly"].get("adminAccess") is True]
    if not wanted:
        return []
    ns = obj["metadata"].get("namespace")
    namespace = store.get("Namespace", None, ns) or next(
        (o for o in pending if o.get("kind") == "Namespace" and o["metadata"].get("name") == ns), None)
    labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
    if labels.get(ADMIN_ACCESS_LABEL) == "true":
        return []
    return [forbidden(f"{prefix}.devices.requests[{i}].exactly.adminAccess",
                      "admin access to devices requires the `resource.kubernetes.io/admin-access: true` "
                      "label on the containing namespace") for i in wanted]


def prepare(store: MemoryStore, kind: kinds.Kind, obj: dict, old: dict | None, source: str,
            pending: list[dict] = (), gates: Mapping[str, bool] = featuregates.DEFAULTS,
            decoded: bool = False, owned: bool = False, phase_classes: Sequence[dict] = ()) -> dict:
    """A decoded, defaulted, named and validated copy of obj, ready to store; raises InputError.
    `phase_classes`: the PriorityClasses of the phase being admitted, not stored yet.
    `decoded`: obj is already what decode_body returned. `owned`: the caller hands obj over
    (nothing else holds or reads it), so it is defaulted in place instead of in a copy."""
    if not decoded:
        obj = decode_body(kind, obj, source)
    if not owned:
        # What the server reads is its own. A kind decoded against its schema holds JSON values
        # only, which orjson copies as they are (drasim/api/decodedjson.py); others the long way.
        obj = copy_decoded(obj) if decode.kind_type(kind.kind) is not None else clone(obj)
    md = obj.setdefault("metadata", {})
    if not isinstance(md, dict):
        raise ManifestError(f"{source}: metadata: must be an object")
    if not md.get("name") and not md.get("generateName") and old is None:
        raise InvalidObject(kind.kind_group, "", ["metadata.name: Required value: name or generateName is required"],
                            source)
    drop_disabled_fields(kind.kind, obj, old, gates)
    if old is None and kind.kind in DROPPED_ON_CREATE:
        obj.pop("status", None)
    given = _requested_priority(obj) if kind.kind == "Pod" else None
    apply_defaults(obj, store.clock.timestamp(), old, namespaced=kind.namespaced)
    # Mutating admission runs before the name is generated (BeforeCreate, below).
    if given is not None:
        priorityadmission.admit_pod(store, obj, given, old, phase_classes, source)
    elif kind.kind == "PriorityClass":
        priorityadmission.validate_priority_class(store, obj, old, phase_classes, source)
    if old is None:   # k8s: BeforeCreate names the object and gives it a uid before validation
        if not md.get("name"):
            md["name"] = store.generate_name(kind, md["generateName"], md.get("namespace") or "")
        store.default_uid(md)
    prepare_for_create(obj, old)   # k8s: Job/DaemonSet PrepareForCreate (needs the uid); kept by apply's merge
    # obj is the decoded body (decode_body, here or by the caller): see status_decoded.
    errors = validate_object(obj, old, gates, status_decoded=True) + admin_access_errors(store, kind, obj, pending)
    if errors:
        name = md.get("name") or md.get("generateName") or ""
        raise InvalidObject(kind.kind_group, name if isinstance(name, str) else "", errors, source)
    return obj


def _requested_priority(pod: dict) -> tuple[object, object]:
    """spec.priority and spec.preemptionPolicy as the request held them, before defaulting."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return priorityadmission.GIVEN_NOTHING
    return spec.get("priority"), spec.get("preemptionPolicy")


def admit(store: MemoryStore, er_cache, kind: kinds.Kind, obj: dict, source: str,
          pending: list[dict] = (), quota_batch: QuotaBatch | None = None, dry_run: bool = False) -> None:
    """Quota admission of a create (k8s: the ResourceQuota admission plugin), which charges it to
    the quotas' status.used; `pending` are the creates admitted before it in the same phase, not
    stored yet, and `quota_batch` the phase's charges (written by its commit); a dry run charges nothing."""
    if kind.kind not in QUOTA_ADMITTED:
        return
    message = admission_error_for(store, er_cache, obj, pending, quota_batch, dry_run)
    if message:
        prefix = f"{source}: " if source else ""
        raise InputError(f'{prefix}{kind.resource} "{obj["metadata"].get("name")}" is forbidden: {message}')
