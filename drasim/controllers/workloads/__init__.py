"""Workload controllers of kube-controller-manager: Deployment, ReplicaSet, the garbage collector
(this package), and StatefulSet, DaemonSet, Job (statefulset.py, daemonset.py, job.py).

k8s: pkg/controller/{deployment,replicaset,garbagecollector}, pkg/controller/controller_utils.go,
     pkg/controller/controller_ref_manager.go.

Shared helpers (drasim.controllers.workloads.common), stable for every controller here:

    ControllerContext(store, clock, create, delete)       what a controller is built with
        create(obj) -> dict        ControlPlane.client_create: named (generateName), defaulted,
                                   validated, admitted (NamespaceLifecycle, quota); raises InputError
        delete(kind, ns, name, propagation="Background") -> dict | None
                                   the API server's delete (finalizers, propagation policy)
    controller_ref(owner) -> dict              metav1.NewControllerRef (controller, blockOwnerDeletion)
    controller_of(obj) -> dict | None          metav1.GetControllerOf
    is_controlled_by(obj, owner) -> bool       metav1.IsControlledBy (uid)
    pod_from_template(template, owner, namespace=None, *, name=None) -> dict
                                               controller.GetPodFromTemplate: labels, annotations,
                                               finalizers, spec; generateName `<owner>-` (or a
                                               fixed name, as StatefulSet pods have); owner ref
    create_pod(ctx, template, owner, component) -> (pod | None, error | None)
                                               PodControl.CreatePods: SuccessfulCreate / FailedCreate
                                               events ("Error creating: …"); none when the namespace
                                               is terminating, as in k8s
    submit_pod(ctx, pod, owner, component)     the same for a pod the controller has adjusted
                                               (DaemonSet node affinity, Job completion index)
    delete_pod(ctx, pod, owner, component) -> error | None     SuccessfulDelete / FailedDelete
    is_pod_active(pod), is_pod_ready(pod), is_pod_available(pod, min_ready_seconds, now),
    available_at(pod, min_ready_seconds), phase(pod), is_terminal(pod), is_terminating(pod)
    selector_of(obj) -> LabelSelector | None   the compiled spec.selector
    claim_objects(ctx, owner, selector, objects, accept=…) -> list[dict]
                                               ControllerRefManager: adopt orphans that match
                                               (selector: drasim.api.labelselector), release
                                               owned ones that no longer match
    claim_pods(ctx, owner, accept=…)           ClaimPods over the owner's namespace
    KeyQueue(clock)                            work queue of (namespace, name) keys: add, pop,
                                               add_after(key, seconds), forget(key)
    ranking.rank_for_deletion(pods, related, now) -> list[dict]   ActivePodsWithRanks order
    history.template_hash(template), history.RevisionNames
                                               StatefulSet/DaemonSet revision names (no stored
                                               ControllerRevisions)

Validation helpers for workload kinds live in drasim.api.validation.apps:
validate_label_selector(selector, path, errs), validate_pod_template(template, namespace,
path, errs), validate_int_or_percent(obj, key, path, errs).

ControllerExpectations are not needed: the store notifies subscribers synchronously, so a
controller has seen its own creates and deletes before its next sync.

A controller is a component of the simulation loop (drasim/sim/loop.py): `name`,
`has_work()`, `run_once()`. `build(ctx)` returns this package's controllers in the order they
run; each module listed in CONTROLLER_MODULES provides `controller(ctx)`.
"""
from __future__ import annotations

import importlib

from drasim.controllers.workloads.common import ControllerContext

# Order of their turns (they all run after the scheduler and kubelets, see ControlPlane): owners
# before what they own, the garbage collector last.
CONTROLLER_MODULES = ("deployment", "replicaset", "statefulset", "daemonset", "job", "garbagecollector")


def build(ctx: ControllerContext) -> list:
    """The workload controllers, as kube-controller-manager starts them (modules not present are skipped)."""
    out = []
    for name in CONTROLLER_MODULES:
        try:
            module = importlib.import_module(f"drasim.controllers.workloads.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"drasim.controllers.workloads.{name}":
                raise
            continue
        out.append(module.controller(ctx))
    return out


__all__ = ["CONTROLLER_MODULES", "ControllerContext", "build"]
