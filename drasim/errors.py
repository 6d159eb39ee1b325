"""The one error hierarchy of drasim.

    DrasimError
      InputError        user input; the CLI prints it as one line and exits 1
        ManifestError   unreadable YAML/JSON, unknown kind or apiVersion, unknown field
        InvalidObject   an object the API server would reject (field errors)
      AllocationError   bad claim or class data found during allocation (fatal for a cycle)
      InternalError     a bug; a traceback is appropriate

Inside the scheduler, outcomes are Status values; exceptions cross layer boundaries.
"""
from __future__ import annotations


class DrasimError(Exception):
    """Base class of every error drasim raises on purpose."""


class InputError(DrasimError):
    """Bad user input: the CLI prints the message and exits non-zero."""


class ManifestError(InputError):
    """A manifest that cannot be read or decoded (syntax, kind, apiVersion, unknown field)."""


class InvalidObject(InputError):
    """An object the API server rejects, with its field errors.

    str() reads like the API server: `DeviceClass.resource.k8s.io "gpu" is invalid: spec...: Invalid value: ...`
    """

    def __init__(self, kind_group: str, name: str, errors: list, source: str = "") -> None:
        self.kind_group = kind_group
        self.name = name
        self.errors = list(errors)
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        # k8s: apimachinery/pkg/api/errors/errors.go NewInvalid: `%s %q is invalid: %v` with
        # ErrorList.ToAggregate(), which drops repeated messages and brackets several.
        from drasim.api.fielderrors import aggregate_message, go_quote

        prefix = f"{self.source}: " if self.source else ""
        return f"{prefix}{self.kind_group} {go_quote(self.name)} is invalid: {aggregate_message(self.errors)}"


class AllocationError(DrasimError):
    """Bad claim or class data found while allocating; aborts the pod's scheduling cycle."""


class InternalError(DrasimError):
    """A bug in drasim."""
