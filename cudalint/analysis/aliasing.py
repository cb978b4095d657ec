"""Pointer arguments that name one buffer: `blur<<<g, b>>>(d, d, n)` makes the kernel's `in` and
`out` the same memory, so a read of `in[i + 1]` races with another thread's write of `out[i + 1]`.

Only launches in the file count, and only arguments spelt alike as names (`d` and `d`): `d` and
`d + 1`, two pointers that happen to hold one address, and launches written by macros are not seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cudalint.analysis.geometry import launches_of
from cudalint.model import Access, FileModel, Kernel, Loc


# A pointer spelt as a name (`d`, `buf.data`, `p->out`, `bufs[0]`): a launch written by a macro
# spells every argument as the whole macro call, which says nothing about aliasing.
_NAME = re.compile(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*|\[\w+\])*")


@dataclass(frozen=True)
class Alias:
    kept: str  # the parameter whose Array both sides take in the aliased view
    merged: str  # the parameter whose accesses are moved onto it
    argument: str  # the argument text the launch passes for both
    launch: Loc

    def describe(self) -> str:
        return (f"`{self.kept}` and `{self.merged}` are one buffer: the launch at line {self.launch.line} passes "
                f"`{self.argument}` for both")


def aliases(model: FileModel, kernel: Kernel) -> list[Alias]:
    """Pairs of pointer parameters with global accesses that a launch passes the same argument."""
    pointers = {e.array.name for e in kernel.events if isinstance(e, Access) and e.array.space == "global"}
    found: dict = {}
    for launch in launches_of(model, kernel):
        texts = [re.sub(r"\s+", "", t) for t in launch.args_text]
        params = kernel.params[:len(texts)]
        for x, a in enumerate(params):
            for y in range(x + 1, len(params)):
                b = params[y]
                if _NAME.fullmatch(texts[x]) and texts[x] == texts[y] and a in pointers and b in pointers:
                    found.setdefault((a, b), Alias(a, b, launch.args_text[x].strip(), launch.loc))
    return list(found.values())


def aliased_view(kernel: Kernel, alias: Alias) -> tuple[Kernel, set]:
    """The kernel with the merged parameter's accesses on the kept one's Array (writable: a
    `const` view of a buffer another parameter writes is still written), and the indices of the
    events moved."""
    arrays = {e.array.name: e.array for e in kernel.events if isinstance(e, Access)}
    target = replace(arrays[alias.kept], read_only=False)
    events, moved = [], set()
    for i, e in enumerate(kernel.events):
        if isinstance(e, Access) and e.array.space == "global" and e.array.name in (alias.kept, alias.merged):
            if e.array.name == alias.merged:
                moved.add(i)
            e = replace(e, array=target)
        events.append(e)
    return replace(kernel, events=tuple(events)), moved
