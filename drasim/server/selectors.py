"""Label and field selectors as query parameters (`labelSelector=`, `fieldSelector=`).

k8s: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Parse: `a=b`, `a==b`, `a!=b`,
     `a in (x,y)`, `a notin (x)`, `a`, `!a`), pkg/fields/selector.go (ParseSelector: `=`, `==`,
     `!=` only), and each kind's registry GetAttrs / SelectableFields (pkg/registry/...).
Label requirements compile to drasim.api.labelselector's LabelSelector, the one matcher.
"""
from __future__ import annotations

import re
from typing import Callable

from drasim.api.labelselector import LabelSelector, LabelSelectorError, compile_label_selector
from drasim.server.status import bad_request

_SET_OP = re.compile(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s+(in|notin)\s*\(([^)]*)\)\s*$")
_EQ_OP = re.compile(r"^\s*([A-Za-z0-9_./-]+)\s*(==|!=|=)\s*([A-Za-z0-9_.-]*)\s*$")
_EXISTS = re.compile(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*$")


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses (`a in (x,y),b` is two requirements)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_label_selector(text: str | None) -> LabelSelector | None:
    """None when no selector was given (everything matches)."""
    if text is None or not text.strip():
        return None
    exprs: list[dict] = []
    for part in _split_top(text):
        if m := _SET_OP.match(part):
            if m.group(1):
                raise bad_request("unable to parse requirement: found '!', expected: identifier")
            values = [v.strip() for v in m.group(4).split(",") if v.strip()]
            exprs.append({"key": m.group(2), "operator": "In" if m.group(3) == "in" else "NotIn", "values": values})
        elif m := _EQ_OP.match(part):
            exprs.append({"key": m.group(1), "operator": "NotIn" if m.group(2) == "!=" else "In",
                          "values": [m.group(3)]})
        elif m := _EXISTS.match(part):
            exprs.append({"key": m.group(2), "operator": "DoesNotExist" if m.group(1) else "Exists"})
        else:
            raise bad_request(f"unable to parse requirement: {part.strip()!r}")
    try:
        return compile_label_selector({"matchExpressions": exprs})
    except LabelSelectorError as e:
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
    if text is None or not text.strip():
        return None
    fields = SELECTABLE.get(kind, _COMMON)
    out: FieldSelector = []
    for part in text.split(","):
        m = re.match(r"^\s*([^=!]+?)\s*(==|!=|=)\s*(.*?)\s*$", part)
        if not m:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        if m.group(1) not in fields:
            # k8s: registry/generic ... `field label not supported: %s`
            raise bad_request(f'field label not supported: {m.group(1)}')
        out.append((fields[m.group(1)], m.group(2) != "!=", m.group(3)))
    return out


def matches(obj: dict, labels: LabelSelector | None, fields: FieldSelector | None) -> bool:
    if labels is not None and not labels.matches((obj.get("metadata") or {}).get("labels") or {}):
        return False
    if fields:
        for get, equal, value in fields:
            if (get(obj) == value) != equal:
                return False
    return True
