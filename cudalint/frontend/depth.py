"""How deeply a function's source nests, measured on its text before any walker recurses into it.

The model builders recurse over libclang's cursors, several Python frames per level; a body
nested hundreds of levels deep (generated code, a fuzzer) would exhaust Python's recursion limit
in the middle of a ctypes callback, where the error cannot be caught cleanly. Such a function is
skipped with a diagnostic naming it, and the rest of the file is analysed.
"""

from __future__ import annotations

import re

MAX_NESTING = 100  # brackets of any kind; real kernels stay far below it
# Python frames the walkers need per nesting level, with room to spare (set in each worker)
RECURSION_LIMIT = 12 * MAX_NESTING + 2000

_SKIP = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def nesting(text: str) -> int:
    """The deepest nesting of (), [] and {} in text, ignoring comments and literals."""
    deepest = level = 0
    for ch in _SKIP.sub(" ", text):
        if ch in "([{":
            level += 1
            deepest = max(deepest, level)
        elif ch in ")]}":
            level = max(0, level - 1)
    return deepest


def function_text(lines, start_line: int, end_line: int) -> str:
    return "\n".join(lines[max(start_line - 1, 0):end_line])
