"""Label and field selectors as query parameters (`labelSelector=`, `fieldSelector=`).

k8s: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Parse: labelparse.py), pkg/fields/selector.go
     (ParseSelector: `=`, `==`, `!=` only), and each kind's registry GetAttrs / SelectableFields
     (pkg/registry/...).
"""
from __future__ import annotations

from typing import Callable

from drasim.server import labelparse
from drasim.server.status import bad_request

class LabelRequirements:
    """A parsed labelSelector: every requirement must match (k8s: internalSelector.Matches)."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: list[labelparse.Requirement]) -> None:
        self.requirements = tuple(requirements)

    def matches(self, labels: dict) -> bool:
        return all(r.matches(labels) for r in self.requirements)


def parse_label_selector(text: str | None) -> LabelRequirements | None:
    """None when no selector was given (everything matches); a 400 with labels.Parse's error otherwise
    (k8s: the query parameter's conversion, Convert_string_To_labels_Selector)."""
    if text is None or not text.strip():
        return None
    try:
        return LabelRequirements(labelparse.parse(text))
    except labelparse.SelectorSyntaxError as e:
        raise bad_request(str(e)) from None


def _path(*keys: str) -> Callable[[dict], str]:
    def get(obj: dict) -> str:
        value = obj
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    return get


_NAME, _NAMESPACE = _path("metadata", "name"), _path("metadata", "namespace")
_COMMON = {"metadata.name": _NAME, "metadata.namespace": _NAMESPACE}

# k8s: pkg/registry/core/pod/strategy.go ToSelectableFields; node, namespace, event strategies;
#      pkg/registry/resource/resourceslice/strategy.go (spec.nodeName, spec.driver).
SELECTABLE: dict[str, dict[str, Callable[[dict], str]]] = {
    "Pod": {**_COMMON, "spec.nodeName": _path("spec", "nodeName"), "spec.restartPolicy": _path("spec", "restartPolicy"),
            "spec.schedulerName": _path("spec", "schedulerName"),
            "spec.serviceAccountName": _path("spec", "serviceAccountName"),
            "spec.hostNetwork": lambda o: "true" if (o.get("spec") or {}).get("hostNetwork") else "false",
            "status.phase": _path("status", "phase"), "status.podIP": _path("status", "podIP"),
            "status.nominatedNodeName": _path("status", "nominatedNodeName")},
    "Node": {**_COMMON, "spec.unschedulable": lambda o: "true" if (o.get("spec") or {}).get("unschedulable") else "false"},
    "Namespace": {**_COMMON, "status.phase": _path("status", "phase")},
    "Event": {**_COMMON, **{f"involvedObject.{f}": _path("involvedObject", f) for f in
                            ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
              "reason": _path("reason"), "type": _path("type"), "source": _path("source", "component"),
              "reportingComponent": _path("reportingComponent")},
    "ResourceSlice": {**_COMMON, "spec.nodeName": _path("spec", "nodeName"), "spec.driver": _path("spec", "driver")},
}

FieldSelector = list[tuple[Callable[[dict], str], bool, str]]   # (getter, equal?, value)


def parse_field_selector(kind: str, text: str | None) -> FieldSelector | None:
    """k8s: fields.ParseSelector (splitTerms on unescaped commas, empty terms skipped, the first
    `!=`, `==` or `=` splits a term, UnescapeValue) and the kind's field label conversion."""
    if text is None or not text.strip():
        return None
    fields = SELECTABLE.get(kind, _COMMON)
    terms = []
    for part in sorted(_split_terms(text)):
        if part == "":
            continue
        term = _split_term(part)
        if term is None:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        terms.append((term[0], term[1], _unescape(term[2])))
    for lhs, _, _ in terms:   # parsed whole first, then converted (Selector.Transform)
        if lhs not in fields:
            # k8s: runtime.Scheme ConvertFieldLabel, `field label not supported: %s`
            raise bad_request(f'field label not supported: {lhs}')
    return [(fields[lhs], op != "!=", value) for lhs, op, value in terms]


def _split_terms(text: str) -> list[str]:
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


def _unescape(value: str) -> str:
    """k8s: fields.UnescapeValue (its errors print the rune as a number, %v of a Go rune)."""
    out, escaped = [], False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise bad_request(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise bad_request("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def matches(obj: dict, labels: LabelRequirements | None, fields: FieldSelector | None) -> bool:
    if labels is not None and not labels.matches((obj.get("metadata") or {}).get("labels") or {}):
        return False
    if fields:
        for get, equal, value in fields:
            if (get(obj) == value) != equal:
                return False
    return True
