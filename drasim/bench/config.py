"""scheduler_perf `performance-config.yaml`: test cases, workloads, params, labels, thresholds, gates.

k8s: test/integration/scheduler_perf/scheduler_perf.go (testCase, workload, params, thresholds,
label filter), operations.go (resolveTemplateParams). README §2 of the shared benchmark copy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from drasim.allocator import Features
from drasim.errors import InputError
from drasim.featuregates import ALLOCATOR_GATES

DEFAULT_LABEL_FILTER = "performance"

class ConfigError(InputError):
    """A config, workload or param that scheduler_perf would refuse."""


@dataclass
class Workload:
    name: str
    labels: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    threshold: Any = None
    feature_gates: dict[str, bool] = field(default_factory=dict)


@dataclass
class TestCase:
    name: str
    ops: list[dict]
    workloads: list[Workload]
    labels: tuple[str, ...] = ()
    feature_gates: dict[str, bool] = field(default_factory=dict)
    scheduler_config_path: str | None = None


@dataclass
class Config:
    path: Path
    test_cases: list[TestCase]
    topic: str


def default_topic(path: Path) -> str:
    """The topic its `*_test.go` passes: `dra` for dra/, `dra_<sub>[_<subsub>]` below it (README §2)."""
    parts = path.resolve().parent.parts
    if "dra" not in parts:
        return "dra"
    below = parts[len(parts) - parts[::-1].index("dra"):]
    return "_".join(("dra",) + tuple(below))


def load_config(path: str | Path, topic: str | None = None) -> Config:
    p = Path(path)
    try:
        raw = yaml.load(p.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: cannot read: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{p}: invalid YAML{where}: {problem}") from None
    if not isinstance(raw, list):
        raise ConfigError(f"{p}: a scheduler_perf config is a list of test cases")
    return Config(p, [_test_case(tc, p) for tc in raw], topic or default_topic(p))


def _test_case(raw: Any, path: Path) -> TestCase:
    if not isinstance(raw, dict) or not raw.get("name"):
        raise ConfigError(f"{path}: every test case needs a name")
    ops = raw.get("workloadTemplate") or []
    if not isinstance(ops, list) or not all(isinstance(o, dict) and o.get("opcode") for o in ops):
        raise ConfigError(f"{path}: {raw['name']}: workloadTemplate must be a list of ops with an opcode")
    where = f"{path}: {raw['name']}"
    workloads_raw = raw.get("workloads") or []
    if not isinstance(workloads_raw, list):
        raise ConfigError(f"{where}: workloads must be a list")
    workloads = []
    for i, w in enumerate(workloads_raw):
        if not isinstance(w, dict) or not isinstance(w.get("name"), str) or not w["name"]:
            raise ConfigError(f"{where}: workloads[{i}] must be an object with a name")
        workloads.append(Workload(name=w["name"], labels=_labels(w, f"{where}/{w['name']}"),
                                  params=_mapping(w, "params", f"{where}/{w['name']}"),
                                  threshold=_threshold(w.get("threshold"), f"{where}/{w['name']}"),
                                  feature_gates=_mapping(w, "featureGates", f"{where}/{w['name']}")))
    return TestCase(name=str(raw["name"]), ops=ops, workloads=workloads, labels=_labels(raw, where),
                    feature_gates=_mapping(raw, "featureGates", where),
                    scheduler_config_path=raw.get("schedulerConfigPath"))


def _mapping(raw: dict, key: str, where: str) -> dict:
    value = raw.get(key) or {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be a mapping")
    return dict(value)


def _labels(raw: dict, where: str) -> tuple[str, ...]:
    value = raw.get("labels") or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: labels must be a list of strings")
    return tuple(value)


def _threshold(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (int, float, dict)) and not isinstance(value, bool):
        return value
    raise ConfigError(f"{where}: threshold must be a number or a mapping of topics to numbers")


# --- labels, thresholds, gates -------------------------------------------------------------------

def labels_match(labels: set[str] | tuple[str, ...], label_filter: str) -> bool:
    """`-perf-scheduling-label-filter`: comma separated; `+l` or `l` must be set, `-l` must not."""
    have = set(labels)
    for part in label_filter.split(","):
        part = part.strip()
        if not part:
            continue
        positive = not part.startswith("-")
        name = part[1:] if part[0] in "+-" else part
        if (name in have) != positive:
            return False
    return True


def threshold_for(raw: Any, topic: str) -> float:
    """A number applies to every topic; a map gives per-topic values, a missing topic is 0 (no check)."""
    if raw is None:
        return 0.0
    value = raw.get(topic) if isinstance(raw, dict) else raw
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"threshold: expected a number, got {value!r}")
    return float(value)


def merged_gates(tc: TestCase, w: Workload) -> dict[str, bool]:
    """The test case's gates, overridden by the workload's."""
    return {**tc.feature_gates, **w.feature_gates}


def allocator_features(gates: dict[str, bool], base: Features = Features()) -> tuple[Features, list[str]]:
    """Features with the mapped gates applied, and the names of gates drasim does not model."""
    changes = {ALLOCATOR_GATES[g]: bool(v) for g, v in gates.items() if g in ALLOCATOR_GATES}
    ignored = sorted(g for g in gates if g not in ALLOCATOR_GATES)
    return replace(base, **changes), ignored


# --- params ---------------------------------------------------------------------------------------

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: Any) -> float:
    """Go time.ParseDuration ("10s", "1m30s", "500ms", "0") → seconds."""
    s = str(text).strip()
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None:
            raise ConfigError(f'time: invalid duration "{text}"')
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if not s:
        raise ConfigError(f'time: invalid duration "{text}"')
    return sign * total


class Params:
    """A workload's params, with the `used` bookkeeping behind the "defined but unused" error."""

    def __init__(self, workload: Workload) -> None:
        self.workload = workload
        self.values = workload.params
        self.used: set[str] = set()

    def get(self, ref: str) -> Any:
        """The value of `$name` (the leading `$` is optional)."""
        key = ref[1:] if ref.startswith("$") else ref
        self.used.add(key)
        if key not in self.values:
            raise ConfigError(f"parameter {key} is undefined")
        return self.values[key]

    def get_int(self, ref: str) -> int:
        value = self.get(ref)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and value - value != 0):   # NaN, ±inf: int() cannot take them
            raise ConfigError(f"parameter {ref.lstrip('$')}: expected a number, got {value!r}")
        return int(value)   # JSON numbers are truncated to int

    def get_bool(self, ref: str) -> bool:
        value = self.get(ref)
        if not isinstance(value, bool):
            raise ConfigError(f"parameter {ref.lstrip('$')}: expected a boolean, got {value!r}")
        return value

    def get_duration(self, ref: str) -> float:
        return parse_duration(self.get(ref))

    def template_params(self, raw: dict[str, Any] | None) -> dict[str, Any]:
        """Resolve `$name` and `$name|default` values (k8s: resolveTemplateParams).

        `$name|default` takes the literal after `|` when the workload lacks `name`; an empty
        default is nil, which the templates turn into YAML null (README §3).
        """
        out: dict[str, Any] = {}
        for key, value in (raw or {}).items():
            if isinstance(value, str) and value.startswith("$"):
                name, bar, default = value[1:].partition("|")
                if name in self.values:
                    self.used.add(name)
                    out[key] = self.values[name]
                elif bar:
                    out[key] = default if default else None
                else:
                    raise ConfigError(f'parameter "{name}" not found')
            else:
                out[key] = value
        return out

    def unused(self) -> list[str]:
        return sorted(set(self.values) - self.used)

    def check_unused(self) -> None:
        unused = self.unused()
        if unused:
            raise ConfigError(f"the parameters [{' '.join(unused)}] are defined on workload "
                              f"{self.workload.name}, but unused.\nPlease make sure there are no typos")
