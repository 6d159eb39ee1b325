import subprocess
import sys


def test_server_does_not_import_the_cli():
    """drasim.server is a client of the control plane; the CLI sits above it."""
    code = ("import sys, drasim.server.app; bad = [m for m in sys.modules if m.startswith(('drasim.cli', 'drasim.bench'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
