"""The ops of a workload template, with params resolved (k8s: scheduler_perf operations.go).

`prepare_ops` turns the raw op dicts into `Op` values before anything runs: opcodes are
checked (an unsupported one is reported, not run), `*Param` fields are read from the
workload's params, and unused params are an error, as scheduler_perf reports them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drasim.bench.config import ConfigError, Params, parse_duration

# Fields each supported opcode accepts (json tags of the scheduler_perf op structs we model).
_FIELDS: dict[str, set[str]] = {
    "createNodes": {"count", "countParam", "nodeTemplatePath", "templateParams", "nodeAllocatableStrategy",
                    "labelNodePrepareStrategy", "uniqueNodeLabelStrategy"},
    "createNamespaces": {"prefix", "count", "countParam", "namespaceTemplatePath"},
    "createAny": {"templatePath", "namespace", "count", "countParam", "templateParams"},
    "createPodGroups": {"templatePath", "namespace", "count", "countParam", "templateParams"},
    "createPods": {"namespace", "count", "countParam", "podTemplatePath", "templateParams", "collectMetrics",
                   "steadyState", "steadyStateParam", "duration", "durationParam", "skipWaitToCompletion"},
    "createResourceDriver": {"driverName", "nodes", "maxClaimsPerNode", "maxClaimsPerNodeParam"},
    "allocResourceClaims": {"namespace"},
    "barrier": {"namespaces", "stageRequirement", "labelSelector"},
    "sleep": {"duration", "durationParam"},
    "startCollectingMetrics": {"name", "namespaces", "labelSelector", "collectors"},
    "stopCollectingMetrics": set(),
}

# Opcodes scheduler_perf has that drasim cannot replay, with the reason given in the report.
UNSUPPORTED = {
    "churn": "background churn is not modelled",
    "deletePods": "deletePods is not modelled",
    "updateDeviceConditions": "binding-condition updates by a driver are not modelled",
    "checkPodScheduled": "checkPodScheduled (binding-condition integration check) is not modelled",
    "createPodSets": "createPodSets is not modelled",
}


class UnsupportedOp(ConfigError):
    """An op drasim cannot replay; the workload is reported as unsupported."""


@dataclass
class Op:
    index: int
    opcode: str
    count: int | None = None
    namespace: str | None = None
    template: str | None = None
    template_params: dict[str, Any] = field(default_factory=dict)
    collect_metrics: bool = False
    steady_state: bool = False
    duration: float = 0.0
    skip_wait: bool = False
    driver: str = ""
    nodes_glob: str = ""
    max_claims: int = 0
    namespaces: list[str] | None = None
    name: str = ""
    label_selector: dict[str, str] | None = None
    attempted_only: bool = False
    prefix: str = ""


def prepare_ops(raw_ops: list[dict], params: Params) -> list[Op]:
    """Resolve every op; raises UnsupportedOp or ConfigError (`op N: …`) like scheduler_perf."""
    for i, raw in enumerate(raw_ops):
        if raw["opcode"] in UNSUPPORTED:
            raise UnsupportedOp(f"op {i}: unsupported op {raw['opcode']}: {UNSUPPORTED[raw['opcode']]}")
        if raw["opcode"] not in _FIELDS:
            raise UnsupportedOp(f"op {i}: unsupported op {raw['opcode']}")
    ops = []
    for i, raw in enumerate(raw_ops):
        try:
            ops.append(_prepare(i, raw, params))
        except ConfigError as e:
            raise ConfigError(f"op {i}: {e}") from None
    params.check_unused()
    return ops


def _int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
        raise ConfigError(f"{name}: expected a number, got {value!r}")
    return int(value)


def _finite(value) -> bool:
    return not isinstance(value, float) or value - value == 0   # NaN and ±inf fail; int() cannot take them


# The most objects one op may create. scheduler_perf sets no bound (its largest DRA configs
# create 5,000 nodes and 20,000 pods; drasim's fleet benchmark 80,000 pods, 1.7 GiB). A count
# far beyond this would run for hours or until memory runs out, so it is refused up front.
MAX_COUNT = 1_000_000


def _count(raw: dict, params: Params, opcode: str) -> int | None:
    if raw.get("countParam"):
        field = f"countParam {raw['countParam']}"
        count = params.get_int(raw["countParam"])
    elif raw.get("count") is not None:
        field = "count"
        if isinstance(raw["count"], bool) or not isinstance(raw["count"], (int, float)) or not _finite(raw["count"]):
            raise ConfigError(f"{opcode}: count: expected a number, got {raw['count']!r}")
        count = int(raw["count"])
    else:
        return None
    if count < 0:   # scheduler_perf: "must be >= 0"
        raise ConfigError(f"{opcode}: {field} must be >= 0, got {count}")
    if count > MAX_COUNT:
        raise ConfigError(f"{opcode}: {field} is {count}: drasim bench creates at most {MAX_COUNT} "
                          "objects per op")
    return count


def _duration(raw: dict, params: Params) -> float:
    if raw.get("durationParam"):
        return params.get_duration(raw["durationParam"])
    return parse_duration(raw["duration"]) if raw.get("duration") is not None else 0.0


def _prepare(index: int, raw: dict, params: Params) -> Op:
    opcode = raw["opcode"]
    unknown = sorted(set(raw) - _FIELDS[opcode] - {"opcode"})
    if unknown:
        raise ConfigError(f'{opcode}: unknown field "{unknown[0]}"')
    op = Op(index, opcode, count=_count(raw, params, opcode), namespace=raw.get("namespace"))
    if opcode == "createNodes":
        op.template = raw.get("nodeTemplatePath")
        op.template_params = params.template_params(raw.get("templateParams"))
        if op.count is None:
            raise ConfigError("createNodes: count or countParam must be set")
    elif opcode == "createNamespaces":
        op.prefix = raw.get("prefix") or ""
        if raw.get("namespaceTemplatePath"):
            raise ConfigError("createNamespaces: namespaceTemplatePath is not supported by drasim bench")
    elif opcode in ("createAny", "createPodGroups"):
        op.template = raw.get("templatePath")
        if not op.template:
            raise ConfigError("TemplatePath must be set")
        op.template_params = params.template_params(raw.get("templateParams"))
    elif opcode == "createPods":
        _prepare_create_pods(op, raw, params)
    elif opcode == "createResourceDriver":
        op.driver = raw.get("driverName") or ""
        op.nodes_glob = raw.get("nodes") or ""
        op.max_claims = (params.get_int(raw["maxClaimsPerNodeParam"]) if raw.get("maxClaimsPerNodeParam")
                         else _int(raw.get("maxClaimsPerNode") or 0, "maxClaimsPerNode"))
        if not op.driver or not op.nodes_glob:
            raise ConfigError("createResourceDriver: driverName and nodes must be set")
    elif opcode == "barrier":
        op.namespaces = raw.get("namespaces")
        op.label_selector = raw.get("labelSelector")
        op.attempted_only = raw.get("stageRequirement") == "Attempted"
    elif opcode == "sleep":
        op.duration = _duration(raw, params)
    elif opcode == "startCollectingMetrics":
        op.namespaces = raw.get("namespaces") or []
        if not op.namespaces:
            raise ConfigError("namespaces cannot be empty")
        op.name = raw.get("name") or ""
        op.label_selector = raw.get("labelSelector")
    return op


def _prepare_create_pods(op: Op, raw: dict, params: Params) -> None:
    op.template = raw.get("podTemplatePath")
    op.template_params = params.template_params(raw.get("templateParams"))
    op.collect_metrics = bool(raw.get("collectMetrics"))
    op.steady_state = (params.get_bool(raw["steadyStateParam"]) if raw.get("steadyStateParam")
                       else bool(raw.get("steadyState")))
    op.duration = _duration(raw, params)
    op.skip_wait = bool(raw.get("skipWaitToCompletion"))
    if op.count is None:
        raise ConfigError("createPods: count or countParam must be set")
    if op.namespace is None:
        op.namespace = f"namespace-{op.index}"
    if op.steady_state and op.duration <= 0:
        raise ConfigError("createPods: steadyState requires a positive duration")
    if op.collect_metrics and op.skip_wait:
        raise ConfigError("skipWaitToCompletion cannot be used with collectMetrics")
