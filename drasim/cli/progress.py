"""A one-line progress display on stderr while phases are read and settle.

Only when stderr is a terminal (a script's stderr stays clean), transient (it is erased when the
run ends), and shown only once a run has taken a moment, so quick runs do not flicker.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

SHOW_AFTER_SECONDS = 1.5


@contextmanager
def progress(enabled: bool | None = None) -> Iterator[Callable[[str], None]]:
    """Yields `say(text)`: the current step ("phase 2/3: b.yaml"). No-op unless enabled (default:
    stderr is a terminal)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield lambda text: None
        return
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), TimeElapsedColumn(),
                   console=Console(file=sys.stderr), transient=True)
    task = bar.add_task("starting", total=None)
    timer = threading.Timer(SHOW_AFTER_SECONDS, bar.start)
    timer.daemon = True
    timer.start()
    try:
        yield lambda text: bar.update(task, description=text)
    finally:
        timer.cancel()
        timer.join()        # a start racing with the end must finish before stop()
        bar.stop()
