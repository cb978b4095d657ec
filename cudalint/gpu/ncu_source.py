"""Line-level shared-memory counters from Nsight Compute's source page.

``ncu --section SourceCounters --page source --csv --print-source cuda,sass`` (kernel built with
``-lineinfo``) prints, per kernel, a ``"File Path"`` and a ``"Function Name"`` row, a header row
(``"Line No","Source","Address","Source", <metric names>``), then one row per CUDA source line that
has machine code (its counters summed over the line's instructions), each followed by its SASS
rows (empty ``Line No``). The columns present vary from kernel to kernel, so they are read by name.

Per line we keep the shared-memory wavefronts: ``L1 Wavefronts Shared`` (what ran),
``L1 Wavefronts Shared Ideal`` (what the access width needs without conflicts) and
``L1 Wavefronts Shared Excessive`` (the difference: bank conflicts). The ``N-Way`` column is a sum
over the line's instructions, not a degree, so the degree is taken as ``wavefronts / ideal``.
Real output: ``tests/data/gpu/runner/ncu_source_*.csv``.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from .ncu_metrics import parse_number
from .tool_output import kernel_basename


@dataclass(frozen=True)
class SharedLine:
    function: str  # as ncu printed it: "stride2_2way(float *)"
    file: str  # basename
    line: int
    space: str  # "Shared", "Global(4),Shared(4)", "-"
    operation: str  # "Load", "Store(2)", ...
    wavefronts: float
    ideal: float
    excessive: float

    @property
    def shared(self) -> bool:
        return "Shared" in self.space

    @property
    def degree(self) -> float | None:
        return self.wavefronts / self.ideal if self.ideal else None


def _num(s: str) -> float:
    return parse_number(s) or 0.0


_LINE_ROW = re.compile(r'^"(\d+)",')


def _tail(row: str, n: int) -> list[str]:
    """The last ``n`` fields of a CSV row. ncu does not escape quotes in the source text
    (``"x = 1;  // "2-way""``), so the row is read from its end, where no stray quote is."""
    rev = next(csv.reader([row[::-1]]))
    return [f[::-1] for f in rev[:n]][::-1]


def parse_source_page(text: str) -> list[SharedLine]:
    """Every source-line row of every kernel in the output (SASS rows are skipped)."""
    out: list[SharedLine] = []
    path = function = ""
    header: list[str] | None = None
    for l in text.splitlines():
        m = _LINE_ROW.match(l)
        if m and header:
            col = dict(zip(header[2:], _tail(l, len(header) - 2)))
            out.append(SharedLine(function, Path(path).name, int(m.group(1)), col.get("Address Space", "-"),
                                  col.get("Access Operation", "-"), _num(col.get("L1 Wavefronts Shared", "0")),
                                  _num(col.get("L1 Wavefronts Shared Ideal", "0")),
                                  _num(col.get("L1 Wavefronts Shared Excessive", "0"))))
        elif l.startswith('"'):
            r = next(csv.reader([l]))
            if r[:1] == ["File Path"]:
                path = r[-1]
            elif r[:1] == ["Function Name"]:
                function = r[-1]
            elif r[:1] == ["Line No"]:
                header = r
    return out


def kernel_lines(text: str, kernel: str, file: str | None = None) -> dict[int, SharedLine]:
    """The kernel's lines (bare name compared; lines of other files dropped when ``file`` is given),
    summed where a line repeats (several launches, template instances of one name)."""
    base = kernel_basename(kernel) or kernel
    name = Path(file).name if file else None
    acc: dict[int, SharedLine] = {}
    for s in parse_source_page(text):
        if kernel_basename(s.function) != base or (name and s.file and s.file != name):
            continue
        old = acc.get(s.line)
        if old is not None:
            s = SharedLine(s.function, s.file, s.line, s.space if s.shared else old.space, s.operation,
                           old.wavefronts + s.wavefronts, old.ideal + s.ideal, old.excessive + s.excessive)
        acc[s.line] = s
    return acc
