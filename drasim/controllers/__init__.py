"""kube-controller-manager's controllers that matter for DRA: resource claims, device taint eviction, quota."""
from drasim.controllers.devicetainteviction import DeviceTaintEvictionController
from drasim.controllers.quotacontroller import QuotaController
from drasim.controllers.resourceclaim import ResourceClaimController

__all__ = ["DeviceTaintEvictionController", "QuotaController", "ResourceClaimController"]
