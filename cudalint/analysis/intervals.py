"""Barrier intervals: can two events of a kernel run with no barrier between them, and if so,
in which iterations of the loops around them?

A kernel is a source-ordered event list (the model). Two accesses share an interval when
- no barrier lies between them in program order (same iteration of every common loop that holds
  a barrier; any iterations of a common loop that holds none), or
- the later-in-text one (iteration k) reaches the end of a common loop's body and wraps around
  to the earlier-in-text one (iteration k+1) with no barrier on the way: the back edge.
Every barrier counts as ordering, even one under a condition: divergent barriers are reported by
their own rule, and assuming them taken keeps race reports free of that noise.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.model import Barrier, Kernel

SAME, NEXT, ANY = "same", "next", "any"


@dataclass(frozen=True)
class Pairing:
    """How two events (first, second: second executes later) relate across loop iterations.

    `iterations[loop_id]` is SAME (one iteration), NEXT (second runs one iteration after first)
    or ANY; `wrap_loop` is the loop whose back edge joins them, if any.
    """
    first: int  # event index executed first
    second: int  # event index executed second
    iterations: tuple  # ((loop_id, relation), ...)
    wrap_loop: int | None = None


class Intervals:
    def __init__(self, kernel: Kernel, kinds: frozenset):
        self.kernel = kernel
        ev = kernel.events
        self.barriers = [i for i, e in enumerate(ev) if isinstance(e, Barrier) and e.kind in kinds]
        self.span: dict[int, tuple[int, int]] = {}  # loop id -> (first, last) event index inside
        for i, e in enumerate(ev):
            for lid in e.loops:
                a, b = self.span.get(lid, (i, i))
                self.span[lid] = (min(a, i), max(b, i))
        self.loop_has_barrier = {lid: any(lid in ev[b].loops for b in self.barriers) for lid in self.span}

    def _clear(self, lo: int, hi: int, within: int | None = None) -> bool:
        """No barrier with index in [lo, hi] (restricted to those inside loop `within`)."""
        for b in self.barriers:
            if lo <= b <= hi and (within is None or within in self.kernel.events[b].loops):
                return False
        return True

    def pairings(self, i: int, j: int) -> list[Pairing]:
        """Ways events i <= j can share an interval (empty: always separated by a barrier)."""
        ev = self.kernel.events
        a, b = ev[i].loops, ev[j].loops
        common = []
        for x, y in zip(a, b):
            if x != y:
                break
            common.append(x)
        out = []
        if self._clear(i + 1, j - 1):
            rel = tuple((lid, SAME if self.loop_has_barrier[lid] else ANY) for lid in common)
            out.append(Pairing(i, j, rel))
        for depth, lid in enumerate(common):
            if not self.loop_has_barrier[lid]:
                continue
            start, end = self.span[lid]
            if self._clear(j + 1, end, lid) and self._clear(start, i - 1, lid):
                rel = []
                for d, other in enumerate(common):
                    rel.append((other, SAME if d < depth else NEXT if d == depth else ANY))
                out.append(Pairing(j, i, tuple(rel), wrap_loop=lid))
        return out
