"""kube-scheduler's plugins that drasim models, one module each; names.py has the default profile."""
__all__: list[str] = []
