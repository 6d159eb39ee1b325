"""drasim serve on the loopback: gets/s and creates/s with 8 concurrent clients, list of
10,000 pods, watch latency from write to delivery, and `kubectl apply -f` of 1,000 objects.

    python benchmarks/serve_api.py [--clients 8] [--creates 2000] [--gets 10000] [--list-pods 10000]

A benchmark, not a test: it prints figures (README, docs/PERFORMANCE.md). Everything stays
on 127.0.0.1, and every loop is bounded in count. Benchmark pods name a scheduler that does
not exist (`spec.schedulerName`), so only the API path is measured: each create is still
decoded, defaulted, validated and admitted, and stored and sent to watchers.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import yaml

PODS = "/api/v1/namespaces/default/pods"


def pod(name: str, **labels) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"schedulerName": "benchmark-idle", "containers": [{"name": "c", "image": "pause",
                     "resources": {"requests": {"cpu": "100m"}}}]}}


def start(tmp: Path, *phases: Path) -> tuple[subprocess.Popen, str, Path]:
    kubeconfig = tmp / "kubeconfig"
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from drasim.cli.main import main; "
                             "sys.exit(main(sys.argv[1:]))", "serve", *map(str, phases),
                             "--kubeconfig", str(kubeconfig), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r"(https://127\.0\.0\.1:\d+)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"drasim serve did not start: {line!r}")
    return proc, m.group(1), kubeconfig


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of the server process (Linux /proc; None elsewhere). On a shared
    machine throughput swings with the other jobs; the server's CPU per request does less."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_request_us(before: float | None, after: float | None, count: int) -> float | None:
    return None if before is None or after is None else (after - before) / count * 1e6


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


async def creates(session, url: str, clients: int, total: int) -> float:
    names = iter(range(total))

    async def worker():
        for i in names:
            async with session.post(url + PODS, json=pod(f"c-{i}")) as r:
                assert r.status == 201, await r.text()
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return total / (time.perf_counter() - t0)


async def gets(session, url: str, clients: int, total: int, existing: int) -> float:
    todo = iter(range(total))

    async def worker():
        for i in todo:
            async with session.get(f"{url}{PODS}/c-{i % existing}") as r:
                assert r.status == 200
                await r.read()
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return total / (time.perf_counter() - t0)


async def list_time(session, url: str, repeats: int = 3) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        async with session.get(url + PODS) as r:
            body = await r.json()
        best = min(best, time.perf_counter() - t0)
        count = len(body["items"])
    return best, count


async def watch_latency(session, url: str, samples: int) -> list[float]:
    latencies: list[float] = []
    sent: dict[str, float] = {}
    got = asyncio.Event()
    async with session.get(url + PODS + "?watch=1&labelSelector=probe%3Dyes&resourceVersion=0",
                           timeout=aiohttp.ClientTimeout(total=120)) as stream:
        async def reader():
            async for line in stream.content:
                ev = json.loads(line)
                name = ev["object"]["metadata"]["name"]
                if ev["type"] == "ADDED" and name in sent:
                    latencies.append(time.perf_counter() - sent.pop(name))
                    got.set()
        task = asyncio.create_task(reader())
        for i in range(samples):
            got.clear()
            sent[f"w-{i}"] = time.perf_counter()
            async with session.post(url + PODS, json=pod(f"w-{i}", probe="yes")) as r:
                assert r.status == 201
            await asyncio.wait_for(got.wait(), 5)
        task.cancel()
    return latencies


def kubectl_apply(tmp: Path, kubeconfig: Path, objects: int) -> float | None:
    binary = Path(sys.executable).parent / "kubectl"
    binary = str(binary) if binary.exists() else shutil.which("kubectl")
    if binary is None:
        return None
    manifest = tmp / "many.yaml"   # a multi-document manifest, as people write them
    manifest.write_text("\n---\n".join(json.dumps(pod(f"k-{i}")) for i in range(objects)))
    t0 = time.perf_counter()
    done = subprocess.run([binary, "--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp / "cache"), "apply",
                           "-f", str(manifest)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"kubectl apply failed: {done.stderr[-2000:]}")
    return time.perf_counter() - t0


def credentials(kubeconfig: Path) -> tuple[dict, ssl.SSLContext]:
    """The admin token and the CA of the kubeconfig serve wrote (docs/security.md)."""
    config = yaml.safe_load(kubeconfig.read_text())
    token = config["users"][-1]["user"]["token"]
    ca = base64.b64decode(config["clusters"][-1]["cluster"]["certificate-authority-data"]).decode()
    return {"Authorization": f"Bearer {token}"}, ssl.create_default_context(cadata=ca)


async def api_figures(url: str, args, kubeconfig: Path, pid: int) -> dict:
    headers, context = credentials(kubeconfig)
    connector = aiohttp.TCPConnector(limit=args.clients * 2, ssl=context)
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:
        c0 = cpu_seconds(pid)
        out = {"creates_per_s": await creates(session, url, args.clients, args.creates)}
        c1 = cpu_seconds(pid)
        out["gets_per_s"] = await gets(session, url, args.clients, args.gets, args.creates)
        out["create_cpu_us"] = per_request_us(c0, c1, args.creates)
        out["get_cpu_us"] = per_request_us(c1, cpu_seconds(pid), args.gets)
        lat = sorted(await watch_latency(session, url, args.watch_samples))
        out["watch_p50_ms"] = 1000 * statistics.median(lat)
        out["watch_p99_ms"] = 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    return out


async def list_figures(url: str, kubeconfig: Path) -> dict:
    headers, context = credentials(kubeconfig)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context), headers=headers) as session:
        seconds, count = await list_time(session, url)
    return {"list_seconds": seconds, "list_items": count}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--creates", type=int, default=2000)
    ap.add_argument("--gets", type=int, default=10000)
    ap.add_argument("--list-pods", type=int, default=10000)
    ap.add_argument("--watch-samples", type=int, default=200)
    ap.add_argument("--apply-objects", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        proc, url, kubeconfig = start(tmp)
        try:
            figures = asyncio.run(api_figures(url, args, kubeconfig, proc.pid))
            figures["kubectl_apply_seconds"] = kubectl_apply(tmp, kubeconfig, args.apply_objects)
        finally:
            stop(proc)
        phase = tmp / "pods.json"
        phase.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                     "items": [pod(f"l-{i}") for i in range(args.list_pods)]}))
        proc, url, kubeconfig = start(tmp, phase)
        try:
            figures.update(asyncio.run(list_figures(url, kubeconfig)))
        finally:
            stop(proc)
    def cpu(key: str) -> str:
        return "" if figures[key] is None else f"  (server CPU {figures[key]:,.0f} us each)"
    print(f"creates/s ({args.clients} clients):     {figures['creates_per_s']:,.0f}{cpu('create_cpu_us')}")
    print(f"gets/s ({args.clients} clients):        {figures['gets_per_s']:,.0f}{cpu('get_cpu_us')}")
    print(f"list of {figures['list_items']:,} pods:         {figures['list_seconds'] * 1000:,.0f} ms")
    print(f"watch latency p50 / p99:   {figures['watch_p50_ms']:.1f} / {figures['watch_p99_ms']:.1f} ms")
    if figures["kubectl_apply_seconds"] is not None:
        print(f"kubectl apply -f {args.apply_objects:,} objects: {figures['kubectl_apply_seconds']:.1f} s")


if __name__ == "__main__":
    main()
