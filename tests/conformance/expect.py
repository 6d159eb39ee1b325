"""Compare a conformance case's expect.yaml with the state `drasim simulate -o json` printed.

The contract is the one in shared/conformance/README.md ("expect.yaml"): any
key may be left out, and whatever is written must hold. Each helper returns a
list of human-readable mismatches instead of raising, so that one test run
reports every way a case is off, not only the first.

Entry point: `check(expect, state, exit_code=..., error_output=...)`.
"""
from __future__ import annotations

from typing import Any

from drasim.api.quantity import QuantityError, parse_quantity

Obj = dict[str, Any]


def check(expect: Obj, state: Obj | None, *, exit_code: int = 0, error_output: str = "") -> list[str]:
    """Every way the run differs from `expect`; empty when the case passes.

    `state` is the parsed List (None when the run failed). An input-rejection
    case (errors.exitNonZero) is judged by exit code and message only, since a
    rejected run has no state to look at.
    """
    errors = expect.get("errors") or {}
    if errors.get("exitNonZero"):
        return check_errors(errors, exit_code, error_output)
    if exit_code != 0:
        return [f"drasim simulate exited {exit_code}: {error_output.strip()[-500:]}"]
    if state is None:
        return ["no state to check (output was not parsed)"]
    index = index_objects(state)
    return [
        *check_pods(expect.get("pods") or {}, index),
        *check_claims(expect.get("claims") or {}, index),
        *check_quota(expect.get("quota") or {}, index),
        *check_taint_rules(expect.get("deviceTaintRules") or {}, index),
    ]


# --- the List as a lookup table ---------------------------------------------

def index_objects(state: Obj) -> dict[tuple[str, str], Obj]:
    """Map (kind, "ns/name" or "name") to the object, so expectations can name objects directly."""
    index: dict[tuple[str, str], Obj] = {}
    for obj in state.get("items") or []:
        meta = obj.get("metadata") or {}
        ns = meta.get("namespace")
        key = f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))
        index[(obj.get("kind", ""), key)] = obj
    return index


def namespaced(key: str) -> str:
    """Expectations normally say "ns/name"; a bare name means the default namespace, as kubectl would."""
    return key if "/" in key else f"default/{key}"


# --- errors ------------------------------------------------------------------

def check_errors(errors: Obj, exit_code: int, error_output: str) -> list[str]:
    """Invalid input must be refused with a message naming the offending object/field."""
    problems = []
    if exit_code == 0:
        problems.append("expected a non-zero exit for invalid input, got 0")
    for needle in errors.get("messageContains") or []:
        if needle not in error_output:
            problems.append(f"error output lacks {needle!r}; got {error_output.strip()[:300]!r}")
    return problems


# --- pods --------------------------------------------------------------------

def check_pods(expected: Obj, index: dict) -> list[str]:
    """Placement, lifecycle and DRA status of each named pod."""
    problems = []
    for key, want in expected.items():
        key = namespaced(key)
        pod = index.get(("Pod", key))
        if want.get("gone"):
            if pod is not None:
                problems.append(f"pod {key}: expected gone, still exists on node {node_of(pod)!r}")
            continue
        if pod is None:
            problems.append(f"pod {key}: does not exist")
            continue
        problems += [f"pod {key}: {p}" for p in pod_problems(want, pod, index)]
    return problems


def node_of(pod: Obj) -> str | None:
    return (pod.get("spec") or {}).get("nodeName")


def pod_problems(want: Obj, pod: Obj, index: dict) -> list[str]:
    """The per-field comparisons for one existing pod."""
    problems = []
    status = pod.get("status") or {}
    node = node_of(pod)
    if "node" in want and node != want["node"]:   # `node: null` is meaningful: must stay unscheduled
        problems.append(f"node is {node!r}, expected {want['node']!r}")
    if "nodeIn" in want and node not in want["nodeIn"]:
        problems.append(f"node is {node!r}, expected one of {want['nodeIn']!r}")
    if "phase" in want and status.get("phase") != want["phase"]:
        problems.append(f"phase is {status.get('phase')!r}, expected {want['phase']!r}")
    if "extendedResourceClaimStatus" in want:
        actual = status.get("extendedResourceClaimStatus")
        if not is_subset(want["extendedResourceClaimStatus"], actual):
            problems.append(f"extendedResourceClaimStatus is {actual!r}, "
                            f"expected to include {want['extendedResourceClaimStatus']!r}")
    if "claimsReserved" in want:
        count = reserving_claim_count(pod, index)
        if count != want["claimsReserved"]:
            problems.append(f"{count} claims list it in status.reservedFor, expected {want['claimsReserved']}")
    return problems


def reserving_claim_count(pod: Obj, index: dict) -> int:
    """How many ResourceClaims reserve this pod, matched by uid (a recreated pod with the same name is another pod)."""
    uid = pod["metadata"].get("uid")
    name = pod["metadata"].get("name")
    ns = pod["metadata"].get("namespace")
    count = 0
    for (kind, _), claim in index.items():
        if kind != "ResourceClaim" or claim["metadata"].get("namespace") != ns:
            continue
        for ref in (claim.get("status") or {}).get("reservedFor") or []:
            if ref.get("resource") == "pods" and ref.get("name") == name and (not uid or ref.get("uid") == uid):
                count += 1
                break
    return count


def is_subset(want: Any, actual: Any) -> bool:
    """Partial match: dicts by the keys written, lists by every wanted item matching some actual item."""
    if isinstance(want, dict):
        return isinstance(actual, dict) and all(k in actual and is_subset(v, actual[k]) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(actual, list) and all(any(is_subset(w, a) for a in actual) for w in want)
    return want == actual


# --- claims ------------------------------------------------------------------

def check_claims(expected: Obj, index: dict) -> list[str]:
    """ResourceClaims named directly, via a pod's extended-resource claim, or required to be absent."""
    problems = []
    for key, want in expected.items():
        if key.startswith("absent:"):
            problems += check_absent_claim(key.removeprefix("absent:"), want, index)
            continue
        claim_key, problem = resolve_claim_key(key, index)
        if problem:
            problems.append(problem)
            continue
        claim = index.get(("ResourceClaim", claim_key))
        if claim is None:
            problems.append(f"claim {key}: does not exist")
            continue
        problems += [f"claim {key}: {p}" for p in claim_problems(want or {}, claim)]
    return problems


def check_absent_claim(key: str, want: Any, index: dict) -> list[str]:
    """`absent:ns/name: true` forbids the claim; `false` would be a no-op, so it is only honoured when true."""
    key = namespaced(key)
    if want and ("ResourceClaim", key) in index:
        return [f"claim {key}: expected absent, but it exists"]
    return []


def resolve_claim_key(key: str, index: dict) -> tuple[str, str | None]:
    """Turn `pod:ns/name` into the ns/name of the claim the scheduler wrote for that pod.

    The generated name has a random suffix, so expectations reach it through
    the pod's status.extendedResourceClaimStatus.resourceClaimName.
    """
    if not key.startswith("pod:"):
        return namespaced(key), None
    pod_key = namespaced(key.removeprefix("pod:"))
    pod = index.get(("Pod", pod_key))
    if pod is None:
        return "", f"claim {key}: pod {pod_key} does not exist"
    ercs = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    name = ercs.get("resourceClaimName")
    if not name:
        return "", f"claim {key}: pod has no status.extendedResourceClaimStatus.resourceClaimName"
    return f"{pod_key.split('/', 1)[0]}/{name}", None


def allocated_devices(claim: Obj) -> list[str]:
    """driver/pool/device of every allocation result, in order (duplicates kept for counting)."""
    results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
    return [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for r in results]


def claim_problems(want: Obj, claim: Obj) -> list[str]:
    """The per-field comparisons for one existing claim."""
    problems = []
    devices = allocated_devices(claim)
    if "allocated" in want:
        allocated = bool((claim.get("status") or {}).get("allocation"))
        if allocated != bool(want["allocated"]):
            problems.append(f"allocated is {allocated}, expected {bool(want['allocated'])}")
    if "devices" in want and set(devices) != set(want["devices"]):
        problems.append(f"devices are {sorted(devices)}, expected {sorted(want['devices'])}")
    if "deviceCount" in want and len(devices) != want["deviceCount"]:
        problems.append(f"{len(devices)} devices allocated, expected {want['deviceCount']}: {devices}")
    if "devicesFrom" in want:
        stray = [d for d in devices if d not in want["devicesFrom"]]
        if stray:
            problems.append(f"devices {stray} are not among {want['devicesFrom']}")
    if "annotations" in want:
        actual = claim["metadata"].get("annotations") or {}
        if not is_subset(want["annotations"], actual):
            problems.append(f"annotations are {actual!r}, expected to include {want['annotations']!r}")
    if "requests" in want:
        names = [r.get("name") for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []]
        if sorted(names) != sorted(want["requests"]):
            problems.append(f"requests are {names}, expected {want['requests']}")
    return problems


# --- quota -------------------------------------------------------------------

def check_quota(expected: Obj, index: dict) -> list[str]:
    """status.used of each ResourceQuota, by value: "1" and "1000m" are the same quantity."""
    problems = []
    for key, want in expected.items():
        key = namespaced(key)
        quota = index.get(("ResourceQuota", key))
        if quota is None:
            problems.append(f"quota {key}: does not exist")
            continue
        used = (quota.get("status") or {}).get("used") or {}
        for resource, quantity in ((want or {}).get("used") or {}).items():
            problem = quantity_problem(resource, quantity, used)
            if problem:
                problems.append(f"quota {key}: {problem}")
    return problems


def quantity_problem(resource: str, want: Any, used: Obj) -> str | None:
    """One key of status.used compared as a Kubernetes quantity, or None when it matches."""
    if resource not in used:
        return f"used[{resource}] missing, expected {want}"
    try:
        same = parse_quantity(used[resource]) == parse_quantity(want)
    except QuantityError as exc:
        return f"used[{resource}]: cannot compare {used[resource]!r} with {want!r}: {exc}"
    return None if same else f"used[{resource}] is {used[resource]}, expected {want}"


# --- device taint rules -------------------------------------------------------

def check_taint_rules(expected: Obj, index: dict) -> list[str]:
    """DeviceTaintRule conditions: each written condition must match some actual one on the keys it gives."""
    problems = []
    for name, want in expected.items():
        rule = index.get(("DeviceTaintRule", name))
        if rule is None:
            problems.append(f"deviceTaintRule {name}: does not exist")
            continue
        actual = (rule.get("status") or {}).get("conditions") or []
        for condition in (want or {}).get("conditions") or []:
            if not any(is_subset(condition, a) for a in actual):
                problems.append(f"deviceTaintRule {name}: no condition matches {condition!r}; have {actual!r}")
    return problems
