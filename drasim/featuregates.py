"""Kubernetes v1.37's DRA and scheduling feature gates, and `--feature-gates` as the components read it.

k8s: staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go (the v1.37 versioned table of
the DRA and scheduling gates), pkg/features/kube_features.go (defaultKubernetesFeatureGateDependencies),
staging/src/k8s.io/component-base/featuregate/feature_gate.go (Set, SetFromMap: parsing, the
locked-gate and dependency checks and their messages). The website's gate page for
DRAResourcePoolStatus (alpha since 1.36, served by kube-apiserver and kube-controller-manager).

drasim is one process playing every component, so one gate set applies to all of them, as a cluster
whose components are started with the same `--feature-gates`. Only the gates below are known: any
other name is refused as kube-apiserver refuses an unknown gate (see docs/spec/feature-gates.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from drasim.errors import InputError

ALPHA, BETA, GA = "ALPHA", "BETA", "GA"

# How far drasim follows a gate:
MODELLED = "yes"              # both settings change the simulation as they change v1.37
DEFAULT_ONLY = "default only"  # drasim behaves as v1.37's default; the other setting is not modelled
NO_EFFECT = "no effect"       # the gate changes only speed or objects drasim does not simulate


@dataclass(frozen=True, slots=True)
class Gate:
    name: str
    stage: str
    default: bool
    locked: bool = False
    depends_on: tuple[str, ...] = ()
    modelled: str = DEFAULT_ONLY
    note: str = ""


def _g(name, stage, default, locked=False, deps=(), modelled=DEFAULT_ONLY, note=""):
    return Gate(name, stage, default, locked, tuple(deps), modelled, note)


DRA = "DynamicResourceAllocation"

# The v1.37 entries (the last VersionedSpec at or below 1.37 of each gate).
GATES: dict[str, Gate] = {g.name: g for g in (
    _g("CompositePodGroup", ALPHA, False, note="PodGroup API not modelled"),
    _g("DRAAdminAccess", GA, True, True, (DRA,), MODELLED, "adminAccess requests; namespace label check"),
    _g("DRAConsumableCapacity", BETA, True, False, (DRA,), MODELLED,
       "allocator (shared devices, capacity requests); off: slice fields dropped"),
    _g("DRADerivedAttributes", ALPHA, False, note="not modelled: v1.37 types and allocator code not in the evidence "
       "(docs/spec/alphas.md §3)"),
    _g("DRADeviceBindingConditions", BETA, True, False, (DRA, "DRAResourceClaimDeviceStatus"), MODELLED,
       "allocator and binding conditions; off: slice fields dropped"),
    _g("DRADeviceCompatibilityGroups", ALPHA, False, False, (), MODELLED,
       "allocator; off: compatibilityGroups dropped"),
    _g("DRADeviceTaintRules", GA, True, False, ("DRADeviceTaints",), MODELLED,
       "off: the scheduler and the eviction controller ignore DeviceTaintRules"),
    _g("DRADeviceTaints", GA, True, False, (DRA,), MODELLED,
       "off: slice taints dropped, allocator ignores taints, no eviction"),
    _g("DRAExtendedResource", GA, True, True, (DRA,), MODELLED, "extended resources backed by DRA"),
    _g("DRAFractionalCapacityRange", BETA, False, note="on by default only with --min-compatibility-version=1.37"),
    _g("DRAListTypeAttributes", ALPHA, False, modelled=MODELLED,
       note="set-based matchAttribute/distinctAttribute, includes() in new selectors; off: lists dropped"),
    _g("DRANodeAllocatableResources", ALPHA, False, note="off: nodeAllocatableResources dropped; on: validated, "
       "not counted against the node (docs/spec/alphas.md §4)"),
    _g("DRAOptionalNodeOperations", ALPHA, False, note="node operations are not simulated"),
    _g("DRAPartitionableDevices", BETA, True, False, (DRA,), MODELLED,
       "allocator (counters, per-device node selection); off: slice fields dropped"),
    _g("DRAPrioritizedList", GA, True, True, (DRA,), MODELLED, "firstAvailable requests"),
    _g("DRAResourceClaimDeviceStatus", GA, True, True, (), MODELLED, "claim status.devices"),
    _g("DRAResourcePoolStatus", ALPHA, False, note="off: partitionTypeAttribute dropped; ResourcePoolStatusRequest "
       "(v1alpha3, needs --runtime-config) not served (docs/spec/alphas.md §5)"),
    _g("DRASchedulerFilterTimeout", BETA, True, False, (DRA,), NO_EFFECT, "drasim's Filter never runs for 10 s"),
    _g("DRAWorkloadResourceClaims", BETA, False, modelled=MODELLED,
       note="PodGroup claims: one claim per group template entry, one reservedFor entry per group (needs GenericWorkload)"),
    _g(DRA, GA, True, True, (), MODELLED, "DRA itself"),
    _g("GenericWorkload", BETA, False, modelled=MODELLED,
       note="PodGroup gang policy (all-or-nothing pod group cycle), Workload stored; off: not served"),
    _g("InPlacePodLevelResourcesVerticalScaling", BETA, True, note="resizes are not simulated"),
    _g("InPlacePodVerticalScaling", GA, True, True, modelled=NO_EFFECT, note="resizes are not simulated"),
    _g("InPlacePodVerticalScalingSchedulerPreemption", ALPHA, False, note="resizes are not simulated"),
    _g("InterPodAffinityHostnameFastPath", ALPHA, False, modelled=NO_EFFECT, note="speed only"),
    _g("MatchLabelKeysInPodTopologySpread", BETA, True, note="matchLabelKeys honoured"),
    _g("NodeDeclaredFeatures", GA, True, True, modelled=NO_EFFECT, note="declared features not simulated"),
    _g("NodeInclusionPolicyInPodTopologySpread", GA, True, True, modelled=MODELLED, note="node inclusion policies"),
    _g("NominatedNodeNameForExpectation", BETA, True),
    _g("OpportunisticBatching", BETA, True, modelled=NO_EFFECT, note="speed only: same decisions"),
    _g("PodGroupPreemptionPolicy", ALPHA, False, note="PodGroup API not modelled"),
    _g("PodLevelResources", BETA, True),
    _g("SchedulerAsyncAPICalls", BETA, False, modelled=NO_EFFECT, note="API calls are synchronous in-process"),
    _g("SchedulerAsyncPreemption", BETA, True),
    _g("SchedulerPopFromBackoffQ", BETA, True),
    _g("SchedulerPreQueueingHints", ALPHA, False, modelled=NO_EFFECT,
       note="claim events reach the same pods either way (indexed in drasim; tests prove equal)"),
    _g("StorageCapacityScoring", BETA, True, modelled=NO_EFFECT, note="volumes not simulated"),
    _g("TaintTolerationComparisonOperators", ALPHA, False, note="Lt/Gt tolerations not modelled"),
    _g("TopologyAwareWorkloadScheduling", ALPHA, False, modelled=MODELLED,
       note="a gang within one domain of a node label (first topology constraint); placement scores simplified"),
    _g("VolumeAttributesClass", GA, True, True, modelled=NO_EFFECT, note="volumes not simulated"),
    _g("VolumeLimitScaling", BETA, True, modelled=NO_EFFECT, note="volumes not simulated"),
)}

# component-base's special gates: set every unlocked alpha (beta) gate not named explicitly.
SPECIAL = {"AllAlpha": ALPHA, "AllBeta": BETA}

DEFAULTS: dict[str, bool] = {name: g.default for name, g in GATES.items()}


class FeatureGateError(InputError):
    """A --feature-gates value kube-apiserver would refuse (pflag's wording around component-base's)."""

    def __init__(self, value: str, message: str) -> None:
        super().__init__(f'invalid argument "{value}" for "--feature-gates" flag: {message}')
        self.reason = message


def parse(value: str) -> dict[str, bool]:
    """`Name=true,Other=false` → {name: bool}; k8s: featureGate.Set (empty items skipped, spaces trimmed,
    values as Go's strconv.ParseBool reads them)."""
    out: dict[str, bool] = {}
    for item in value.split(","):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise FeatureGateError(value, f"missing bool value for {key}")
        raw = raw.strip()
        parsed = _parse_bool(raw)
        if parsed is None:
            raise FeatureGateError(value, f'invalid value of {key}={raw}, err: strconv.ParseBool: '
                                          f'parsing "{raw}": invalid syntax')
        out[key] = parsed
    return out


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def _parse_bool(text: str) -> bool | None:
    return True if text in _TRUE else False if text in _FALSE else None


def resolve(overrides: Mapping[str, bool], value: str = "") -> dict[str, bool]:
    """Every known gate's setting with `overrides` applied; k8s: unsafeSetFromMap (an unknown gate stops
    at once; locked gates set away from their default are all reported; then dependencies)."""
    enabled = dict(DEFAULTS)
    errors: list[str] = []
    for key in sorted(overrides):   # Go walks a map; sorted keeps the message stable
        on = overrides[key]
        if key in SPECIAL:
            continue
        gate = GATES.get(key)
        if gate is None:
            raise FeatureGateError(value or _render(overrides), f"unrecognized feature gate: {key}")
        if gate.locked and on != gate.default:
            errors.append(f"cannot set feature gate {key} to {_go(on)}, feature is locked to {_go(gate.default)}")
            continue
        enabled[key] = on
    for special, stage in SPECIAL.items():
        if special in overrides:
            for name, gate in GATES.items():
                if gate.stage == stage and not gate.locked and name not in overrides:
                    enabled[name] = overrides[special]
    if not errors:
        for name in sorted(GATES):
            missing = [d for d in GATES[name].depends_on if not enabled.get(d)]
            if enabled[name] and missing:
                errors.append(f"{name} is enabled, but depends on features that are disabled: [{' '.join(missing)}]")
    if errors:   # utilerrors.NewAggregate: one error as is, several in brackets
        raise FeatureGateError(value or _render(overrides), errors[0] if len(errors) == 1 else
                               "[" + ", ".join(errors) + "]")
    return enabled


def from_flag(value: str | None) -> dict[str, bool]:
    """The full gate map for a `--feature-gates` value (None or empty: v1.37's defaults)."""
    return resolve(parse(value), value) if value else dict(DEFAULTS)


def unmodelled_changes(enabled: Mapping[str, bool]) -> list[str]:
    """Gates set away from their default whose other setting drasim does not simulate (for a warning)."""
    return [f"{name}={_go(on)}" for name, on in sorted(enabled.items())
            if name in GATES and on != GATES[name].default and GATES[name].modelled == DEFAULT_ONLY]


def _go(on: bool) -> str:
    return "true" if on else "false"


def _render(m: Mapping[str, bool]) -> str:
    return ",".join(f"{k}={_go(v)}" for k, v in m.items())


# Gates that select allocator behaviour, and the drasim.allocator.Features field each sets.
ALLOCATOR_GATES = {
    "DRAPartitionableDevices": "partitionable_devices",
    "DRAConsumableCapacity": "consumable_capacity",
    "DRAPrioritizedList": "prioritized_list",
    "DRAAdminAccess": "admin_access",
    "DRADeviceTaints": "device_taints",
    "DRADeviceBindingConditions": "device_binding",
    "DRADeviceCompatibilityGroups": "compatibility_groups",
    "DRAListTypeAttributes": "list_type_attributes",
}


def allocator_features(enabled: Mapping[str, bool]):
    """The allocator's switches for a full gate map (the allocator knows nothing of gate names)."""
    from drasim.allocator import Features

    return Features(**{field: bool(enabled.get(gate, DEFAULTS[gate])) for gate, field in ALLOCATOR_GATES.items()})
