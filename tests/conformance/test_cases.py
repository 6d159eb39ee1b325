"""Every conformance case under cases/, run in-process through `drasim simulate -o json`.

Each folder is a scenario whose outcome a real Kubernetes v1.37 control plane
reaches (see README.md beside this file); `expect.py` says how the final state
is compared. Running `main()` in-process rather than as a subprocess keeps the
suite fast and lets a crash inside drasim show up as a real traceback.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from drasim.cli.main import main

from .expect import check

CASES = Path(__file__).parent / "cases"


def case_dirs() -> list[Path]:
    """Case folders are those holding an expect.yaml; sorted so test order and ids are stable."""
    return sorted(d for d in CASES.iterdir() if (d / "expect.yaml").is_file())


def phase_files(case: Path) -> list[str]:
    """The NN-*.yaml phases in name order, which is the order they must be applied in."""
    return [str(f) for f in sorted(case.glob("[0-9][0-9]-*.yaml"))]


def simulate(phases: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict | None, str]:
    """Run the CLI as a user would; return (exit code, parsed List or None, stderr).

    The CLI reports invalid input on stderr and returns non-zero instead of
    raising, so the exit code is main()'s return value.
    """
    capsys.readouterr()  # drop anything captured before this run
    code = main(["simulate", *phases, "-o", "json"])
    out, err = capsys.readouterr()
    state = json.loads(out) if code == 0 else None
    return code, state, err


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_case(case: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The settled cluster (or the rejection of invalid input) matches the case's expect.yaml."""
    expect = yaml.safe_load((case / "expect.yaml").read_text(encoding="utf-8")) or {}
    phases = phase_files(case)
    assert phases, f"{case.name}: no NN-*.yaml phase files"
    code, state, err = simulate(phases, capsys)
    problems = check(expect, state, exit_code=code, error_output=err)
    description = " ".join(str(expect.get("description", "")).split())
    assert not problems, "\n".join([f"{case.name}: {description}", *(f"  - {p}" for p in problems)])
