"""`drasim inventory POOLS.yaml`: Nodes, ResourceSlices and DeviceClasses as real drivers publish them."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from drasim.errors import InputError
from drasim.hardware import generate


class _NoAliases(yaml.SafeDumper):
    """Devices share attribute values in memory; the manifest spells every one out."""

    def ignore_aliases(self, data) -> bool:
        return True


def run(path: str, output: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    try:
        spec = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(f"{path}: invalid YAML: {e}") from None
    try:
        objects = generate(spec)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    if output == "json":
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=2) + "\n"
    return yaml.dump_all(objects, Dumper=_NoAliases, sort_keys=False, explicit_start=True)
