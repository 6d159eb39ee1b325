"""Pod claim entries → claim names (k8s: resourceclaim.Name)."""
from drasim.api.podclaims import claim_name, is_owned_by, is_reserved_for, pod_claims

POD = {"metadata": {"name": "p", "namespace": "ns", "uid": "u1"},
       "spec": {"resourceClaims": [{"name": "direct", "resourceClaimName": "c1"},
                                   {"name": "made", "resourceClaimTemplateName": "t"},
                                   {"name": "skipped", "resourceClaimTemplateName": "t"},
                                   {"name": "pending", "resourceClaimTemplateName": "t"}]},
       "status": {"resourceClaimStatuses": [{"name": "made", "resourceClaimName": "p-made-abcde"},
                                            {"name": "skipped"}]}}


def test_claim_names():
    """Direct names; template claims from status (owner check), null when not needed, error when not created."""
    entries = POD["spec"]["resourceClaims"]
    assert claim_name(POD, entries[0]) == ("c1", False, None)
    assert claim_name(POD, entries[1]) == ("p-made-abcde", True, None)
    assert claim_name(POD, entries[2]) == (None, True, None)
    assert claim_name(POD, entries[3]) == (None, True, 'pod "ns/p": ResourceClaim not created yet')
    assert [(e["name"], n) for e, n, _ in pod_claims(POD)] == [
        ("direct", "c1"), ("made", "p-made-abcde"), ("skipped", None), ("pending", None)]


def test_owner_and_reservation():
    """A claim is for the pod when the pod is its controller owner; reserved when reservedFor lists the pod."""
    claim = {"metadata": {"ownerReferences": [{"uid": "u1", "controller": True}]},
             "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"}]}}
    assert is_owned_by(claim, POD) and is_reserved_for(claim, POD)
    other = {"metadata": {"ownerReferences": [{"uid": "u1"}]}, "status": {}}
    assert not is_owned_by(other, POD) and not is_reserved_for(other, POD)
