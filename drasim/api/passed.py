"""Values a pure check passed, remembered so a bulk load asks it once per distinct value (a
fleet repeats one creationTimestamp, a few quantities and label keys in every object).

Only passes are kept, never failures, so a remembered answer is the check's own. Bounded: when
full the set is emptied at once and refills with what keeps coming back.
"""
from __future__ import annotations


class Passed(set):
    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def remember(self, value) -> None:
        if len(self) >= self.limit:
            self.clear()
        self.add(value)


__all__ = ["Passed"]
