"""Per pod-signature node indexes: find kube-scheduler's window of feasible nodes and its best
node in O(changes · log n) per cycle instead of O(window).

kube-scheduler (schedule_one.go) walks the nodes from `nextStartNodeIndex`,
filtering each until it has found `numFeasibleNodesToFind` feasible ones, then
scores those and picks the best (ties at random). For pods with the same
signature (scheduler.FilterCache) a node's verdict and raw scores only change
when the node changes, so this index keeps them per node position and only
re-evaluates the nodes that changed since the signature was last scheduled,
and only once the window reaches them (exactly the nodes kube-scheduler would
evaluate; see `resolve_window`). Two trees over node positions answer the rest:

- a Fenwick tree of "known feasible" flags finds where the window ends;
- a segment tree of plain scores (the weighted sum of scores that need no
  normalization) gives the window's maximum, how many nodes tie for it, and the
  k-th of them in window order.

Scores that need normalization (TaintToleration, NodeAffinity) are tracked
with min/max trees; when they vary inside the window the caller falls back to
computing totals node by node, as before.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Callable

NEG = float("-inf")


class Fenwick:
    """Prefix sums of 0/1 flags over positions 0..n-1."""

    __slots__ = ("n", "tree", "flags", "log")

    def __init__(self, n: int) -> None:
        self.n = n
        self.tree = [0] * (n + 1)
        self.flags = bytearray(n)
        self.log = 1 << (n.bit_length() - 1) if n else 0

    def set(self, pos: int, flag: bool) -> None:
        old = self.flags[pos]
        new = 1 if flag else 0
        if old == new:
            return
        self.flags[pos] = new
        delta = new - old
        i = pos + 1
        tree, n = self.tree, self.n
        while i <= n:
            tree[i] += delta
            i += i & -i

    def prefix(self, pos: int) -> int:
        """Number of flags set in positions [0, pos)."""
        s, tree = 0, self.tree
        i = pos
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    def find(self, k: int) -> int:
        """Smallest position p with prefix(p + 1) >= k (k >= 1); n if the total is below k."""
        pos, tree, n = 0, self.tree, self.n
        step = self.log
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] < k:
                pos = nxt
                k -= tree[nxt]
            step >>= 1
        return pos   # 0-based position of the k-th flag


class MaxCount:
    """Segment tree: max value and how many positions reach it, with k-th search (unset = -inf)."""

    __slots__ = ("size", "mx", "cnt")

    def __init__(self, n: int) -> None:
        size = 1
        while size < max(n, 1):
            size <<= 1
        self.size = size
        self.mx = [NEG] * (2 * size)
        self.cnt = [0] * (2 * size)

    def set(self, pos: int, value: float) -> None:
        i = pos + self.size
        mx, cnt = self.mx, self.cnt
        mx[i] = value
        cnt[i] = 1 if value != NEG else 0
        i >>= 1
        while i:
            a, b = 2 * i, 2 * i + 1
            ma, mb = mx[a], mx[b]
            if ma > mb:
                mx[i], cnt[i] = ma, cnt[a]
            elif mb > ma:
                mx[i], cnt[i] = mb, cnt[b]
            else:
                mx[i], cnt[i] = ma, cnt[a] + cnt[b]
            i >>= 1

    def query(self, lo: int, hi: int) -> tuple[float, int]:
        """(max, count) over positions [lo, hi)."""
        best, count = NEG, 0
        mx, cnt = self.mx, self.cnt
        lo += self.size
        hi += self.size
        while lo < hi:
            if lo & 1:
                if mx[lo] > best:
                    best, count = mx[lo], cnt[lo]
                elif mx[lo] == best:
                    count += cnt[lo]
                lo += 1
            if hi & 1:
                hi -= 1
                if mx[hi] > best:
                    best, count = mx[hi], cnt[hi]
                elif mx[hi] == best:
                    count += cnt[hi]
            lo >>= 1
            hi >>= 1
        return best, count

    def kth(self, lo: int, hi: int, value: float, k: int) -> int:
        """Position of the k-th (0-based) position in [lo, hi) holding `value`, in order."""
        # Walk the canonical cover of [lo, hi) left to right, then descend into the node holding k.
        left, right = [], []
        a, b = lo + self.size, hi + self.size
        while a < b:
            if a & 1:
                left.append(a)
                a += 1
            if b & 1:
                b -= 1
                right.append(b)
            a >>= 1
            b >>= 1
        mx, cnt, size = self.mx, self.cnt, self.size
        for node in left + right[::-1]:
            if mx[node] != value:
                continue
            if k >= cnt[node]:
                k -= cnt[node]
                continue
            while node < size:
                l = 2 * node
                if mx[l] == value:
                    if k < cnt[l]:
                        node = l
                        continue
                    k -= cnt[l]
                node = l + 1
            return node - size
        raise IndexError("kth out of range")


class MinMax:
    """Segment tree of min and max over set positions (for scores that need normalization)."""

    __slots__ = ("size", "lo", "hi")

    def __init__(self, n: int) -> None:
        size = 1
        while size < max(n, 1):
            size <<= 1
        self.size = size
        self.lo = [float("inf")] * (2 * size)
        self.hi = [NEG] * (2 * size)

    def set(self, pos: int, value: float | None) -> None:
        i = pos + self.size
        lo, hi = self.lo, self.hi
        lo[i] = float("inf") if value is None else value
        hi[i] = NEG if value is None else value
        i >>= 1
        while i:
            lo[i] = min(lo[2 * i], lo[2 * i + 1])
            hi[i] = max(hi[2 * i], hi[2 * i + 1])
            i >>= 1

    def query(self, a: int, b: int) -> tuple[float, float]:
        mn, mxv = float("inf"), NEG
        lo, hi = self.lo, self.hi
        a += self.size
        b += self.size
        while a < b:
            if a & 1:
                mn, mxv = min(mn, lo[a]), max(mxv, hi[a])
                a += 1
            if b & 1:
                b -= 1
                mn, mxv = min(mn, lo[b]), max(mxv, hi[b])
            a >>= 1
            b >>= 1
        return mn, mxv


class SignatureIndex:
    """Verdicts and raw scores of one pod signature over the nodes in snapshot order."""

    __slots__ = ("n", "status", "plain", "normalized", "extras", "feasible", "best", "ranges", "dirty",
                 "cursor")

    def __init__(self, n: int, cursor: int) -> None:
        self.n = n
        self.status: list = [None] * n
        self.plain: list[float] = [0] * n
        self.normalized: list[tuple | None] = [None] * n
        self.extras: list = [None] * n
        self.feasible = Fenwick(n)
        self.best = MaxCount(n)
        self.ranges: list[MinMax] = []
        self.dirty: list[int] = list(range(n))   # positions whose verdict is not known
        self.cursor = cursor                     # position in the cache's change log

    def mark_dirty(self, pos: int) -> None:
        """The node at pos changed. Its entries in the trees are left as they were: the window
        search resolves every dirty position inside the window before answering, so stale
        values never reach a result (see resolve_window)."""
        d = self.dirty
        i = bisect_left(d, pos)
        if i == len(d) or d[i] != pos:
            d.insert(i, pos)
            self.extras[pos] = None

    def first_dirty(self, lo: int, hi: int) -> int | None:
        """Smallest dirty position in [lo, hi)."""
        d = self.dirty
        i = bisect_left(d, lo)
        if i < len(d) and d[i] < hi:
            return d[i]
        return None

    def record(self, pos: int, status, plain: float, normalized: tuple | None, extras) -> None:
        d = self.dirty
        i = bisect_left(d, pos)
        if i < len(d) and d[i] == pos:
            del d[i]
        self.status[pos] = status
        self.extras[pos] = extras
        ok = status is None
        self.feasible.set(pos, ok)
        best = plain if ok else NEG
        if self.best.mx[pos + self.best.size] != best:
            self.best.set(pos, best)
        self.plain[pos] = plain
        old = self.normalized[pos]
        self.normalized[pos] = normalized
        if normalized:
            while len(self.ranges) < len(normalized):
                self.ranges.append(MinMax(self.n))
            for i, (mm, value) in enumerate(zip(self.ranges, normalized)):
                v = value if ok else None
                if old is None or old[i] != v or (mm.hi[pos + mm.size] == NEG) != (v is None):
                    mm.set(pos, v)
        elif old:
            for mm in self.ranges:
                mm.set(pos, None)

    # -- the window ------------------------------------------------------------------------
    def _kth_feasible_from(self, start: int, k: int) -> int | None:
        """Position of the k-th known-feasible node walking circularly from start, or None."""
        fw = self.feasible
        before = fw.prefix(start)
        total = fw.prefix(self.n)
        if k > total:
            return None
        after_start = total - before
        if k <= after_start:
            return fw.find(before + k)
        return fw.find(k - after_start)

    def resolve_window(self, start: int, want: int, resolve: Callable[[int], None]) -> tuple[int, int]:
        """Evaluate dirty nodes until the window [start, end] holds `want` feasible nodes (or the
        whole circle is known). Returns (number of positions in the window, feasible found)."""
        n = self.n
        while True:
            end = self._kth_feasible_from(start, want)
            span = n if end is None else (end - start) % n + 1
            # the first dirty position inside the window (circular from start)
            lo_end = min(start + span, n)
            d = self.first_dirty(start, lo_end)
            if d is None and start + span > n:
                d = self.first_dirty(0, start + span - n)
            if d is None:
                found = want if end is not None else self.feasible.prefix(n)
                return span, found
            resolve(d)

    def window_ranges(self, start: int, span: int) -> list[tuple[int, int]]:
        if start + span <= self.n:
            return [(start, start + span)]
        return [(start, self.n), (0, start + span - self.n)]

    def best_in(self, ranges: list[tuple[int, int]]) -> tuple[float, int]:
        best, count = NEG, 0
        for lo, hi in ranges:
            m, c = self.best.query(lo, hi)
            if m > best:
                best, count = m, c
            elif m == best:
                count += c
        return best, count

    def kth_best(self, ranges: list[tuple[int, int]], value: float, k: int) -> int:
        for lo, hi in ranges:
            m, c = self.best.query(lo, hi)
            if m == value:
                if k < c:
                    return self.best.kth(lo, hi, value, k)
                k -= c
        raise IndexError("kth_best out of range")

    def normalized_constant(self, ranges: list[tuple[int, int]]) -> bool:
        """Whether every normalized score is the same on all feasible nodes of the window."""
        for mm in self.ranges:
            mn, mxv = float("inf"), NEG
            for lo, hi in ranges:
                a, b = mm.query(lo, hi)
                mn, mxv = min(mn, a), max(mxv, b)
            if mn != mxv and mxv != NEG:
                return False
        return True

    def extra(self, pos: int, plugin: str):
        """What a plugin stashed with the positive verdict at pos (cleared when pos turns dirty)."""
        extras = self.extras[pos]
        if extras is None or self.status[pos] is not None:
            return None
        return extras.get(plugin)

    def feasible_positions(self, ranges: list[tuple[int, int]]) -> list[int]:
        flags = self.feasible.flags
        return [p for lo, hi in ranges for p in range(lo, hi) if flags[p]]
