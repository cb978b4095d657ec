"""How deeply a function's source nests, measured on its text before any walker recurses into it.

The model builders recurse over libclang's cursors, several Python frames per level; a body
nested hundreds of levels deep (generated code, a fuzzer) would exhaust Python's recursion limit
in the middle of a ctypes callback, where the error cannot be caught cleanly. Such a function is
skipped with a diagnostic naming it, and the rest of the file is analysed.
"""

from __future__ import annotations

import re

MAX_NESTING = 100  # brackets of any kind; real kernels stay far below it
# libclang's own parser overflows its stack (a segfault that kills the worker) at about 2000
# nested brackets: a file nested deeper than this is not given to it at all
MAX_PARSE_NESTING = 1000
# Statements and expressions the kernel walker may have open at once, inlined helpers included:
# the text check above sees one function, a helper from another function or a header is only
# measured as the walk reaches it (cudalint.frontend.device counts them).
MAX_WALK = 4 * MAX_NESTING
# Python frames the walkers need, with room to spare (set in each worker): the kernel walker
# takes at most 4 frames per counted level, libclang's child visitor and the analyses a few
# hundred on top.
RECURSION_LIMIT = 5 * MAX_WALK + 2000


class TooDeep(Exception):
    """The kernel walker reached MAX_WALK open statements and expressions: the kernel is skipped
    (with a diagnostic naming it, and the inlined helper where the walk was) before Python's
    recursion limit is hit inside a libclang callback, which would lose children silently."""

    def __init__(self):
        super().__init__(f"more than {MAX_WALK} nested statements and expressions")
        self.helper: str | None = None  # the innermost inlined function the walk was in

# a comment or a string or character literal (what a scan of C++ text for its code steps over)
COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def nesting(text: str) -> int:
    """The deepest nesting of (), [] and {} in text, ignoring comments and literals."""
    deepest = level = 0
    for ch in COMMENT_OR_LITERAL.sub(" ", text):
        if ch in "([{":
            level += 1
            deepest = max(deepest, level)
        elif ch in ")]}":
            level = max(0, level - 1)
    return deepest


def function_text(lines, start_line: int, end_line: int) -> str:
    return "\n".join(lines[max(start_line - 1, 0):end_line])
