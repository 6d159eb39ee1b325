"""The NamespaceLifecycle admission plugin, for creates.

k8s: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go (Admit),
     staging/src/k8s.io/apiserver/pkg/admission/errors.go (NewForbidden, extractResourceName),
     pkg/controlplane/controller/systemnamespaces (default, kube-system, kube-public, kube-node-lease).

- A namespaced object in a namespace that does not exist is refused with the namespace lookup's
  NotFound: `namespaces "x" not found`. drasim admits a whole phase at once, so a Namespace
  created anywhere in the same phase counts as existing.
- A namespace being deleted (phase Terminating) refuses new objects: `<resource> "<name>" is
  forbidden: unable to create new content in namespace x because it is being terminated`
  (the name is the generateName when the server has not named the object yet, as in k8s).
"""
from __future__ import annotations

from drasim.api import kinds
from drasim.errors import InputError
from drasim.store import MemoryStore

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


class NamespaceNotFound(InputError):
    """k8s: StatusReasonNotFound for the namespace."""


class NamespaceTerminating(InputError):
    """k8s: Forbidden with the NamespaceTerminatingCause."""


class PendingNamespaces(list):
    """The Namespaces of a phase, with their names gathered once (a snapshot's objects ask for
    them hundreds of thousands of times). A name cannot change once set; one given later (a
    generateName, named when admitted) is looked for as before."""

    def __init__(self, namespaces) -> None:
        super().__init__(namespaces)
        names = [_name_of(o) for o in self if o.get("kind") == "Namespace"]
        self.names = frozenset(n for n in names if isinstance(n, str) and n)
        self.all_named = len(self.names) == len(names)

    def has(self, ns: str) -> bool:
        if ns in self.names:
            return True
        return not self.all_named and _named_in(self, ns)


def _name_of(namespace: dict):
    """The name a Namespace document gives, or None; a metadata of the wrong type is decoding's
    to report (it runs after the phase's namespaces are gathered)."""
    md = namespace.get("metadata")
    return md.get("name") if isinstance(md, dict) else None


def _named_in(pending, ns: str) -> bool:
    return any(o.get("kind") == "Namespace" and _name_of(o) == ns for o in pending)


def admission_error(store: MemoryStore, kind: kinds.Kind, obj: dict, pending: list[dict] = (),
                    source: str = "", name: str | None = None) -> InputError | None:
    """Why the create of obj is refused, or None. `pending`: objects admitted earlier in the phase."""
    if not kind.namespaced:
        return None
    md = obj.get("metadata") or {}
    ns = md.get("namespace") or "default"
    prefix = f"{source}: " if source else ""
    namespace = store.get("Namespace", None, ns)
    if namespace is None:
        if pending.has(ns) if isinstance(pending, PendingNamespaces) else _named_in(pending, ns):
            return None
        return NamespaceNotFound(f'{prefix}namespaces "{ns}" not found')
    if (namespace.get("status") or {}).get("phase") == "Terminating":
        shown = name if name is not None else (md.get("name") or md.get("generateName") or "Unknown")
        return NamespaceTerminating(f'{prefix}{kind.resource} "{shown}" is forbidden: unable to create new content '
                                    f"in namespace {ns} because it is being terminated")
    return None
