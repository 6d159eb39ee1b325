"""Authentication and authorization as kube-apiserver does them: static bearer tokens
(tokens.py), request attributes from the URL (attributes.py) and the RBAC evaluator (rbac.py).
Pure: no server, no store; the server (drasim/server/security.py) wires them in."""
__all__: list[str] = []
