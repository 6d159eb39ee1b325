"""Every package lists its public surface in __all__, and every name there exists."""
import importlib
import pkgutil

import pytest

import drasim

PACKAGES = sorted(m.name for m in pkgutil.walk_packages(drasim.__path__, "drasim.") if m.ispkg)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_declared_and_importable(name):
    """__all__ exists and each entry is an attribute of the package."""
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    for attr in module.__all__:
        assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which does not exist"


def test_layering_allocator_does_not_import_upper_layers():
    """The allocator is a pure library: importing it loads no scheduler, store, server or controller."""
    import subprocess
    import sys
    code = ("import sys, drasim.allocator; bad = [m for m in sys.modules if m.startswith(("
            "'drasim.scheduler', 'drasim.store', 'drasim.server', 'drasim.controllers', 'drasim.controlplane'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_layering_scheduler_does_not_import_server_or_cli():
    """The scheduler knows nothing of controllers, kubelets, the HTTP server or the CLI."""
    import subprocess
    import sys
    code = ("import sys, drasim.scheduler.scheduler; bad = [m for m in sys.modules if m.startswith(("
            "'drasim.server', 'drasim.cli', 'drasim.controlplane', 'drasim.bench', 'drasim.controllers', 'drasim.node'))]; print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_layering_control_plane_does_not_import_server_or_cli():
    """The control plane (and everything it wires) is a library the server and CLI sit on."""
    import subprocess
    import sys
    code = ("import sys, drasim.controlplane; bad = [m for m in sys.modules if m.startswith(("
            "'drasim.server', 'drasim.cli', 'drasim.plan', 'drasim.report'))]; print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
