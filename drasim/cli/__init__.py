"""Command line: simulate, explain, taint-dryrun, quota, bench. Thin: parse, call the library, print."""
from drasim.cli.main import main

__all__ = ["main"]
