"""Inventories that look like what real DRA drivers publish (docs/hardware.md).

    generate(pool_spec) -> [DeviceClass, Node, ResourceSlice, ...]

Driver profiles: NVIDIA's GPU driver (`nvidia.py`: whole GPUs, static and dynamic MIG), the
Kubernetes DRA example driver's `gpu` and `net` profiles (`example.py`). Pure: no control plane.
"""
from drasim.hardware.pools import DRIVERS, PoolError, generate

__all__ = ["DRIVERS", "PoolError", "generate"]
