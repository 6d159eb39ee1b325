"""Fine-grained authorization of ResourceClaim status writes (DRAResourceClaimGranularStatusAuthorization,
beta and on by default since v1.36).

k8s: pkg/registry/resource (AuthorizedForBinding, AuthorizedForDeviceStatus, getModifiedDrivers,
saAssociatedWithAllocatedNode), called from pkg/registry/resource/resourceclaim/strategy.go's status
ValidateUpdate. Beyond `resourceclaims/status`:
- changing status.allocation or status.reservedFor needs the request's verb on the synthetic
  `resourceclaims/binding`, cluster-wide, no name;
- changing status.devices needs, per driver whose entries were added, removed or changed,
  `arbitrary-node:<verb>` on `resourceclaims/driver` named after the driver (in the claim's namespace),
  or `associated-node:<verb>` tried first when the requester is a service account bound to the
  claim's allocated node (the `authentication.kubernetes.io/node-name` extra of a node-bound token —
  static tokens carry none, so here only arbitrary-node grants it).
A refusal is a 422 Invalid with a Forbidden field error that carries the Forbidden message.
"""
from __future__ import annotations

import json

from drasim.auth.attributes import Attributes
from drasim.server import status as st
from drasim.server.security import forbidden


def _device_key(d: dict) -> tuple:
    return (d.get("driver"), d.get("pool"), d.get("device"), d.get("shareID") or "")


def modified_drivers(new_status: dict, old_status: dict) -> set[str]:
    old = {_device_key(d): d for d in old_status.get("devices") or () if isinstance(d, dict)}
    drivers: set[str] = set()
    for d in new_status.get("devices") or ():
        if not isinstance(d, dict):
            continue
        before = old.pop(_device_key(d), None)
        if before is None or before != d:
            drivers.add(d.get("driver", ""))
    drivers.update(d.get("driver", "") for d in old.values())
    return drivers


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True)


def check(decide, a: Attributes, claim_name: str, new: dict, old: dict) -> None:
    """Raise the 422 kube-apiserver answers when the status write lacks the synthetic permissions."""
    new_status, old_status = new.get("status") or {}, old.get("status") or {}
    errors = []
    if (_canon(new_status.get("allocation")) != _canon(old_status.get("allocation"))
            or _canon(new_status.get("reservedFor") or None) != _canon(old_status.get("reservedFor") or None)):
        binding = Attributes(a.user, a.verb, True, a.api_group, a.api_version, "resourceclaims", "binding", "", "")
        if not decide(binding).allowed:
            errors.append(("status", f'changing status.allocation or status.reservedFor requires '
                                     f'resource="resourceclaims/binding", verb="{a.verb}" permission: '
                                     f'{forbidden(binding).message}'))
    verbs = [f"arbitrary-node:{a.verb}"]   # no node-bound service-account tokens here (see above)
    for driver in sorted(modified_drivers(new_status, old_status)):
        tries = [Attributes(a.user, v, True, a.api_group, a.api_version, "resourceclaims", "driver", a.namespace,
                            driver) for v in verbs]
        if not any(decide(t).allowed for t in tries):
            errors.append(("status.devices", f'changing status.devices requires resource="resourceclaims/driver", '
                                             f'verb="[{" ".join(verbs)}]" permission: {forbidden(tries[0]).message}'))
    if errors:
        causes = [{"reason": "FieldValueForbidden", "message": f"Forbidden: {m}", "field": f} for f, m in errors]
        text = "; ".join(f"{f}: Forbidden: {m}" for f, m in errors)
        text = text if len(errors) == 1 else f"[{text}]"
        raise st.ApiError(422, "Invalid", f'ResourceClaim.resource.k8s.io "{claim_name}" is invalid: {text}',
                          {"name": claim_name, "group": "resource.k8s.io", "kind": "ResourceClaim", "causes": causes})
