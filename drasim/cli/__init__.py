"""Command line: simulate, serve, quota, taint-dryrun, bench."""
