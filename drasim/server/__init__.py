"""`drasim serve`: the live control plane behind a Kubernetes-compatible HTTP API (aiohttp).

See docs/ARCHITECTURE.md "drasim serve" for the layout; the entry point is drasim.cli.serve.
"""
__all__: list[str] = []
