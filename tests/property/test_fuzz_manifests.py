"""Fuzz: valid manifests, mutated, through every CLI command. The contract (PREAMBLE, Standards):

- exit 0, or exit 1 with exactly one `error:` line on stderr (plus any `warning:` lines);
- never a traceback: no exception but drasim's own errors leaves the library, none at all
  leaves `main`;
- a few seconds and a few hundred MB per input at most.

Seeds are every bundled example and a sample of the conformance cases; mutations delete
fields, swap types at random depths, insert unknown keys, extreme numbers and strings, and
deep nesting. CI runs a bounded number of examples; a long run on demand:

    DRASIM_FUZZ_EXAMPLES=100000 python -m pytest tests/property/test_fuzz_manifests.py -x

Inputs that broke the contract are kept in fuzz_findings/ and re-run by the last test.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, reject, settings, strategies as st

from drasim.api.loader import load_paths
from drasim.api.nesting import run_with_room
from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.errors import DrasimError

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = Path(__file__).parent / "fuzz_findings"
EXAMPLES = int(os.environ.get("DRASIM_FUZZ_EXAMPLES", "100"))
CPU_SECONDS = float(os.environ.get("DRASIM_FUZZ_CPU_SECONDS", "5"))
PEAK_BYTES = int(os.environ.get("DRASIM_FUZZ_PEAK_MB", "300")) * 1024 * 1024


def _phases(folder: Path) -> list[list[dict]]:
    out = []
    for f in sorted(folder.glob("*.yaml")):
        if f.name == "expect.yaml":
            continue
        out.append([d for d in yaml.safe_load_all(f.read_text()) if d is not None])
    return out


def _corpus() -> list[tuple[str, list[list[dict]]]]:
    seeds = [(f"examples/{d.name}", _phases(d)) for d in sorted((ROOT / "examples").iterdir()) if d.is_dir()]
    cases = sorted((ROOT / "tests" / "conformance" / "cases").iterdir())
    seeds += [(f"conformance/{d.name}", _phases(d)) for d in cases[::7]]   # every 7th: all areas, bounded
    return [(name, phases) for name, phases in seeds if any(phases)]


CORPUS = _corpus()

EXTREMES = [2**63, 2**63 - 1, -(2**63) - 1, 2**70, -1, 0, 1e308, -1e308, 5e-324, float("inf"), float("nan"),
            "NaN", "Infinity", "-0", "1e400", "9" * 400, "1Ei", "9223372036854775807Ei", "0.000000001m",
            "", " ", "\x00", "é" * 300, "x" * 70_000, "-1", "true", "null", "${x}", "{{.Index}}", "'", '"',
            "a" * 253, "a" * 254, "A_B", "*", "..", "/"]
UNKNOWN_KEYS = ["zzUnknown", "x-drasim-fuzz", "Spec", "metadata ", "apiVersion", "kind", "status", "$ref", ""]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=20),
                    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(EXTREMES))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


_BY_KIND = {"none": st.none(), "bool": st.booleans(), "int": st.integers(-(2**70), 2**70),
            "float": st.floats(), "str": st.one_of(st.text(max_size=20), st.sampled_from(EXTREMES[11:])),
            "list": st.lists(VALUES, max_size=3), "dict": st.dictionaries(st.text(max_size=8), VALUES, max_size=3)}
_KIND_OF = {type(None): "none", bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}


def _slots(doc) -> list[tuple[object, object]]:
    """Every (container, key or index) in a document, found without recursion."""
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            out.append((node, k))
            stack.append(v)
    return out


def _nested(depth: int, leaf) -> object:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


class Case:
    """A mutated seed; its repr is the seed and the mutations (the values may be 10,000 deep)."""

    def __init__(self, name: str, phases: list[list[dict]], log: list[str]) -> None:
        self.name, self.phases, self.log = name, phases, log

    def __iter__(self):
        return iter((self.name, self.phases))

    def __repr__(self) -> str:
        return f"Case({self.name!r}, {self.log!r})"


@st.composite
def mutated(draw) -> Case:
    name, phases = draw(st.sampled_from(CORPUS))
    phases = yaml.safe_load(yaml.safe_dump(phases))   # a private deep copy
    log = _mutate(draw, [d for phase in phases for d in phase])
    return Case(name, phases, log)


def _mutate(draw, docs: list) -> list[str]:
    """One to four mutations of the documents, in place; what was done, as lines."""
    log: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        doc = draw(st.sampled_from(docs))
        slots = _slots(doc)
        if not slots:
            continue
        container, key = draw(st.sampled_from(slots))
        how = draw(st.sampled_from(["delete", "swap", "unknown", "extreme", "deep"]))
        kind = doc.get("kind") if isinstance(doc, dict) else None
        log.append(f"{how} {str(key)[:40]!r} of {kind[:30] if isinstance(kind, str) else type(kind).__name__}")
        if how == "delete":
            del container[key]
        elif how == "swap":
            old = _KIND_OF.get(type(container[key]), "str")
            container[key] = draw(_BY_KIND[draw(st.sampled_from([k for k in _BY_KIND if k != old]))])
        elif how == "unknown":
            target = container[key] if isinstance(container[key], dict) else container
            if isinstance(target, dict):
                target[draw(st.sampled_from(UNKNOWN_KEYS))] = draw(VALUES)
        elif how == "extreme":
            container[key] = draw(st.sampled_from(EXTREMES))
        else:
            container[key] = _nested(draw(st.sampled_from([3, 50, 1_200, 10_001])), draw(SCALARS))
    return log


def _flow_yaml(value) -> str:
    """YAML flow text (JSON, plus .nan/.inf) for any depth: PyYAML's dumper recurses."""
    out: list[str] = []
    stack: list = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, _Raw):
            out.append(v.text)
        elif isinstance(v, (dict, list)):
            entries = list(v.items()) if isinstance(v, dict) else list(v)
            out.append("{" if isinstance(v, dict) else "[")
            stack.append(_Raw("}" if isinstance(v, dict) else "]"))
            for i in range(len(entries) - 1, -1, -1):
                x = entries[i]
                if isinstance(v, dict):
                    stack.append(x[1])
                    stack.append(_Raw(_yaml_string(str(x[0])) + ": "))
                else:
                    stack.append(x)
                if i:
                    stack.append(_Raw(", "))
        elif isinstance(v, float):
            out.append(".nan" if v != v else ".inf" if v == float("inf") else "-.inf" if v == float("-inf")
                       else repr(v))
        elif isinstance(v, str):
            out.append(_yaml_string(v))
        else:
            out.append(json.dumps(v))
    return "".join(out)


_SURROGATE_PAIR = re.compile(r"\\ud([89ab][0-9a-f]{2})\\ud([c-f][0-9a-f]{2})")


def _yaml_string(s: str) -> str:
    """A double-quoted YAML scalar: JSON's escapes, but a character beyond U+FFFF as YAML's \\U
    (a JSON surrogate pair is no character to YAML: `found invalid Unicode character escape code`)."""
    def one(m: re.Match) -> str:
        high, low = int("d" + m.group(1), 16), int("d" + m.group(2), 16)
        return "\\U%08x" % (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return _SURROGATE_PAIR.sub(one, json.dumps(s))


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _write(tmp: Path, phases: list[list[dict]]) -> list[str]:
    paths = []
    for i, docs in enumerate(phases):
        p = tmp / f"{i:02d}-phase.yaml"
        p.write_text("\n---\n".join(_flow_yaml(d) for d in docs) + "\n")
        paths.append(str(p))
    return paths


# Crashes already reported to their owner, with a reproducer in fuzz_findings/open-*: (file,
# function) of the innermost drasim frame. Inputs that hit them are discarded so CI stays
# green on everything else; empty this once the owner's fix is merged.
KNOWN_OPEN: set[tuple[str, str]] = set()   # none left: typed decoding refuses them all now


def _known_open(exc: BaseException) -> bool:
    import traceback
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/drasim/" in f.filename]
    return bool(frames) and ("drasim/" + frames[-1].filename.split("/drasim/", 1)[1],
                             frames[-1].name) in KNOWN_OPEN


def run_cli(argv: list[str]) -> tuple[int, str, str, float, int]:
    """main(argv) in process: (exit status, stdout, stderr, CPU seconds, peak traced bytes)."""
    out, err = io.StringIO(), io.StringIO()
    tracemalloc.start()
    cpu = time.process_time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Exception as e:
        if _known_open(e):
            reject()
        raise
    finally:
        cpu = time.process_time() - cpu
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return code, out.getvalue(), err.getvalue(), cpu, peak


def assert_contract(argv: list[str], what: str) -> tuple[int, str, str]:
    code, out, err, cpu, peak = run_cli(argv)
    lines = err.splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("error: ")]
    assert "Traceback" not in err, f"{what}: {err}"
    # Warnings first; after the error line only its own continuation (CEL's compile errors are
    # several lines in Kubernetes too: the expression and a caret under the column).
    before = lines[:errors[0]] if errors else lines
    assert all(line.startswith("warning: ") for line in before), f"{what}: stray stderr: {err!r}"
    if code == 0:
        assert not errors and out, f"{what}: exit 0 but {err!r}"
    else:
        assert code == 1 and len(errors) == 1, f"{what}: exit {code}, stderr {err!r}"
    assert cpu < CPU_SECONDS, f"{what}: {cpu:.1f} CPU s"
    assert peak < PEAK_BYTES, f"{what}: {peak / 2**20:.0f} MiB"
    return code, out, err


FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(mutated())
def test_simulate_keeps_the_contract(tmp_path_factory, case):
    name, phases = case
    tmp = tmp_path_factory.mktemp("fuzz")
    paths = _write(tmp, phases)
    try:
        assert_contract(["simulate", *paths, "-o", "json"], name)
    except BaseException:
        _keep(tmp, case)
        raise


def _keep(tmp: Path, case: Case) -> None:
    """DRASIM_FUZZ_SAVE=DIR: copy a failing input there (a folder of phase files) to keep it."""
    save = os.environ.get("DRASIM_FUZZ_SAVE")
    if save:
        import shutil
        dest = Path(save) / f"{case.name.replace('/', '-')}-{abs(hash(repr(case))) % 10**8}"
        shutil.copytree(tmp, dest, dirs_exist_ok=True)
        (dest / "MUTATIONS.txt").write_text("\n".join([case.name, *case.log]) + "\n")


RULE = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "fuzz"},
        "spec": {"taint": {"key": "fuzz", "effect": "None"}}}


def _first_pod(phases: list[list[dict]]) -> str:
    for docs in phases:
        for d in docs:
            md = d.get("metadata") if isinstance(d, dict) and d.get("kind") == "Pod" else None
            if isinstance(md, dict) and isinstance(md.get("name"), str):
                ns = md.get("namespace")
                return f"{ns}/{md['name']}" if isinstance(ns, str) and ns else md["name"]
    return "default/none"


@settings(FUZZ, max_examples=max(EXAMPLES // 4, 5))
@given(mutated(), st.sampled_from(["explain", "quota", "taint-dryrun", "library"]))
def test_no_foreign_exception_escapes_any_command(tmp_path_factory, case, command):
    """Only drasim's errors leave the library; main turns them into one line and exit 1."""
    name, phases = case
    tmp = tmp_path_factory.mktemp("fuzz")
    paths = _write(tmp, phases)
    if command == "library":
        def use() -> None:
            cp = ControlPlane()
            for p in paths:
                cp.run_phase(load_paths([p]))
            cp.objects(include_events=True)
        try:
            # With the room the CLI gives: the library's walkers recurse, and values may nest
            # 10,000 levels (nesting.run_with_room; at Python's default limit a 1,200-deep opaque
            # parameter stops decode's check with RecursionError).
            run_with_room(use)
        except DrasimError:
            pass
        except Exception as e:
            if _known_open(e):
                reject()
            raise
        return
    if command == "explain":
        argv = ["explain", _first_pod(phases), "--cluster", *paths]
    elif command == "quota":
        argv = ["quota", *paths, "-o", "json"]
    else:
        rule = tmp / "rule.yaml"
        rule.write_text(yaml.safe_dump(RULE))
        argv = ["taint-dryrun", str(rule), "--cluster", *paths]
    assert_contract(argv, f"{command} {name}")


def _findings() -> list[Path]:
    return sorted(FINDINGS.glob("*/")) if FINDINGS.is_dir() else []


@pytest.mark.parametrize("finding", _findings(), ids=lambda p: p.name)
def test_fuzz_findings_keep_the_contract(finding):
    """Every input the fuzzer once broke drasim with. Folders named open-* are known and owned
    by another area (see fuzz_findings/README.md): expected to fail until fixed there."""
    if finding.name.startswith("open-"):
        pytest.xfail("open finding, reported to its owner")
    paths = [str(p) for p in sorted(finding.glob("*.yaml"))]
    assert_contract(["simulate", *paths, "-o", "json"], finding.name)
