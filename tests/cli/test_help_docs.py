"""Help, the generated manual and shell completion all come from the one parser."""
import argparse
import shutil
import subprocess
from pathlib import Path

import pytest

from drasim.cli import args as cli_args
from drasim.cli import completion, docs
from drasim.cli.main import _parser, main

ROOT = Path(__file__).resolve().parents[2]


def parsers():
    ap = _parser()
    return [("drasim", ap), *cli_args.subcommands(ap).items()]


@pytest.mark.parametrize(("name", "parser"), parsers(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_option_has_help_and_every_command_examples(name, parser):
    assert "examples:\n" in (parser.epilog or ""), name
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            assert all(choice.help for choice in action._choices_actions)
            continue
        assert action.help, f"{name}: {action.option_strings or action.dest} has no help"


def test_committed_manual_is_the_generated_one(monkeypatch):
    """docs/cli.md == `python -m drasim.cli.docs`, whatever the terminal width (regenerate it
    after changing an option)."""
    monkeypatch.setenv("COLUMNS", "57")
    assert (ROOT / "docs" / "cli.md").read_text() == docs.generate(_parser()), \
        "docs/cli.md is stale: run `python -m drasim.cli.docs > docs/cli.md`"


def test_manual_names_every_option():
    text = (ROOT / "docs" / "cli.md").read_text()
    for name, parser in parsers():
        for action in parser._actions:
            for opt in action.option_strings:
                assert opt in text, (name, opt)


def test_help_prints_examples(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "--help"])
    assert exit_.value.code == 0
    assert "drasim explain --cluster cluster.yaml workload.yaml default/trainer-2" in capsys.readouterr().out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_names_every_command_and_option(shell, capsys):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for name, parser in parsers():
        assert name in script
        for action in parser._actions:
            for opt in action.option_strings:
                spelled = opt if shell != "fish" else (f"-l {opt[2:]}" if opt.startswith("--") else f"-s {opt[1:]}")
                assert spelled in script, (shell, name, opt)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_completes(tmp_path):
    """The bash script loads and completes a subcommand and an option's choices."""
    path = tmp_path / "drasim.bash"
    path.write_text(completion.script(_parser(), "bash"))
    probe = f"""source {path}
COMP_WORDS=(drasim si); COMP_CWORD=1; _shtab_drasim; echo "${{COMPREPLY[@]}}"
COMP_WORDS=(drasim simulate -o ""); COMP_CWORD=3; _shtab_drasim; echo "${{COMPREPLY[@]}}"
"""
    r = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["simulate", "table wide json yaml"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_completion_script_parses(shell, tmp_path):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} not installed")
    path = tmp_path / "script"
    path.write_text(completion.script(_parser(), shell))
    flag = ["-n"] if shell == "zsh" else ["--no-execute"]
    assert subprocess.run([shell, *flag, str(path)], capture_output=True, timeout=30).returncode == 0


@pytest.mark.parametrize(("tokens", "want"), [
    pytest.param(["a", "b"], ["--filename=a", "--filename=b"], id="positionals"),
    pytest.param(["a", "-o", "json", "b"], ["--filename=a", "-o", "json", "--filename=b"], id="value-option"),
    pytest.param(["--out", "json", "a"], ["--out", "json", "--filename=a"], id="abbreviated"),
    pytest.param(["-ojson", "a", "--events", "b"], ["-ojson", "--filename=a", "--events", "--filename=b"],
                 id="attached-and-flag"),
    pytest.param(["-f", "-", "--", "-o"], ["-f", "-", "--filename=-o"], id="stdin-and-literal"),
    pytest.param(["--metrics=m.prom", "a"], ["--metrics=m.prom", "--filename=a"], id="equals"),
])
def test_positional_phases_become_options_in_place(tokens, want):
    sim = cli_args.subcommands(_parser())["simulate"]
    assert cli_args.phases_as_options(sim, tokens) == want


@pytest.mark.skipif(shutil.which("fish") is None, reason="needs fish")
def test_fish_completion_completes(tmp_path):
    path = tmp_path / "drasim.fish"
    path.write_text(completion.script(_parser(), "fish"))
    r = subprocess.run(["fish", "-c", f"source {path}; complete -C 'drasim si'; complete -C 'drasim simulate -o '"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert [line.split("\t")[0] for line in r.stdout.splitlines()] == ["simulate", "json", "table", "wide", "yaml"]


def test_every_document_the_help_names_exists():
    """A user sent to docs/….md by --help finds it."""
    import re
    named = set(re.findall(r"docs/[\w./-]+\.md", (ROOT / "docs" / "cli.md").read_text()))
    assert named, "the manual names no document"
    assert [doc for doc in sorted(named) if not (ROOT / doc).is_file()] == []
