"""The progress line: on stderr only when it is a terminal, and only once a run takes a moment."""
import io
import time

from rich.console import Console

from drasim.cli import progress


def test_progress_shows_the_current_step_on_a_terminal(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(progress, "Console", lambda file: Console(file=buf, force_terminal=True, width=80))
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)
    with progress.progress(enabled=True) as say:
        say("phase 2/3: b.yaml")
        time.sleep(0.3)
    assert "phase 2/3: b.yaml" in buf.getvalue()


def test_quick_runs_show_nothing(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(progress, "Console", lambda file: Console(file=buf, force_terminal=True, width=80))
    with progress.progress(enabled=True) as say:
        say("phase 1/1: a.yaml")
    assert buf.getvalue() == ""


def test_not_a_terminal_shows_nothing(capsys):
    with progress.progress() as say:       # stderr is captured: not a terminal
        say("phase 1/1: a.yaml")
    assert capsys.readouterr().err == ""
