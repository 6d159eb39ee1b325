"""Fuzz what test_fuzz_manifests does not reach: snapshots, bulk loads and the other readers.

test_fuzz_manifests writes small inputs as YAML flow text. The load path has fast paths that
such inputs never take: the msgspec JSON reader (`.json` files), the block reader for
`kubectl get -o yaml` text (yamlblock), and decodefast's msgspec check, which decode builds
only after 200 objects of one kind. Each of them answers for the slow path and must answer the
same. Here:

- every mutated input is written three ways — YAML flow, JSON, kubectl-style block YAML — and
  the three runs must end alike (exit status, stdout, stderr but for the file names);
- a snapshot (`kubectl get -o json` List of a settled workload: nodes, slices, bound Running
  pods with status, allocated claims reserved for them) is mutated at random and loaded with
  250 copies of the mutated object's kind, with decodefast forced on, and must end as the same
  input does with decodefast off.

Both keep test_fuzz_manifests' contract (exit 0, or 1 and one `error:` line, no traceback).
CI runs a bounded number of examples; DRASIM_FUZZ_EXAMPLES=2000 runs them longer.
"""
from __future__ import annotations

import copy
import json
import math
import os
import random
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.api import decode
from drasim.api.loader import load_paths
from drasim.api.nesting import run_with_room
from drasim.cli import render
from drasim.controlplane import ControlPlane, Options
from drasim.errors import DrasimError
from tests.property.test_fuzz_manifests import CORPUS, _flow_yaml, _mutate, _yaml_string, assert_contract, mutated, run_cli
from tests.property.test_snapshot_load import _assert_rebuilt
from tests.property.workload_ops import apply_op, build_cluster, random_ops

EXAMPLES = int(os.environ.get("DRASIM_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


# --- writing one input three ways ----------------------------------------------------------

_PLAIN_STR = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}   # go-yaml v2's non-strings


def _block_scalar(v) -> str:
    if isinstance(v, str):
        # Plain where no resolver could read it as anything else, as go-yaml prints names.
        plain = _PLAIN_STR.match(v) and v.lower() not in _WORDS and not v.lower().startswith(("0x", "0o", "0b"))
        return v if plain else _yaml_string(v)
    return "null" if v is None else json.dumps(v)


def _block_yaml(value, indent: int = 0) -> list[str]:
    """kubectl's block YAML for a JSON value (scalars on one line, `{}`/`[]` when empty)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            key = _block_scalar(str(k))
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{key}:")
                lines.extend(_block_yaml(v, indent + 2))
            else:
                lines.append(f"{pad}{key}: {_block_scalar(v) if not isinstance(v, (dict, list)) else json.dumps(v)}")
    else:
        for v in value:
            if isinstance(v, (dict, list)) and v:
                inner = _block_yaml(v, indent + 2)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            else:
                lines.append(f"{pad}- {_block_scalar(v) if not isinstance(v, (dict, list)) else json.dumps(v)}")
    return lines


def _json_safe(value, depth: int = 0) -> bool:
    """Written alike by all three: finite floats, not deeper than the block writer goes."""
    if depth > 60:
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_json_safe(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return all(_json_safe(v, depth + 1) for v in value)
    return True


def _write_as(tmp: Path, how: str, phases: list[list[dict]]) -> list[str]:
    """One folder per phase, one file per document (so the error names d03.<suffix>#1 in each)."""
    out = []
    for i, docs in enumerate(phases):
        folder = tmp / how / f"p{i:02d}"
        folder.mkdir(parents=True)
        for j, d in enumerate(docs):
            if how == "json":
                (folder / f"d{j:03d}.json").write_text(json.dumps(d))
            elif how == "block":
                (folder / f"d{j:03d}.yaml").write_text("\n".join(_block_yaml(d) if d else ["{}"]) + "\n")
            else:
                (folder / f"d{j:03d}.yaml").write_text(_flow_yaml(d) + "\n")
        out.append(str(folder))
    return out


def _outcome(argv: list[str], base: Path, what: str) -> tuple:
    code, out, err = assert_contract(argv, what)
    err = re.sub(r"(d\d{3})\.(json|yaml)", r"\1", err.replace(str(base), "TMP"))
    return code, out, err


@FUZZ
@given(mutated())
def test_every_reader_ends_alike(tmp_path_factory, case):
    name, phases = case
    if not all(isinstance(d, dict) and _json_safe(d) for docs in phases for d in docs):
        return   # NaN, Infinity, 1,200 levels: JSON cannot say them or YAML says them otherwise
    tmp = tmp_path_factory.mktemp("readers")
    outcomes = {}
    for how in ("flow", "json", "block"):
        paths = _write_as(tmp, how, phases)
        outcomes[how] = _outcome(["simulate", *paths, "-o", "json"], tmp / how, f"{how} {name}")
    assert outcomes["json"] == outcomes["flow"], (case, outcomes["flow"][2], outcomes["json"][2])
    assert outcomes["block"] == outcomes["flow"], (case, outcomes["flow"][2], outcomes["block"][2])


# --- snapshots, in bulk --------------------------------------------------------------------

def _snapshot() -> list[dict]:
    """`kubectl get -o json` items of a settled random workload (bound pods, allocated claims)."""
    cp = ControlPlane(Options(seed=3))
    build_cluster(cp)
    denials: list[str] = []
    for index, (op, n) in enumerate(random_ops(random.Random(3), 60, ("pod", "pod", "pod", "settle", "allocate",
                                                                         "taint", "advertise"))):
        apply_op(cp, index, op, n, denials)
    cp.settle()
    return json.loads(render.render_json(cp.objects()))["items"]


SNAPSHOT = _snapshot()
_SNAPSHOT_FILE = Path(tempfile.mkdtemp(prefix="drasim-fuzz-")) / "snapshot.json"
_SNAPSHOT_FILE.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": SNAPSHOT}))
BULK = 250   # past decode's _FAST_AFTER: the copies make decodefast's checker answer


def _copies(obj: dict, n: int) -> list[dict]:
    out = []
    for i in range(n):
        c = copy.deepcopy(obj)
        md = c.get("metadata")
        if isinstance(md, dict):
            if isinstance(md.get("name"), str):
                md["name"] = f"{md['name'][:200]}-c{i}"
            if isinstance(md.get("uid"), str):
                md["uid"] = f"{md['uid'][:30]}-c{i}"
        out.append(c)
    return out


class _Slow(dict):
    def get(self, kind, default=None):
        return decode._NO_FAST


class Bulk:
    """A mutated snapshot; its repr says which object and how (the values may be 10,000 deep)."""

    def __init__(self, items: list[dict], index: int, clean: dict, log: list[str]) -> None:
        self.items, self.index, self.clean, self.log = items, index, clean, log

    def __repr__(self) -> str:
        return f"Bulk(items[{self.index}] {self.clean.get('kind')}, {self.log!r})"


@st.composite
def bulk_snapshots(draw) -> Bulk:
    items = copy.deepcopy(SNAPSHOT)
    index = draw(st.integers(0, len(items) - 1))
    clean = copy.deepcopy(items[index])
    return Bulk(items, index, clean, _mutate(draw, [items[index]]))


@settings(FUZZ, max_examples=max(EXAMPLES // 3, 5))
@given(bulk_snapshots())
def test_a_mutated_snapshot_loads_alike_with_decodefast_on_and_off(tmp_path_factory, monkeypatch, drawn):
    items, index, clean, log = drawn.items, drawn.index, drawn.clean, drawn.log
    kind = clean.get("kind")
    bulk = items[:index] + _copies(clean, BULK) + items[index:]   # the clean copies first, then the mutated
    tmp = tmp_path_factory.mktemp("bulk")
    path = tmp / "snapshot.json"
    path.write_text(_flow_yaml({"apiVersion": "v1", "kind": "List", "items": bulk}))   # JSON, at any depth
    argv = ["simulate", str(path), "-o", "json"]
    with monkeypatch.context() as m:
        m.setattr(decode, "_FAST", _Slow())
        slow = run_cli(argv)[:3]
    with monkeypatch.context() as m:
        m.setattr(decode, "_FAST", {})
        m.setattr(decode, "_FAST_AFTER", 0)
        fast = assert_contract(argv, f"bulk {kind} {log}")
    assert fast == slow, (kind, log, slow[2], fast[2])


def test_the_snapshot_holds_what_the_fast_paths_read():
    """Bound Running pods with status, claims allocated and reserved, slices and nodes."""
    kinds = {o["kind"] for o in SNAPSHOT}
    assert {"Node", "ResourceSlice", "Pod", "ResourceClaim"} <= kinds
    assert any(o["kind"] == "Pod" and o["spec"].get("nodeName") and o["status"].get("phase") == "Running"
               for o in SNAPSHOT)
    assert any(o["kind"] == "ResourceClaim" and o["status"].get("allocation") and o["status"].get("reservedFor")
               for o in SNAPSHOT)
    assert CORPUS


# --- updates of a loaded snapshot ----------------------------------------------------------

def _loaded() -> ControlPlane:
    cp = ControlPlane(Options(seed=11))
    cp.apply(load_paths([_SNAPSHOT_FILE]), owned=True)
    cp.settle()
    return cp


@settings(FUZZ, max_examples=max(EXAMPLES // 3, 5))
@given(bulk_snapshots())
def test_a_mutated_object_applied_over_a_loaded_snapshot_keeps_the_caches_whole(tmp_path_factory, drawn):
    """The update path (apply's merge, the watch handlers' indexes on update) on odd input: the
    object applied again, mutated, is refused with drasim's own error or taken; either way the
    scheduler's sums, DynamicResources' allocations and the allocator's slices equal a recount
    from the stored objects, before and after the plane settles."""
    cp = _loaded()
    path = tmp_path_factory.mktemp("update") / "object.json"
    path.write_text(_flow_yaml(drawn.items[drawn.index]))
    try:   # with the room the CLI gives (values may nest 10,000 levels: nesting.run_with_room)
        run_with_room(lambda: cp.apply(load_paths([path])))
    except DrasimError:
        pass
    _assert_rebuilt(cp)
    run_with_room(cp.settle)
    _assert_rebuilt(cp)
