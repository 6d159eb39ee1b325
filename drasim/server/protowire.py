"""Just enough of the Kubernetes protobuf encoding to read a SelfSubjectAccessReview, which
kubectl's typed client sends as application/vnd.kubernetes.protobuf (`kubectl auth can-i`).

k8s: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the 4-byte
magic `k8s\\0` and the runtime.Unknown envelope: typeMeta 1, raw 2) and
staging/src/k8s.io/api/authorization/v1/generated.proto (SelfSubjectAccessReview: spec 2;
spec: resourceAttributes 1, nonResourceAttributes 2; ResourceAttributes: namespace 1, verb 2,
group 3, version 4, resource 5, subresource 6, name 7; NonResourceAttributes: path 1, verb 2).
"""
from __future__ import annotations

MAGIC = b"k8s\x00"
PROTOBUF = "application/vnd.kubernetes.protobuf"


class ProtoError(ValueError):
    pass


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(data) or shift > 63:
            raise ProtoError("truncated varint")
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def fields(data: bytes) -> dict[int, list]:
    """field number → values (bytes for length-delimited, int for varints); other wire types skipped."""
    out: dict[int, list] = {}
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            n, i = _varint(data, i)
            if i + n > len(data):
                raise ProtoError("truncated field")
            value, i = data[i:i + n], i + n
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ProtoError(f"unsupported wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _strings(data: bytes, names: dict[int, str]) -> dict:
    f = fields(data)
    return {name: f[n][-1].decode("utf-8") for n, name in names.items() if n in f and f[n][-1]}


_RESOURCE = {1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name"}
_NON_RESOURCE = {1: "path", 2: "verb"}


def self_subject_access_review(body: bytes) -> dict:
    if not body.startswith(MAGIC):
        raise ProtoError("not a Kubernetes protobuf message")
    envelope = fields(body[len(MAGIC):])
    raw = (envelope.get(2) or [b""])[-1]
    spec_bytes = (fields(raw).get(2) or [b""])[-1]
    spec = fields(spec_bytes)
    out: dict = {}
    if 1 in spec:
        out["resourceAttributes"] = _strings(spec[1][-1], _RESOURCE)
    if 2 in spec:
        out["nonResourceAttributes"] = _strings(spec[2][-1], _NON_RESOURCE)
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": out}


# RBAC messages (k8s: staging/src/k8s.io/api/rbac/v1/generated.proto; ObjectMeta in
# apimachinery/pkg/apis/meta/v1/generated.proto: name 1, generateName 2, namespace 3, labels 11,
# annotations 12). kubectl's `create clusterrole|role|clusterrolebinding|rolebinding` send these.
_STR, _STRS, _MAP = "s", "ss", "map"
_META = {1: ("name", _STR), 2: ("generateName", _STR), 3: ("namespace", _STR), 11: ("labels", _MAP),
         12: ("annotations", _MAP)}
_RULE = {1: ("verbs", _STRS), 2: ("apiGroups", _STRS), 3: ("resources", _STRS), 4: ("resourceNames", _STRS),
         5: ("nonResourceURLs", _STRS)}
_SUBJECT = {1: ("kind", _STR), 2: ("apiGroup", _STR), 3: ("name", _STR), 4: ("namespace", _STR)}
_ROLE_REF = {1: ("apiGroup", _STR), 2: ("kind", _STR), 3: ("name", _STR)}
_SELECTOR = {1: ("matchLabels", _MAP)}
_AGGREGATION = {1: ("clusterRoleSelectors", [_SELECTOR])}
RBAC_MESSAGES = {
    "Role": {1: ("metadata", _META), 2: ("rules", [_RULE])},
    "ClusterRole": {1: ("metadata", _META), 2: ("rules", [_RULE]), 3: ("aggregationRule", _AGGREGATION)},
    "RoleBinding": {1: ("metadata", _META), 2: ("subjects", [_SUBJECT]), 3: ("roleRef", _ROLE_REF)},
    "ClusterRoleBinding": {1: ("metadata", _META), 2: ("subjects", [_SUBJECT]), 3: ("roleRef", _ROLE_REF)},
}


def _message(data: bytes, schema: dict) -> dict:
    f = fields(data)
    out: dict = {}
    for number, (name, kind) in schema.items():
        values = f.get(number)
        if not values:
            continue
        if kind == _STR:
            out[name] = values[-1].decode("utf-8")
        elif kind == _STRS:
            out[name] = [v.decode("utf-8") for v in values]
        elif kind == _MAP:   # map<string,string>: entries of key 1, value 2
            out[name] = {e.get(1, [b""])[-1].decode("utf-8"): e.get(2, [b""])[-1].decode("utf-8")
                         for e in map(fields, values)}
        elif isinstance(kind, list):
            out[name] = [_message(v, kind[0]) for v in values]
        else:
            out[name] = _message(values[-1], kind)
    return out


def rbac_object(body: bytes, kind: str) -> dict:
    if not body.startswith(MAGIC):
        raise ProtoError("not a Kubernetes protobuf message")
    raw = (fields(body[len(MAGIC):]).get(2) or [b""])[-1]
    obj = _message(raw, RBAC_MESSAGES[kind])
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, **obj}
