"""Phase operations: `kubectl delete` and `kubectl scale` as a document of a phase.

A phase is otherwise a set of manifests applied like `kubectl apply -f`. To delete objects or
scale workloads between phases, a phase may hold a drasim document (never stored, never in
the output):

    apiVersion: drasim.io/v1alpha1
    kind: PhaseOperations
    delete:                       # kubectl delete deployment demo [-n NS] [--cascade=...]
    - kind: Deployment            # apiVersion is optional (apps/v1 here)
      name: demo
      namespace: default          # namespaced kinds: "default" when left out
      cascade: background         # background (default) | foreground | orphan
    scale:                        # kubectl scale deployment demo --replicas=5
    - kind: Deployment
      name: demo
      replicas: 5

Order within a phase: the manifests are admitted and written first, then the deletes, then
the scales, then the cluster settles. Every target is checked before anything is written, so
a phase naming an object that does not exist changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from drasim.api import kinds
from drasim.errors import ManifestError

API_VERSION = "drasim.io/v1alpha1"
KIND = "PhaseOperations"
CASCADE = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan"}


@dataclass(frozen=True)
class Target:
    source: str          # "phase.yaml#2 delete[0]"
    kind: kinds.Kind
    namespace: str | None
    name: str


@dataclass(frozen=True)
class Delete(Target):
    propagation: str = "Background"


@dataclass(frozen=True)
class Scale(Target):
    replicas: int = 0


def is_operations(obj: dict) -> bool:
    return obj.get("apiVersion") == API_VERSION and obj.get("kind") == KIND


def _target(entry, where: str) -> tuple[kinds.Kind, str | None, str]:
    if not isinstance(entry, dict):
        raise ManifestError(f"{where}: must be an object with kind and name")
    kind_name, name = entry.get("kind"), entry.get("name")
    if not isinstance(kind_name, str) or not kind_name:
        raise ManifestError(f"{where}.kind: Required value")
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{where}.name: Required value")
    kind = kinds.BY_KIND.get(kind_name)
    api_version = entry.get("apiVersion")
    if kind is None or kind is kinds.EVENT or (api_version is not None and api_version != kind.api_version):
        shown = f'"{kind_name}" in version "{api_version}"' if api_version else f'"{kind_name}"'
        raise ManifestError(f"{where}: no matches for kind {shown}")
    namespace = entry.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise ManifestError(f"{where}.namespace: must be a string")
    if kind.namespaced:
        namespace = namespace or "default"
    elif namespace:
        raise ManifestError(f"{where}.namespace: {kind.kind} is not namespaced")
    else:
        namespace = None
    return kind, namespace, name


_FIELDS = {"delete": ("apiVersion", "kind", "name", "namespace", "cascade"),
           "scale": ("apiVersion", "kind", "name", "namespace", "replicas")}


def parse(obj: dict, source: str) -> list[Target]:
    """The operations of one PhaseOperations document, in order; raises ManifestError."""
    unknown = sorted(k for k in obj if k not in ("apiVersion", "kind", "metadata", "delete", "scale"))
    if unknown:
        raise ManifestError(f'{source}: {KIND} in version "v1alpha1" cannot be handled as a {KIND}: '
                            f"strict decoding error: " + ", ".join(f'unknown field "{k}"' for k in unknown))
    out: list[Target] = []
    for section in ("delete", "scale"):
        entries = obj.get(section)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise ManifestError(f"{source}: {section}: must be a list")
        for i, entry in enumerate(entries):
            where = f"{source} {section}[{i}]"
            kind, namespace, name = _target(entry, where)
            extra = sorted(k for k in entry if k not in _FIELDS[section])
            if extra:
                raise ManifestError(f'{where}: unknown field "{extra[0]}"')
            if section == "delete":
                cascade = entry.get("cascade", "background")
                if cascade not in CASCADE:
                    raise ManifestError(f'{where}.cascade: Unsupported value: "{cascade}": supported values: '
                                        '"background", "foreground", "orphan"')
                out.append(Delete(where, kind, namespace, name, CASCADE[cascade]))
            else:
                replicas = entry.get("replicas")
                if isinstance(replicas, bool) or not isinstance(replicas, int):
                    raise ManifestError(f"{where}.replicas: Required value: an integer (kubectl scale --replicas)")
                if kind.kind not in kinds.SCALABLE:
                    raise ManifestError(f"{where}: {kind.resource} has no scale subresource "
                                        "(the server could not find the requested resource)")
                out.append(Scale(where, kind, namespace, name, replicas))
    if not out:
        raise ManifestError(f"{source}: {KIND} lists no delete or scale operations")
    return out
