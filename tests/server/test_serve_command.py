"""The `drasim serve` command: kubeconfig merging, clean stop on SIGTERM / SIGINT, --data-dir, bad phases."""
from __future__ import annotations

import signal
import subprocess

import yaml

from drasim.server.kubeconfig import write_kubeconfig
from tests.server.harness import DRASIM, ROOT, Serve


def test_kubeconfig_is_merged_like_kind(tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "prod",
        "clusters": [{"name": "prod", "cluster": {"server": "https://prod"}},
                     {"name": "drasim", "cluster": {"server": "http://127.0.0.1:1"}}],
        "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "admin"}}],
        "users": [{"name": "admin", "user": {"token": "t"}}]}))
    write_kubeconfig(path, "http://127.0.0.1:8080")
    config = yaml.safe_load(path.read_text())
    assert config["current-context"] == "drasim"
    assert {c["name"]: c["cluster"]["server"] for c in config["clusters"]} == {
        "prod": "https://prod", "drasim": "http://127.0.0.1:8080"}
    assert [c["name"] for c in config["contexts"]] == ["prod", "drasim"]
    assert {"name": "admin", "user": {"token": "t"}} in config["users"]


def test_sigterm_stops_cleanly_and_data_dir_keeps_the_cluster(tmp_path):
    data = tmp_path / "data"
    first = Serve(tmp_path, extra=("--data-dir", str(data)))
    code, _ = first.call("POST", "/api/v1/namespaces/default/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kept"},
        "spec": {"containers": [{"name": "c", "image": "pause"}]}})
    assert code == 201
    first.proc.send_signal(signal.SIGTERM)
    assert first.proc.wait(timeout=10) == 0
    assert "drasim serve: stopped" in first.proc.stdout.read()
    first.stop()
    second = Serve(tmp_path, extra=("--data-dir", str(data)))
    try:
        code, pod = second.call("GET", "/api/v1/namespaces/default/pods/kept")
        assert code == 200 and pod["metadata"]["name"] == "kept"
        second.proc.send_signal(signal.SIGINT)
        assert second.proc.wait(timeout=10) == 0
    finally:
        second.stop()


def test_a_bad_phase_is_one_error_line_and_nothing_is_served(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c}]}\nbogus: 1\n")
    done = subprocess.run([*DRASIM, "serve", str(bad), "--kubeconfig", str(tmp_path / "kc"), "--port", "0"],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"error: {bad}#1: ") and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "kc").exists()


def test_bind_address_is_where_it_listens_and_what_the_kubeconfig_and_certificate_name(tmp_path):
    """Default 127.0.0.1 (only this machine); --bind-address moves the listener, the kubeconfig's
    server and the serving certificate's SAN together, so kubectl verifies TLS against it."""
    import re
    import shutil

    from tests.server.harness import kubectl_binary
    kubeconfig = tmp_path / "kc"
    proc = subprocess.Popen([*DRASIM, "serve", "--kubeconfig", str(kubeconfig), "--port", "0",
                             "--bind-address", "127.0.0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        assert re.search(r"listening on https://127\.0\.0\.2:\d+", line), line
        server = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        assert server.startswith("https://127.0.0.2:")
        kubectl = kubectl_binary() or shutil.which("kubectl")
        if kubectl:
            out = subprocess.run([kubectl, "--kubeconfig", str(kubeconfig), "get", "namespaces", "-o", "name"],
                                 capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert "namespace/default" in out.stdout.split()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def test_a_bind_address_that_is_not_an_ip_is_one_clear_error(tmp_path):
    result = subprocess.run([*DRASIM, "serve", "--kubeconfig", str(tmp_path / "kc"), "--bind-address", "example.com"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "--bind-address 'example.com': must be an IP address" in result.stderr
