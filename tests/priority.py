"""Give test pods a priority the way a cluster does: through a PriorityClass (the Priority
admission plugin refuses a pod that sets spec.priority itself)."""
from __future__ import annotations


def class_name(value: int, policy: str | None = None) -> str:
    name = f"p{value}" if value >= 0 else f"pminus{-value}"
    return name + ("-never" if policy == "Never" else "")


def priority_class(value: int, policy: str | None = None) -> dict:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": class_name(value, policy)}, "value": value}
    if policy is not None:
        pc["preemptionPolicy"] = policy
    return pc


def prioritise(cp, spec: dict) -> dict:
    """Replace spec's priority / preemptionPolicy by a PriorityClass (created in cp if new)."""
    value = spec.pop("priority", None)
    policy = spec.pop("preemptionPolicy", None)
    if value is None and policy is None:
        return spec
    value = value or 0
    pc = priority_class(value, policy)
    if cp.store.get("PriorityClass", None, pc["metadata"]["name"]) is None:
        cp.create(pc)
    spec["priorityClassName"] = pc["metadata"]["name"]
    return spec
