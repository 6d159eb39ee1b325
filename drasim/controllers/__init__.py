"""kube-controller-manager's controllers that matter for DRA: resource claims, device taint eviction, quota."""
