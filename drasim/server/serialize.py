"""What the API server writes back: quantities in their canonical string form.

k8s: apimachinery/pkg/api/resource Quantity.MarshalJSON — a quantity always serialises as a
string (`1` given as a JSON number comes back as "1", 0.5 as "500m"). drasim stores what the
manifest said, so numbers are turned into strings here, on the way out, for the quantity
maps of the core kinds (typed clients such as the Python client refuse numbers there).
"""
from __future__ import annotations

from fractions import Fraction

from drasim.api.quantity import DECIMAL_SI, format_quantity


def _canonical_map(m) -> dict | None:
    if not isinstance(m, dict) or not any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in m.values()):
        return None
    out = {}
    for k, v in m.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = format_quantity(Fraction(v).limit_denominator(10**9), DECIMAL_SI) if isinstance(v, float) else str(v)
        out[k] = v
    return out


def _fix(parent: dict, key: str) -> dict:
    fixed = _canonical_map(parent.get(key))
    return parent if fixed is None else dict(parent, **{key: fixed})


def _containers(spec: dict, field: str) -> dict:
    containers = spec.get(field)
    if not isinstance(containers, list):
        return spec
    changed = False
    out = []
    for c in containers:
        res = c.get("resources") if isinstance(c, dict) else None
        if isinstance(res, dict):
            new = _fix(_fix(res, "requests"), "limits")
            if new is not res:
                c, changed = dict(c, resources=new), True
        out.append(c)
    return dict(spec, **{field: out}) if changed else spec


def outgoing(obj: dict) -> dict:
    """obj with canonical quantity strings (a shallow-copied object when anything changed)."""
    kind = obj.get("kind")
    if kind == "Pod" and isinstance(obj.get("spec"), dict):
        spec = obj["spec"]
        new = _containers(_containers(_containers(spec, "containers"), "initContainers"), "ephemeralContainers")
        new = _fix(new, "overhead")
        if isinstance(new.get("resources"), dict):
            res = _fix(_fix(new["resources"], "requests"), "limits")
            new = new if res is new["resources"] else dict(new, resources=res)
        return obj if new is spec else dict(obj, spec=new)
    if kind == "Node" and isinstance(obj.get("status"), dict):
        status = _fix(_fix(obj["status"], "capacity"), "allocatable")
        return obj if status is obj["status"] else dict(obj, status=status)
    if kind == "ResourceQuota":
        out = obj
        if isinstance(obj.get("spec"), dict):
            spec = _fix(obj["spec"], "hard")
            out = out if spec is obj["spec"] else dict(out, spec=spec)
        if isinstance(obj.get("status"), dict):
            status = _fix(_fix(obj["status"], "hard"), "used")
            out = out if status is obj["status"] else dict(out, status=status)
        return out
    return obj
