"""The generateName the resourceclaim controller gives a template's claim (k8s: controller.go
handleClaim: `<pod>-<claim>-`, and over 57 characters both parts cut in proportion to that
prefix's length, joined by one hyphen, none at the end)."""
from hypothesis import given, strategies as st

from drasim.controllers.resourceclaim import generate_name


def test_short_names_keep_the_trailing_hyphen():
    assert generate_name("web-0", "gpu") == "web-0-gpu-"
    assert generate_name("a" * 52, "gpu") == "a" * 52 + "-gpu-"      # 57 characters: not cut


def test_long_names_are_cut_in_proportion():
    # 58 characters: 53 * 57 // 58 = 52 of the pod's, 3 * 57 // 58 = 2 of the claim's.
    assert generate_name("a" * 53, "gpu") == "a" * 52 + "-gp"
    # 65 characters: 60 * 57 // 65 = 52, 3 * 57 // 65 = 2.
    assert generate_name("a" * 60, "gpu") == "a" * 52 + "-gp"
    # Both long: 63-character pod and claim names, 128 in all: 28 of each.
    assert generate_name("p" * 63, "c" * 63) == "p" * 28 + "-" + "c" * 28


label = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=63)


@given(label, label)
def test_a_cut_prefix_leaves_room_for_the_random_suffix(pod, claim):
    prefix = generate_name(pod, claim)
    whole = len(pod) + len(claim) + 2
    assert len(prefix) <= 57
    if whole <= 57:
        assert prefix == f"{pod}-{claim}-"
        return
    # Some head of the pod name, a hyphen, some head of the claim name: each part keeps the
    # same share of its name (57 / whole), rounded down.
    cuts = [(k, len(prefix) - k - 1) for k in range(len(pod) + 1)
            if prefix == f"{pod[:k]}-{claim[:len(prefix) - k - 1]}"]
    assert any(abs(k - len(pod) * 57 / whole) < 1 and abs(m - len(claim) * 57 / whole) < 1 for k, m in cuts)
