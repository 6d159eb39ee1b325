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
