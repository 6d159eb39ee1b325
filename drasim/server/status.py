"""metav1.Status errors, shaped as the API server writes them.

k8s: staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (NewNotFound, NewAlreadyExists,
     NewConflict, NewInvalid, NewForbidden, NewBadRequest, NewResourceExpired, ...).

drasim's own errors (InvalidObject, StoreError, ManifestError, quota's InputError) are
mapped here onto the reason, code, details and causes a client library checks.
"""
from __future__ import annotations

import re

from drasim.api.kinds import Kind
from drasim.errors import InputError, InvalidObject, ManifestError
from drasim.store import StoreError
from drasim.store.sqlite import StorageError


class ApiError(Exception):
    """A request refused with a metav1.Status (raised by handlers, written by the app)."""

    def __init__(self, code: int, reason: str, message: str, details: dict | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> dict:
        body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": self.message, "reason": self.reason, "code": self.code}
        if self.details is not None:
            body["details"] = self.details
        return body


def success_status(details: dict | None = None) -> dict:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details is not None:
        body["details"] = details
    return body


def _details(kind: Kind | None, name: str | None, *, kind_field: str | None = None) -> dict:
    out: dict = {}
    if name:
        out["name"] = name
    if kind is not None:
        if kind.group:
            out["group"] = kind.group
        out["kind"] = kind_field or kind.plural
    return out


def not_found(kind: Kind, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{kind.resource} "{name}" not found', _details(kind, name))


def namespace_not_found(name: str) -> ApiError:
    # k8s: plugin/pkg/admission/namespace/lifecycle: the namespace's own NotFound.
    return ApiError(404, "NotFound", f'namespaces "{name}" not found', {"name": name, "kind": "namespaces"})


def path_not_found() -> ApiError:
    # k8s: the mux's NotFound handler (genericapiserver), with empty details.
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def method_not_allowed(method: str) -> ApiError:
    # k8s: errors.NewMethodNotSupported — `%s is not supported on resources of kind %q`.
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})


def unsupported_media_type(content_type: str) -> ApiError:
    # k8s: negotiation.NewUnsupportedMediaTypeError.
    # The serializers kube-apiserver registers (CBOR is behind an alpha gate, off by default).
    return ApiError(415, "UnsupportedMediaType", 'the body of the request was in an unknown format - accepted media '
                    'types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
                    {}) if content_type else bad_request("the request body has no content type")


def internal_error(message: str) -> ApiError:
    """k8s: apierrors.NewInternalError — 500, "Internal error occurred: <err>", the error as the cause."""
    return ApiError(500, "InternalError", f"Internal error occurred: {message}", {"causes": [{"message": message}]})


def too_large(limit: int) -> ApiError:
    # k8s: handlers/rest.go limitedReadBody → NewRequestEntityTooLargeError("limit is %d").
    return ApiError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}", {})


def too_old(requested: int, oldest: int) -> ApiError:
    # k8s: storage/cacher/watch_cache.go — errors.NewResourceExpired (410, reason Expired).
    return ApiError(410, "Expired", f"too old resource version: {requested} ({oldest})")


def _cause(error) -> dict:
    """One StatusCause per field error: k8s NewInvalid uses err.Type, err.ErrorBody(), err.Field."""
    body = getattr(error, "body", None)
    if callable(body):
        return {"reason": error.type, "message": error.body(), "field": error.field}
    field, _, rest = str(error).partition(": ")
    reason = "FieldValueRequired" if rest.startswith("Required value") else "FieldValueInvalid"
    return {"reason": reason, "message": rest or field, "field": field if rest else ""}


_FORBIDDEN = re.compile(r'^(?P<resource>[a-z0-9.]+) "(?P<name>[^"]*)" is forbidden: ')


def from_drasim(exc: InputError, kind: Kind) -> ApiError:
    """The Status the API server would answer with for one of drasim's errors."""
    if isinstance(exc, StorageError):   # the journal could not keep the write: nothing was applied
        return internal_error(str(exc))
    if isinstance(exc, StoreError):
        name = re.search(r'"([^"]*)"', str(exc))
        return ApiError(exc.code, exc.reason, str(exc), _details(kind, name.group(1) if name else None))
    message = str(exc)
    if message.startswith(": "):   # no source file: admission writes `{source}: …`
        message = message[2:]
    if isinstance(exc, InvalidObject):
        details = _details(kind, exc.name, kind_field=kind.kind)
        details["causes"] = [_cause(e) for e in exc.errors]
        return ApiError(422, "Invalid", message, details)
    if isinstance(exc, ManifestError):
        return bad_request(message)
    hit = _FORBIDDEN.match(message)
    if hit:   # quota admission (k8s: admission.NewForbidden)
        return ApiError(403, "Forbidden", message, _details(kind, hit.group("name")))
    return bad_request(message)
