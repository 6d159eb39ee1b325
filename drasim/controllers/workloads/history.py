"""Revision names of StatefulSet and DaemonSet templates (ControllerRevisions are not stored: a
revision is its template hash), and SafeEncodeString, which the Deployment's pod-template-hash
uses too.

k8s: pkg/controller/history/controller_history.go (HashControllerRevision, ControllerRevisionName),
     pkg/controller/{statefulset,daemonset} getPatch, apimachinery util/rand SafeEncodeString.
"""
from __future__ import annotations

import json

CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"   # k8s: util/rand alphanums


def safe_encode(text: str) -> str:
    """k8s: rand.SafeEncodeString."""
    return "".join(_ALPHANUMS[ord(ch) % len(_ALPHANUMS)] for ch in text)


def template_hash(template: dict, collision_count: int = 0) -> str:
    """A ControllerRevision hash of a pod template: FNV-1 (32 bit) over the revision's data, the JSON
    patch `{"spec":{"template":{..., "$patch":"replace"}}}`, safe-encoded (k8s: history.HashControllerRevision,
    statefulset/daemonset getPatch). The shape is Kubernetes'; the value cannot equal the one a
    cluster shows, because the API server's template carries defaults drasim does not fill
    (imagePullPolicy, terminationMessagePath, securityContext, ...) and Go's encoder orders fields
    by struct, not by name. It is deterministic: the same template gives the same hash."""
    patch = {"spec": {"template": dict(template, **{"$patch": "replace"})}}
    data = json.dumps(patch, sort_keys=True, separators=(",", ":")).encode()
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= byte
    if collision_count:
        for byte in str(collision_count).encode():
            h = (h * 0x01000193) & 0xFFFFFFFF
            h ^= byte
    return safe_encode(str(h))


class RevisionNames:
    """The revision name of an object's current template, per object uid.

    A snapshot of a live cluster carries Kubernetes' own revision names (which drasim's hash cannot
    reproduce, see template_hash): the first time an object is seen, `seed` (what its status or its
    pods say) names its template as it is then, so replaying the snapshot does not roll its pods.
    A later template change gets drasim's hash."""

    def __init__(self) -> None:
        self._names: dict[str, dict[str, str]] = {}

    def name(self, uid: str, computed: str, seed: str | None) -> str:
        known = self._names.get(uid)
        if known is None:
            known = self._names[uid] = {computed: seed or computed}
        return known.setdefault(computed, computed)


__all__ = ["CONTROLLER_REVISION_HASH_LABEL", "RevisionNames", "safe_encode", "template_hash"]
