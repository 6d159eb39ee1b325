"""Resource vectors for node fit. k8s: pkg/scheduler/framework/types.go (Resource)."""
from __future__ import annotations

from drasim.api.podresources import pod_requests as _pod_requests


class Resources(dict):
    """name -> integer amount (cpu in millicores); missing means zero."""

    def __add__(self, other: dict) -> "Resources":
        out = Resources(self)
        for k, v in other.items():
            out[k] = out.get(k, 0) + v
        return out

    def __sub__(self, other: dict) -> "Resources":
        out = Resources(self)
        for k, v in other.items():
            out[k] = out.get(k, 0) - v
        return out


def pod_requests(pod: dict) -> Resources:
    """Effective requests of a pod (k8s PodRequests)."""
    return Resources(_pod_requests(pod))
