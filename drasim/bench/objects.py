"""Objects a workload creates: rendered templates, code-built nodes and pods, driver slices.

k8s: test/integration/scheduler_perf/util.go (makeBaseNode, makeBasePod), node_util.go,
dra.go (createResourceDriver, README §4.3), executor.go (getSpecFromTextTemplateFile).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from drasim.bench.config import ConfigError
from drasim.bench.convert import to_v1
from drasim.bench.gotemplate import Template, parse

from drasim.api import yamlblock, yamlfast  # noqa: E402
from drasim.api.loader import KubeYAMLLoader as _LOADER   # noqa: E402

DRA_NODE_TEMPLATE = "node-with-dra-test-driver.yaml"
DRA_NODE_LABEL = "node-with-dra"
HOSTNAME_LABEL = "kubernetes.io/hostname"
_BASE_CAPACITY = {"pods": "110", "cpu": "4", "memory": "32Gi"}


def resolve_template_path(config_dir: Path, rel: str) -> tuple[Path, str | None]:
    """*rel* relative to the config's folder; else the nearest ancestor's `dra/templates/<file>`.

    The fallback serves the `history/` configs, whose templates were not copied with them.
    """
    direct = (config_dir / rel).resolve()
    if direct.is_file():
        return direct, None
    name = Path(rel).name
    for folder in (config_dir, *config_dir.parents):
        candidate = folder / "dra" / "templates" / name
        if candidate.is_file():
            return candidate.resolve(), str(candidate.resolve().parent)
    raise ConfigError(f"{direct}: no such file or directory")


class Renderer:
    """Parses each template once and decodes each distinct rendering once."""

    def __init__(self, config_dir: Path) -> None:
        self.config_dir = config_dir
        self._templates: dict[str, tuple[Template, Path]] = {}
        self._decoded: dict[str, dict] = {}
        self.notes: list[str] = []
        self.fallbacks: dict[str, list[str]] = {}   # folder -> templates found there, not next to the config

    def template(self, rel: str) -> tuple[Template, Path]:
        found = self._templates.get(rel)
        if found is None:
            path, fallback = resolve_template_path(self.config_dir, rel)
            if fallback:
                self.fallbacks.setdefault(fallback, []).append(path.name)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
            found = self._templates[rel] = (parse(text, path.name), path)
        return found

    def render(self, rel: str, env: dict[str, Any]) -> dict:
        """Render and decode one object. The result is shared: copy before changing it."""
        tmpl, path = self.template(rel)
        text = tmpl.execute(env)
        obj = self._decoded.get(text)
        if obj is None:
            try:
                obj = _read_rendered(text)
            except yaml.YAMLError as e:
                raise ConfigError(f"{path.name}: rendered template is not valid YAML: {e}") from None
            if not isinstance(obj, dict):
                raise ConfigError(f"{path.name}: rendered template is not an object")
            obj, note = to_v1(obj, path.name)
            if note and note not in self.notes:
                self.notes.append(note)
            if len(self._decoded) > 4096:
                self._decoded.clear()
            self._decoded[text] = obj
        return obj


_SCALARS = yamlblock.scalar_reader(_LOADER)


def _read_rendered(text: str):
    """A rendered template's one document. Most are kubectl-style block YAML after a comment
    header: the loader's line reader takes them (the values Go's sigs.k8s.io/yaml gives: what
    manifests read from files get, drasim/api/yamlblock.py); anything else goes through libyaml."""
    block = yamlblock.load(_content_lines(text), _LOADER, _SCALARS)
    if block is not None and len(block) == 1:
        return block[0]
    return yamlfast.load(text, _LOADER)


def _content_lines(text: str) -> str:
    """The text without the blank and comment lines before its first content line and the blank
    lines after its last. Neither carries content in what the line reader accepts (no block
    scalar can start before the first content line, and it refuses block scalars, which alone
    could end in blank lines); whatever it refuses is read from the original text."""
    text = _without_leading_comments(text)
    end = len(text)
    while True:
        start = text.rfind("\n", 0, end - 1) + 1 if end > 0 else 0
        if end == 0 or text[start:end].strip(" \t\r\n"):
            break
        end = start
    return text[:end] if end == len(text) or text[end - 1:end] == "\n" else text[:end] + "\n"


def _without_leading_comments(text: str) -> str:
    """The text from its first line that is neither blank nor a comment."""
    pos = 0
    while True:
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        stripped = line.strip(" \t\r")
        if stripped and not stripped.startswith("#"):
            return text[pos:]
        if end < 0:
            return ""
        pos = end + 1


def with_metadata(obj: dict, *, name: str | None = None, namespace: str | None = None,
                  labels: dict[str, str] | None = None) -> dict:
    """A shallow copy of *obj* with metadata fields set (the decoded template stays untouched)."""
    md = dict(obj.get("metadata") or {})
    if name is not None:
        md["name"] = name
        md.pop("generateName", None)
    if namespace is not None:
        md["namespace"] = namespace
    if labels:
        md["labels"] = {**(md.get("labels") or {}), **labels}
    return {**obj, "metadata": md}


def dra_node_from_template(obj: dict, index: int) -> dict:
    """README §7.1: every node of node-with-dra-test-driver.yaml is scheduler-perf-dra-<Index>,
    labelled node-with-dra=true (the current copy has the name, the older one the label)."""
    name = f"scheduler-perf-dra-{index}"
    return with_metadata(obj, name=name, labels={DRA_NODE_LABEL: "true", HOSTNAME_LABEL: name})


def base_node(op_index: int) -> dict:
    """A node built in code (k8s: util.go makeBaseNode): generateName node-<opIndex>-, Ready."""
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"generateName": f"node-{op_index}-"},
        "status": {"capacity": dict(_BASE_CAPACITY), "allocatable": dict(_BASE_CAPACITY),
                   "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def base_pod() -> dict:
    """The default pod (k8s: util.go makeBasePod / testutils.MakePodSpec): one pause container."""
    resources = {"cpu": "100m", "memory": "500Mi"}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": "pod-"},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "ports": [{"containerPort": 80}],
                                 "resources": {"requests": dict(resources), "limits": dict(resources)}}]},
    }


def driver_slice(node_name: str, driver: str, max_claims: int) -> dict:
    """One ResourceSlice per node with `max_claims` devices instance-0… (README §4.3, 2026 form)."""
    devices = [{
        "name": f"instance-{i}",
        "attributes": {"model": {"string": "A100"}, "family": {"string": "GPU"},
                       "driverVersion": {"version": "1.2.3"}, "dra.example.com/numa": {"int": i}},
        "capacity": {"memory": {"value": "1Gi"}},
    } for i in range(max_claims)]
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": node_name},
        "spec": {"driver": driver, "nodeName": node_name,
                 "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
                 "devices": devices},
    }


def drop_unsatisfiable_match(obj: dict, attribute_seen: bool) -> tuple[dict, str | None]:
    """README §7.3: resourceclaimtemplate-for-two-devices.yaml asks for matchAttribute
    dra.example.com/slice; when no published device has that attribute (CompatibilityGroups),
    the constraint is dropped, as the current upstream template evidently does."""
    if attribute_seen or obj.get("kind") != "ResourceClaimTemplate":
        return obj, None
    devices = ((obj.get("spec") or {}).get("spec") or {}).get("devices") or {}
    constraints = devices.get("constraints") or []
    kept = [c for c in constraints if c.get("matchAttribute") != "dra.example.com/slice"]
    if len(kept) == len(constraints):
        return obj, None
    new_devices = {**devices, "constraints": kept} if kept else {k: v for k, v in devices.items()
                                                                  if k != "constraints"}
    spec = obj["spec"]
    new = {**obj, "spec": {**spec, "spec": {**spec["spec"], "devices": new_devices}}}
    return new, ("README §7.3: no device has dra.example.com/slice, so the claim template's "
                 "matchAttribute constraint was dropped")
