"""Generated names and uids are exactly what the straightforward code gives for the same seed
(random.choice over the alphabet; str(uuid.UUID(int=…, version=4))): placements and names in every
seeded run depend on it."""
from __future__ import annotations

import random
import uuid

from hypothesis import given, settings, strategies as st

from drasim.api.kinds import STORED_KINDS
from drasim.sim.clock import Clock
from drasim.store.memory import MemoryStore, _GENERATE_ALPHABET


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), calls=st.lists(st.booleans(), min_size=1, max_size=40))
def test_names_and_uids_follow_the_reference_draws(seed, calls):
    store = MemoryStore(Clock(), seed=seed)
    reference = random.Random(seed)
    pod = STORED_KINDS["Pod"]
    for uid_call in calls:
        if uid_call:
            assert store.new_uid() == str(uuid.UUID(int=reference.getrandbits(128), version=4))
        else:
            want = "base-" + "".join(reference.choice(_GENERATE_ALPHABET) for _ in range(5))
            assert store.generate_name(pod, "base-", "ns") == want


def test_uids_are_version_4():
    store = MemoryStore(Clock(), seed=1)
    for _ in range(100):
        u = uuid.UUID(store.new_uid())
        assert u.version == 4 and u.variant == uuid.RFC_4122


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.lists(st.sampled_from(["has-uid", "uid-none", "no-uid", "name", "uid"]),
                                                  min_size=1, max_size=40))
def test_default_uid_is_setdefault_with_the_same_draws(seed, steps):
    """default_uid skips formatting a uid an object already has, never the generator's draw:
    uids and generated names that follow are those `md.setdefault("uid", new_uid())` gives
    (a null uid is replaced)."""
    fast, plain = MemoryStore(Clock(), seed=seed), MemoryStore(Clock(), seed=seed)
    pod = STORED_KINDS["Pod"]
    for step in steps:
        if step in ("has-uid", "uid-none", "no-uid"):
            md = {"has-uid": {"uid": "kept"}, "uid-none": {"uid": None}, "no-uid": {}}[step]
            a, b = dict(md), dict(md)
            fast.default_uid(a)
            drawn = plain.new_uid()
            if not b.get("uid"):   # a null uid is none (kube-apiserver gives every created object one)
                b["uid"] = drawn
            assert a == b
        elif step == "name":
            assert fast.generate_name(pod, "p-", "ns") == plain.generate_name(pod, "p-", "ns")
        else:
            assert fast.new_uid() == plain.new_uid()
