"""What an update may change in a Pod's spec.

k8s: pkg/apis/core/validation/validation.go ValidatePodUpdate (with ValidateContainerUpdates,
validateOnlyAddedTolerations, validateOnlyDeletedSchedulingGates). A pod's spec is immutable
but for its containers' and init containers' images, activeDeadlineSeconds (set, or lowered),
tolerations (additions, and tolerationSeconds), schedulingGates (removals) and
terminationGracePeriodSeconds (to 1 from a negative value); a gated pod may also change its
node selector and node affinity (drasim lets it change them freely: Kubernetes allows only
additions). Anything else is the Forbidden error whose message lists those fields and the
difference (cmp.Diff's content, as `path: old → new` on the same line).

Binding (spec.nodeName) goes through pods/binding, never through an update of the pod.
"""
from __future__ import annotations

import json

from drasim.api.fielderrors import Path, forbidden, invalid, required
from drasim.api.validation.common import Errors

_MAX_INT32 = 2**31 - 1
UPDATABLE_FIELDS = ",".join((
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
))


def validate_pod_spec_update(spec: dict, old_spec: dict, errs: Errors) -> None:
    """Append ValidatePodUpdate's spec errors, in its order, for a change from old_spec to spec."""
    path = Path("spec")
    for key in ("containers", "initContainers"):
        if _container_updates(_list(spec, key), _list(old_spec, key), path.child(key), errs):
            return
    deadline, old_deadline = spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    deadline_path = path.child("activeDeadlineSeconds")
    if isinstance(deadline, int) and not isinstance(deadline, bool):
        if not 0 <= deadline <= _MAX_INT32:
            errs.append(invalid(deadline_path, deadline, f"must be between 0 and {_MAX_INT32}, inclusive"))
            return
        if isinstance(old_deadline, int) and old_deadline < deadline:
            errs.append(invalid(deadline_path, deadline, "must be less than or equal to previous value"))
            return
    elif deadline is None and old_deadline is not None:
        errs.append(invalid(deadline_path, None, "must not update from a positive integer to nil value"))
    _only_added_tolerations(_list(spec, "tolerations"), _list(old_spec, "tolerations"), path.child("tolerations"), errs)
    _only_deleted_gates(_list(spec, "schedulingGates"), _list(old_spec, "schedulingGates"),
                        path.child("schedulingGates"), errs)
    if spec == old_spec:
        return
    munged = _munged(spec, old_spec)
    if munged != old_spec:
        errs.append(forbidden(path, f"pod updates may not change fields other than {UPDATABLE_FIELDS} "
                                    f"({_diff(old_spec, munged)})"))


def _list(spec: dict, key: str) -> list:
    value = spec.get(key)
    return value if isinstance(value, list) else []


def _container_updates(new: list, old: list, path: Path, errs: Errors) -> bool:
    """k8s: ValidateContainerUpdates; True when the rest is not checked (containers added or removed)."""
    if len(new) != len(old):
        errs.append(forbidden(path, "pod updates may not add or remove containers"))
        return True
    for i, container in enumerate(new):
        image = container.get("image") if isinstance(container, dict) else None
        if not image:
            errs.append(required(path.index(i).child("image")))
        elif isinstance(image, str) and image.strip() != image:
            errs.append(invalid(path.index(i).child("image"), image, "must not have leading or trailing whitespace"))
    return False


def _only_added_tolerations(new: list, old: list, path: Path, errs: Errors) -> None:
    """k8s: validateOnlyAddedTolerations — every old toleration is still there (tolerationSeconds aside)."""
    def without_seconds(t):
        return {k: v for k, v in t.items() if k != "tolerationSeconds"} if isinstance(t, dict) else t
    kept = [without_seconds(t) for t in new]
    for toleration in old:
        if without_seconds(toleration) not in kept:
            errs.append(forbidden(path, "existing toleration can not be modified except its tolerationSeconds"))
            return


def _only_deleted_gates(new: list, old: list, path: Path, errs: Errors) -> None:
    """k8s: validateOnlyDeletedSchedulingGates."""
    old_names = {g.get("name") for g in old if isinstance(g, dict)}
    for i, gate in enumerate(new):
        name = gate.get("name") if isinstance(gate, dict) else None
        if name not in old_names:
            errs.append(forbidden(path.index(i).child("name"),
                                  f"only deletion is allowed, but found new scheduling gate '{name}'"))


def _munged(spec: dict, old_spec: dict) -> dict:
    """The new spec with the fields an update may change taken from the old one (k8s: mungedPodSpec)."""
    munged = dict(spec)
    for key in ("containers", "initContainers"):
        new_list, old_list = _list(spec, key), _list(old_spec, key)
        if new_list:
            munged[key] = [dict(c, image=o.get("image")) if isinstance(c, dict) and isinstance(o, dict) else c
                           for c, o in zip(new_list, old_list)]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        _take(munged, old_spec, key)
    grace, old_grace = munged.get("terminationGracePeriodSeconds"), old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if _list(old_spec, "schedulingGates"):   # a gated pod's placement may still change
        _take(munged, old_spec, "nodeSelector")
        affinity, old_affinity = munged.get("affinity"), old_spec.get("affinity")
        if isinstance(affinity, dict) or isinstance(old_affinity, dict):
            merged = {k: v for k, v in (affinity or {}).items() if k != "nodeAffinity"}
            if isinstance(old_affinity, dict) and "nodeAffinity" in old_affinity:
                merged["nodeAffinity"] = old_affinity["nodeAffinity"]
            if merged or old_affinity is not None:
                munged["affinity"] = merged
            else:
                munged.pop("affinity", None)
    return munged


def _take(munged: dict, old_spec: dict, key: str) -> None:
    if key in old_spec:
        munged[key] = old_spec[key]
    else:
        munged.pop(key, None)


def _diff(old: dict, new: dict) -> str:
    """The leaves that differ, `path: old → new` (cmp.Diff's content on one line: drasim's errors are one line)."""
    changes: list[str] = []
    _diff_into(old, new, "spec", changes)
    shown = changes[:_MAX_CHANGES_SHOWN]
    more = len(changes) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")


_MAX_CHANGES_SHOWN = 5
_ABSENT = object()


def _diff_into(old: object, new: object, path: str, out: list[str]) -> None:
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            _diff_into(old.get(key, _ABSENT), new.get(key, _ABSENT), f"{path}.{key}", out)
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            _diff_into(old[i] if i < len(old) else _ABSENT, new[i] if i < len(new) else _ABSENT, f"{path}[{i}]", out)
    else:
        out.append(f"{path}: {_text(old)} → {_text(new)}")


def _text(value: object) -> str:
    if value is _ABSENT:
        return "<none>"
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str, ensure_ascii=False)
