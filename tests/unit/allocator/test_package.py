"""The allocator's public surface and its layering."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys


def test_exports():
    """__all__ lists the public contract."""
    import drasim.allocator as pkg
    assert sorted(pkg.__all__) == ["AllocatedState", "Allocator", "Features", "INVALID_POOLS", "NodeAllocationFailure"]
    for name in pkg.__all__:
        assert hasattr(pkg, name)


def test_node_failure_is_an_allocation_error():
    """The scheduler catches NodeAllocationFailure before AllocationError."""
    from drasim.allocator import NodeAllocationFailure
    from drasim.errors import AllocationError
    assert issubclass(NodeAllocationFailure, AllocationError)


def test_layering():
    """Importing drasim.allocator never pulls in the scheduler, store, server or controllers (STYLE §7)."""
    code = ("import sys, drasim.allocator, drasim.allocator.search, drasim.allocator.result; "
            "bad = [m for m in sys.modules if m.split('.')[:2] in "
            "(['drasim','scheduler'], ['drasim','store'], ['drasim','server'], ['drasim','controllers'])]; "
            "print(bad); sys.exit(1 if bad else 0)")
    root = pathlib.Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
