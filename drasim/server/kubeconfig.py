"""Write a kubeconfig with a `drasim` cluster, user and context, merged into an existing file
the way `kind` does (other entries kept, ours replaced, current-context switched to drasim)."""
from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml

from drasim.errors import InputError

CONTEXT = "drasim"


def _upsert(entries: list, name: str, key: str, value: dict) -> list:
    kept = [e for e in entries if isinstance(e, dict) and e.get("name") != name]
    return kept + [{"name": name, key: value}]


def write_kubeconfig(path: str | os.PathLike, server: str, token: str | None = None,
                     ca_pem: bytes | None = None) -> None:
    """The drasim user carries the admin bearer token (the file is written 0600: it is a credential)."""
    p = Path(path)
    config: dict = {}
    if p.exists():
        try:
            loaded = yaml.safe_load(p.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as e:
            raise InputError(f"--kubeconfig {p}: cannot read the existing file: {e}") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise InputError(f"--kubeconfig {p}: not a kubeconfig (expected a mapping)")
        config = loaded or {}
    config.setdefault("apiVersion", "v1")
    config.setdefault("kind", "Config")
    config.setdefault("preferences", {})
    cluster = {"server": server}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    config["clusters"] = _upsert(config.get("clusters") or [], CONTEXT, "cluster", cluster)
    config["users"] = _upsert(config.get("users") or [], CONTEXT, "user", {"token": token} if token else {})
    config["contexts"] = _upsert(config.get("contexts") or [], CONTEXT, "context",
                                 {"cluster": CONTEXT, "user": CONTEXT, "namespace": "default"})
    config["current-context"] = CONTEXT
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".drasim-tmp")
        tmp.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(p)
    except OSError as e:
        raise InputError(f"--kubeconfig {p}: cannot write: {e.strerror or e}") from None
