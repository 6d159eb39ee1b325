"""kube-scheduler: queue, framework, plugins."""
