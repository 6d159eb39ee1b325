"""api/passed.Passed: remembers, and when full forgets all at once before the next value."""
from drasim.api.passed import Passed


def test_bounded_and_keeps_the_newest():
    good = Passed(3)
    for v in "abc":
        good.remember(v)
    assert good == {"a", "b", "c"}
    good.remember("d")
    assert good == {"d"}
