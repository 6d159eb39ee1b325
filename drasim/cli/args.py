"""Reading the command line the way people type it.

- Options may come before, between or after positional arguments (`simulate a.yaml -o json b.yaml`),
  as kubectl allows: each subcommand is parsed with argparse's intermixed parsing.
- Phases can be given positionally or with `-f FILE` (repeatable, as `kubectl apply -f`), mixed
  freely; they are applied in the order they appear on the command line.
- `explain --cluster a.yaml b.yaml POD` works although `--cluster` takes several values: when POD
  is not given on its own, the last value of the last `--cluster` group is POD (and, for
  taint-dryrun, RULE.yaml), as a reader would understand the line.
"""
from __future__ import annotations

import argparse
import os

# Subcommands whose positionals are phases: positional PHASEs are turned into `--filename=PHASE`
# before parsing so that one list, in command-line order, holds both spellings.
PHASE_COMMANDS = ("simulate", "quota", "audit", "ledger", "plan", "migrate")


class Phases(argparse.Action):
    """Appends phase paths to one list (`-f X` one, `--cluster X Y` several) and remembers how many
    the last option gave, so a trailing POD/RULE can be told from the cluster's phases."""

    def __call__(self, parser, namespace, values, option_string=None):
        values = [values] if isinstance(values, str) else list(values)
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), *values])
        setattr(namespace, "last_phase_group", len(values))


def _subparsers(ap: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))


def subcommands(ap: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """name → parser of every subcommand, in the order they were added."""
    return dict(_subparsers(ap).choices)


def _takes_value(sp: argparse.ArgumentParser, token: str) -> bool:
    """Whether option `token` (as typed, maybe an unambiguous prefix of a long option) consumes the next token."""
    if "=" in token and token.startswith("--"):
        return False
    if not token.startswith("--") and len(token) > 2:     # -ojson: the value is attached
        return False
    actions = sp._option_string_actions
    action = actions.get(token)
    if action is None and token.startswith("--") and sp.allow_abbrev:
        matches = {a for opt, a in actions.items() if opt.startswith(token)}
        action = matches.pop() if len(matches) == 1 else None
    return action is not None and action.nargs is None


def phases_as_options(sp: argparse.ArgumentParser, tokens: list[str]) -> list[str]:
    """Rewrite positional phase arguments as `--filename=PHASE`, keeping their place in the line."""
    out: list[str] = []
    i, literal = 0, False
    while i < len(tokens):
        tok = tokens[i]
        if literal or tok == "-" or not tok.startswith("-"):
            out.append(f"--filename={tok}")
        elif tok == "--":
            literal = True
        else:
            out.append(tok)
            if _takes_value(sp, tok) and i + 1 < len(tokens):
                out.append(tokens[i + 1])
                i += 1
        i += 1
    return out


def _trailing_positional(ns: argparse.Namespace, dest: str, *, must_not_exist: bool) -> None:
    """`--cluster a.yaml b.yaml POD`: the positional was swallowed by --cluster; take it back."""
    cluster = ns.cluster or []
    if getattr(ns, dest) is not None or getattr(ns, "last_phase_group", 0) < 2:
        return
    candidate = cluster[-1]
    if must_not_exist and (candidate == "-" or os.path.exists(candidate)):
        return
    setattr(ns, dest, candidate)
    ns.cluster = cluster[:-1]


def parse(ap: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse argv: top-level options (--help, --version), then one subcommand, intermixed."""
    commands = subcommands(ap)
    for i, tok in enumerate(argv):
        if tok.startswith("-") and tok != "-":
            continue        # a top-level option: --version, --help
        if tok not in commands or i > 0:
            break           # a bad choice, or options before the command: argparse reports (or acts)
        sp = commands[tok]
        rest = argv[i + 1:]
        if tok in PHASE_COMMANDS:
            rest = phases_as_options(sp, rest)
        ns = sp.parse_intermixed_args(rest)
        ns.command = tok
        if tok in PHASE_COMMANDS:
            ns.phases = list(ns.filename or [])
            if not ns.phases:
                sp.error("the following arguments are required: PHASE (or -f FILE)")
        elif tok == "explain":
            _trailing_positional(ns, "pod", must_not_exist=True)
            if ns.pod is None:
                sp.error("the following arguments are required: POD")
        elif tok == "replay":
            _trailing_positional(ns, "trace", must_not_exist=False)
            if ns.trace is None:
                sp.error("the following arguments are required: TRACE")
        elif tok == "taint-dryrun":
            _trailing_positional(ns, "rule", must_not_exist=False)
            if ns.rule is None:
                sp.error("the following arguments are required: RULE.yaml")
        if hasattr(ns, "cluster") and not ns.cluster:
            sp.error("the following arguments are required: --cluster PHASE (or -f FILE)")
        return ns
    return ap.parse_args(argv)


def feature_gates_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--feature-gates", metavar="NAME=BOOL,...",
                   help="Kubernetes v1.37 DRA and scheduling feature gates, as kube-apiserver and kube-scheduler "
                        "take them (drasim features lists them)")
