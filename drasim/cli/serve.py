"""`drasim serve`: the control plane running live behind a Kubernetes-compatible HTTP API.

    drasim serve [PHASE ...] --kubeconfig FILE [--data-dir DIR | --etcd-servers URL] [--port N] [--speed N] [--seed N]
                 [--token-auth-file FILE] [--authorization-mode AlwaysAllow|RBAC|Node,RBAC]
                 [--insecure-http]

Phases are applied in order before the server starts listening (a bad one is an error
and nothing is served). Listens on 127.0.0.1 unless --bind-address says otherwise. SIGINT / SIGTERM stop it cleanly. With
--data-dir every acknowledged write is committed to DIR/drasim.db (SQLite, drasim/store/sqlite.py)
before the client gets its answer; the next start resumes from it — same objects,
resourceVersions, uids and virtual clock — before the phases are applied. With --etcd-servers
the same happens in etcd, under kube-apiserver's /registry/... keys (drasim/store/etcd.py).

Every request needs a bearer token (docs/security.md): the kubeconfig's drasim user carries a
fresh admin token (user drasim-admin, group system:masters) and the CA of the generated serving
certificate (HTTPS: client-go sends tokens over TLS only); --token-auth-file adds users in
kube-apiserver's static token CSV format. --insecure-http serves plain HTTP when asked.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from pathlib import Path

from drasim.errors import InputError

HOST = "127.0.0.1"
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def add_arguments(p) -> None:
    p.add_argument("phases", nargs="*", metavar="PHASE", help="manifests applied in order before serving")
    p.add_argument("--kubeconfig", required=True, metavar="FILE",
                   help="kubeconfig to write (merged into an existing file; context drasim)")
    p.add_argument("--data-dir", metavar="DIR",
                   help="keep the cluster in DIR/drasim.db (SQLite): every write durable, a restart resumes")
    p.add_argument("--etcd-servers", metavar="URL",
                   help="keep the cluster in etcd (comma-separated URLs, as kube-apiserver's flag), "
                        "under /registry/...: every write durable, a restart resumes")
    p.add_argument("--bind-address", default=HOST, metavar="IP",
                   help="address to listen on (default 127.0.0.1: only this machine; 0.0.0.0 for every interface)")
    p.add_argument("--insecure-http", action="store_true",
                   help="serve plain HTTP instead of HTTPS (the kubeconfig then has http:// and no CA); a request "
                        "without a token is then a superuser, as kube-apiserver's old insecure port")
    p.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    p.add_argument("--speed", type=float, default=1.0, help="virtual seconds per wall-clock second (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed for generated names, uids and tie-breaks (default 0)")
    from drasim.cli.args import feature_gates_flag
    feature_gates_flag(p)
    p.add_argument("--token-auth-file", metavar="FILE",
                   help='more users: CSV lines token,user,uid,"group1,group2" (kube-apiserver\'s format)')
    p.add_argument("--authorization-mode", default="AlwaysAllow", metavar="MODES",
                   help="ordered, comma-separated authorizers of AlwaysAllow, Node, RBAC (kube-apiserver's flag; "
                        "default AlwaysAllow, its own default; e.g. Node,RBAC). Node also turns on NodeRestriction")


def _load(args) -> list:
    from drasim.api.loader import load_paths

    phases = []
    for path in args.phases:
        skipped: list[str] = []
        docs = load_paths([path], skipped)
        for note in skipped:
            print(f"warning: {note}", file=sys.stderr)
        if not docs and not skipped:
            raise InputError(f"{path}: no objects passed to apply")
        phases.append(docs)
    return phases


def build(phases: list, speed: float, seed: int, journal=None, gates=None):
    """The control plane with system namespaces and the phases applied, live and watched; with a
    journal (the data directory), what it kept comes first and every write goes to it."""
    from drasim.controlplane import ControlPlane, options_for
    from drasim.server.runtime import LiveControlPlane
    from drasim.server.watch import WatchHub
    from drasim.sim.clock import format_time

    documents = sum(len(p) for p in phases)
    # Applying a phase moves virtual time one second per document; start that far back so the
    # clock meets the wall clock when serving begins (AGE columns stay true).
    kept, revision, clock = journal.load() if journal is not None else ([], 0, None)
    start = clock if kept and clock is not None else time.time() - documents - 1
    cp = ControlPlane(options_for(gates, seed=seed, start=format_time(start)))
    if kept:
        cp.store.restore(kept, revision, seed)
    hub = WatchHub(cp.store)
    if kept and hasattr(journal, "history"):   # watches resume across the restart (SQLite keeps events)
        hub.preload(*journal.history())
    if journal is not None:
        if not kept:
            journal.dump(cp.store)
        journal.attach(cp.store)
    for ns in SYSTEM_NAMESPACES:
        if cp.store.get("Namespace", None, ns) is None:
            cp.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    live = LiveControlPlane(cp, speed=speed)
    for docs in phases:
        cp.apply(docs)
        while live.run_slice(budget=60.0):
            pass
    return live, hub


async def _serve(args, live, hub, stopper: dict) -> int:
    from aiohttp import web

    from drasim.server.app import Server
    from drasim.server.kubeconfig import write_kubeconfig

    from drasim.auth.tokens import read_token_file
    from drasim.server.security import Security

    tokens = read_token_file(args.token_auth_file) if args.token_auth_file else {}
    from drasim.server import tls

    server = Server(live, hub, security=Security(tokens, args.authorization_mode, insecure=args.insecure_http))
    bind = _bind_address(args.bind_address)
    # The kubeconfig points at the bound address; a wildcard is reached through the loopback.
    host = HOST if bind.is_unspecified else str(bind)
    if args.insecure_http:
        ca_pem, context = None, None
        print("warning: --insecure-http: plain HTTP, and a request without a token is user system:unsecured "
              "in system:masters (kube-apiserver's removed insecure port)", file=sys.stderr, flush=True)
    else:
        ca_pem, chain_pem, key_pem = tls.generate(tuple(dict.fromkeys((host, "127.0.0.1", "localhost"))))
        context = tls.server_context(chain_pem, key_pem)
    runner = web.ServerRunner(server.low_level(), handle_signals=False, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, str(bind), args.port, ssl_context=context)
    try:
        await site.start()
    except OSError as e:
        await runner.cleanup()
        raise InputError(f"--port {args.port}: cannot listen on {bind}: {e.strerror or e}") from None
    port = site._server.sockets[0].getsockname()[1]
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    url = f"{'http' if args.insecure_http else 'https'}://{authority}"
    server.address = authority
    write_kubeconfig(args.kubeconfig, url, server.admin_token, ca_pem)
    if args.data_dir:
        Path(args.data_dir).mkdir(parents=True, exist_ok=True)
        (Path(args.data_dir) / "serve.json").write_text(json.dumps({"server": url}) + "\n", encoding="utf-8")
    print(f"drasim serve: listening on {url} (virtual time at {args.speed:g}x wall clock)", flush=True)
    print(f"kubeconfig: {args.kubeconfig} (context drasim)\n  export KUBECONFIG={args.kubeconfig}\n"
          f"  kubectl get nodes", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    stopper["stop"] = lambda: loop.call_soon_threadsafe(stop.set)   # the main thread's signal handlers call it
    pump = asyncio.create_task(live.run())
    await stop.wait()
    pump.cancel()
    await runner.cleanup()
    print("drasim serve: stopped", flush=True)
    return 0


def _bind_address(text: str):
    """kube-apiserver's --bind-address: an IP address, not a name."""
    import ipaddress
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise InputError(f"--bind-address {text!r}: must be an IP address") from None


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        raise InputError(f"--speed {args.speed:g}: must be greater than 0")
    _bind_address(args.bind_address)   # refused before anything is loaded
    from drasim.server.security import parse_modes
    parse_modes(args.authorization_mode)
    if args.data_dir and args.etcd_servers:
        raise InputError("--data-dir and --etcd-servers: give one place to keep the cluster, not both")
    # Objects may nest as deep as Kubernetes lets them (an opaque parameter of 10 KiB, thousands
    # of levels): loading, every request, the journal and the encoded responses run in a thread
    # with room for them (nesting.run_with_room), as the batch commands do. Signals reach only the
    # main thread: its handlers stop the loop; before the loop runs they interrupt as usual.
    from drasim.api.nesting import run_with_room
    stopper: dict = {}
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def on_signal(signum, frame) -> None:
        if "stop" in stopper:
            stopper["stop"]()
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        else:
            raise SystemExit(128 + signum)

    for sig in previous:
        signal.signal(sig, on_signal)
    try:
        return run_with_room(_run, args, stopper)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(args: argparse.Namespace, stopper: dict) -> int:
    journal = None
    if args.etcd_servers:
        from drasim.store.etcd import EtcdUnreachable, open_etcd
        try:
            journal = open_etcd(args.etcd_servers)
            return asyncio.run(_serve(args, *build(_load(args), args.speed, args.seed, journal, args.gates), stopper))
        except EtcdUnreachable as e:   # the line kube-apiserver's users look for, no traceback
            print(f"drasim serve: {e}", file=sys.stderr)
            return 1
    if args.data_dir:
        from drasim.store.sqlite import open_data_dir
        journal = open_data_dir(args.data_dir)
    live, hub = build(_load(args), args.speed, args.seed, journal, args.gates)
    return asyncio.run(_serve(args, live, hub, stopper))
