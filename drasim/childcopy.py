"""What-ifs on a copy-on-write copy of the whole process: fn(plane) run in a forked child.

ControlPlane.fork (drasim/forking.py) copies a plane's indexes and caches inside the process:
about a dozen objects per stored object, some 20 s for a 16,000-node fleet. A forked child
process starts with all of it at once — the kernel shares the parent's pages and copies only
those either side writes — so a what-if on a loaded fleet starts in well under a second, and
nothing it does reaches the parent. The answer (anything picklable) comes back through a pipe;
an exception raised by fn is raised again in the parent.

Where the system cannot fork (Windows), or when asked, fn runs on ControlPlane.fork() instead:
the same decisions either way (tests/scenarios/test_child_copy.py), so callers choose by cost
only — in_copy forks a process for planes of CHILD_OBJECTS stored objects or more.
"""
from __future__ import annotations

import gc
import os
import pickle
import sys
from typing import Any, Callable

CHILD_OBJECTS = 20_000   # below this, copying the plane in-process (milliseconds) is cheaper


class ChildFailed(RuntimeError):
    """The child process ended without an answer (killed, or exited from inside fn)."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def in_copy(cp, fn: Callable[[Any], Any], child: bool | None = None):
    """fn(copy of cp), with nothing it does reaching cp. `child`: run it in a forked process
    (True), on cp.fork() (False), or choose by size (None)."""
    if child is None:
        child = can_fork() and cp.store.size() >= CHILD_OBJECTS
    if not child:
        return fn(cp.fork())
    return in_child(fn, cp)


def in_child(fn: Callable[..., Any], *args):
    """fn(*args) in a forked child process; its result, or its exception raised here."""
    for stream in (sys.stdout, sys.stderr):   # what is buffered is written once, by the parent
        stream.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: answer, then leave without the parent's exit handlers
        status = 1
        try:
            os.close(read_end)
            gc.freeze()   # the inherited objects stay out of the collector's walks (and unwritten)
            _answer(write_end, fn, args)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as answer:
            data = answer.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if not data:
        raise ChildFailed(f"the what-if's process ended without an answer ({_how(status)})")
    outcome, value = pickle.loads(data)
    if outcome == "error":
        raise value
    return value


def _answer(fd: int, fn, args) -> None:
    try:
        payload = ("ok", fn(*args))
    except BaseException as e:   # handed to the parent as it is
        payload = ("error", e)
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:   # an answer or exception pickle cannot carry
        data = pickle.dumps(("error", ChildFailed(f"the what-if's answer cannot be sent back: {e}")))
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}"


__all__ = ["CHILD_OBJECTS", "ChildFailed", "can_fork", "in_child", "in_copy"]
