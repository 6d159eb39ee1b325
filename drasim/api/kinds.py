"""The kinds drasim serves, declared once (as kr8s does) and used by the loader,
the store, the output and the API server's discovery.

v1.37 serves the DRA kinds at resource.k8s.io/v1 only by default; v1beta1,
v1beta2 and v1alpha3 exist in the code but are not served (spec
device-taints.md §1.2), and there is no device.k8s.io group (§1.3).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Kind:
    group: str          # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    has_status: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def kind_group(self) -> str:
        """How API errors name the kind: `DeviceClass.resource.k8s.io`, `Pod`."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @property
    def resource(self) -> str:
        """`deviceclasses.resource.k8s.io`, `pods` (as kubectl prints resources)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


RESOURCE_GROUP = "resource.k8s.io"
APPS_GROUP = "apps"
BATCH_GROUP = "batch"
POLICY_GROUP = "policy"

## core/v1
NAMESPACE = Kind("", "v1", "Namespace", "namespaces", namespaced=False)
NODE = Kind("", "v1", "Node", "nodes", namespaced=False)
POD = Kind("", "v1", "Pod", "pods", namespaced=True)
RESOURCE_QUOTA = Kind("", "v1", "ResourceQuota", "resourcequotas", namespaced=True)
EVENT = Kind("", "v1", "Event", "events", namespaced=True, has_status=False)

## apps/v1, batch/v1 (the workload controllers: drasim/controllers/workloads)
DEPLOYMENT = Kind(APPS_GROUP, "v1", "Deployment", "deployments", namespaced=True)
REPLICA_SET = Kind(APPS_GROUP, "v1", "ReplicaSet", "replicasets", namespaced=True)
STATEFUL_SET = Kind(APPS_GROUP, "v1", "StatefulSet", "statefulsets", namespaced=True)
DAEMON_SET = Kind(APPS_GROUP, "v1", "DaemonSet", "daemonsets", namespaced=True)
JOB = Kind(BATCH_GROUP, "v1", "Job", "jobs", namespaced=True)

## policy/v1 (preemption prefers victims whose budgets allow it; the eviction API refuses the rest)
POD_DISRUPTION_BUDGET = Kind(POLICY_GROUP, "v1", "PodDisruptionBudget", "poddisruptionbudgets", namespaced=True)

## resource.k8s.io/v1
DEVICE_CLASS = Kind(RESOURCE_GROUP, "v1", "DeviceClass", "deviceclasses", namespaced=False, has_status=False)
RESOURCE_SLICE = Kind(RESOURCE_GROUP, "v1", "ResourceSlice", "resourceslices", namespaced=False, has_status=False)
RESOURCE_CLAIM = Kind(RESOURCE_GROUP, "v1", "ResourceClaim", "resourceclaims", namespaced=True)
RESOURCE_CLAIM_TEMPLATE = Kind(RESOURCE_GROUP, "v1", "ResourceClaimTemplate", "resourceclaimtemplates",
                               namespaced=True, has_status=False)
DEVICE_TAINT_RULE = Kind(RESOURCE_GROUP, "v1", "DeviceTaintRule", "devicetaintrules", namespaced=False)

## scheduling.k8s.io/v1beta1 (GenericWorkload, beta in v1.37, off by default): gang scheduling
SCHEDULING_GROUP = "scheduling.k8s.io"
POD_GROUP = Kind(SCHEDULING_GROUP, "v1beta1", "PodGroup", "podgroups", namespaced=True)
WORKLOAD = Kind(SCHEDULING_GROUP, "v1beta1", "Workload", "workloads", namespaced=True, has_status=False)
## scheduling.k8s.io/v1: pods' priority (the Priority admission plugin) for preemption and queue order
PRIORITY_CLASS = Kind(SCHEDULING_GROUP, "v1", "PriorityClass", "priorityclasses", namespaced=False, has_status=False)

ALL_KINDS: tuple[Kind, ...] = (
    NAMESPACE, NODE, POD, RESOURCE_QUOTA, EVENT,
    DEVICE_CLASS, RESOURCE_SLICE, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, DEVICE_TAINT_RULE,
    # scheduling.k8s.io: v1 before v1beta1, so discovery prefers it (the first version of a group)
    DEPLOYMENT, REPLICA_SET, STATEFUL_SET, DAEMON_SET, JOB, POD_DISRUPTION_BUDGET, PRIORITY_CLASS, WORKLOAD, POD_GROUP,
)
# Kinds served only while a feature gate is on (k8s: the group's REST storage checks the gate).
GATED_KINDS: dict[str, str] = {"PodGroup": "GenericWorkload", "Workload": "GenericWorkload"}
BY_KIND: dict[str, Kind] = {k.kind: k for k in ALL_KINDS}
BY_API: dict[tuple[str, str], Kind] = {(k.api_version, k.kind): k for k in ALL_KINDS}

## rbac.authorization.k8s.io/v1: kept by `drasim serve` (drasim/server/rbacobjects.py) in the same
## store, so they share the resourceVersion, persist with the journals and can be watched; not
## simulated (the loader skips them, ALL_KINDS leaves them out).
RBAC_GROUP = "rbac.authorization.k8s.io"
ROLE = Kind(RBAC_GROUP, "v1", "Role", "roles", namespaced=True, has_status=False)
ROLE_BINDING = Kind(RBAC_GROUP, "v1", "RoleBinding", "rolebindings", namespaced=True, has_status=False)
CLUSTER_ROLE = Kind(RBAC_GROUP, "v1", "ClusterRole", "clusterroles", namespaced=False, has_status=False)
CLUSTER_ROLE_BINDING = Kind(RBAC_GROUP, "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False,
                            has_status=False)
SERVER_STORED_KINDS: tuple[Kind, ...] = (ROLE, ROLE_BINDING, CLUSTER_ROLE, CLUSTER_ROLE_BINDING)
STORED_KINDS: dict[str, Kind] = {**BY_KIND, **{k.kind: k for k in SERVER_STORED_KINDS}}

# Not an API kind: a phase's delete and scale operations (drasim/phaseops.py), never stored.
PHASE_OPERATIONS = Kind("drasim.io", "v1alpha1", "PhaseOperations", "phaseoperations", namespaced=False,
                        has_status=False)
BY_API[(PHASE_OPERATIONS.api_version, PHASE_OPERATIONS.kind)] = PHASE_OPERATIONS

# Kinds a user may put in manifests (Events are only written by components).
INPUT_KINDS: tuple[Kind, ...] = tuple(k for k in ALL_KINDS if k is not EVENT)

# Output order of `drasim simulate -o json|yaml`: infrastructure first, then workloads.
OUTPUT_ORDER: tuple[Kind, ...] = (
    NAMESPACE, NODE, PRIORITY_CLASS, DEVICE_CLASS, RESOURCE_SLICE, DEVICE_TAINT_RULE,
    RESOURCE_CLAIM_TEMPLATE, RESOURCE_CLAIM, DEPLOYMENT, REPLICA_SET, STATEFUL_SET, DAEMON_SET, JOB,
    POD_DISRUPTION_BUDGET, WORKLOAD, POD_GROUP, POD, RESOURCE_QUOTA,
)

# Kinds with a scale subresource (`kubectl scale`; a phase's `scale:` operation): spec.replicas.
SCALABLE: frozenset[str] = frozenset({"Deployment", "ReplicaSet", "StatefulSet"})

# Versions of resource.k8s.io that exist in Kubernetes but that v1.37 does not serve by default.
UNSERVED_RESOURCE_VERSIONS = ("v1beta2", "v1beta1", "v1alpha3", "v1alpha2")


# Built-in kinds a `kubectl get … -o yaml` snapshot typically holds that do not take part in
# scheduling pods onto devices (their pods are in the snapshot themselves). The loader skips
# them with a warning instead of failing; anything else unknown is an error.
NOT_SIMULATED: frozenset[tuple[str, str]] = frozenset({
    ("v1", "Service"), ("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "ServiceAccount"), ("v1", "Endpoints"),
    ("v1", "PersistentVolumeClaim"), ("v1", "PersistentVolume"), ("v1", "LimitRange"), ("v1", "Event"),
    ("v1", "ReplicationController"), ("v1", "PodTemplate"),
    ("apps/v1", "ControllerRevision"), ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"), ("networking.k8s.io/v1", "NetworkPolicy"),
    ("networking.k8s.io/v1", "IngressClass"), ("discovery.k8s.io/v1", "EndpointSlice"),
    ("events.k8s.io/v1", "Event"), ("coordination.k8s.io/v1", "Lease"), ("storage.k8s.io/v1", "StorageClass"),
    ("storage.k8s.io/v1", "CSIDriver"), ("storage.k8s.io/v1", "CSINode"), ("node.k8s.io/v1", "RuntimeClass"),
    ("rbac.authorization.k8s.io/v1", "Role"), ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"), ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"), ("autoscaling/v1", "HorizontalPodAutoscaler"),
    # what Helm charts and cluster snapshots also carry (all GA and served by v1.37)
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), ("apiregistration.k8s.io/v1", "APIService"),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"),
    ("certificates.k8s.io/v1", "CertificateSigningRequest"), ("storage.k8s.io/v1", "VolumeAttachment"),
    ("storage.k8s.io/v1", "CSIStorageCapacity"), ("storage.k8s.io/v1", "VolumeAttributesClass"),
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"), ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration"),
    ("networking.k8s.io/v1", "IPAddress"), ("networking.k8s.io/v1", "ServiceCIDR"),
})


def lookup(api_version: str, kind: str) -> Kind | None:
    return BY_API.get((api_version, kind))
