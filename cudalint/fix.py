"""`--fix` and `--diff`: the edits findings propose, applied to the user's files or shown as a diff.

A rule proposes an edit only where it has proved the edit safe (today: CUDA301's row padding,
where every access to the array is a plain subscript and the padding makes none of them worse);
the finding carries it as its `pad` property, (path, line, column, array, elements): add that
many elements to the innermost extent of the array declared at (line, column). Nothing is written
without `--fix`.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path


def proposed(findings) -> dict:
    """{path: {(line, column, array): elements}} of the paddings the findings propose (the first
    one per declaration: one padding serves every access to the array)."""
    out: dict = {}
    for f in findings:
        pad = dict(f.properties).get("pad")
        if pad:
            path, line, column, array, elements = pad
            out.setdefault(path, {}).setdefault((line, column, array), elements)
    return out


def _pad_declaration(row: str, column: int, array: str, elements: int) -> str | None:
    """The line with `array[...]...[N]` declared from `column` on as `array[...]...[N + elements]`."""
    start = column - 1
    m = re.compile(rf"\b{re.escape(array)}\s*((?:\[[^\[\]]*\]\s*)+)").search(row, start)  # after `__shared__ float`
    if not m:
        return None
    groups = list(re.finditer(r"\[([^\[\]]*)\]", m.group(1)))
    last = groups[-1]
    inner = last.group(1).strip()
    if not inner:
        return None
    new = str(int(inner) + elements) if inner.isdigit() else f"{inner} + {elements}"
    at = m.start(1) + last.start(1)
    return row[:at] + new + row[m.start(1) + last.end(1):]


def fixed_text(text: str, pads: dict) -> str:
    lines = text.split("\n")
    for (line, column, array), elements in sorted(pads.items()):
        if 0 < line <= len(lines):
            new = _pad_declaration(lines[line - 1], column, array, elements)
            if new is not None:
                lines[line - 1] = new
    return "\n".join(lines)


def changes(findings) -> list[tuple[str, str, str]]:
    """(path, text now, text fixed) per file a finding proposes an edit to, in path order."""
    out = []
    for path, pads in sorted(proposed(findings).items()):
        try:
            old = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        new = fixed_text(old, pads)
        if new != old:
            out.append((path, old, new))
    return out


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
