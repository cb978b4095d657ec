"""Lines and columns as every output format gives them.

libclang counts a column in bytes of UTF-8; SARIF (columnKind `unicodeCodePoints`), editors and
GitHub count characters. Each file's findings, related locations and diagnostics keep libclang's
byte columns (so the cache and the worker processes never depend on this); `engine.check`
converts them once, here, before suppressions, baselines and reporters see them. A line is what
the compiler calls a line: text between `\\n` (a `\\r\\n` or a lone `\\r` also ends one), not what
`str.splitlines` splits on (form feeds, U+2028 and friends are no line breaks to clang).
"""

from __future__ import annotations

import re
from dataclasses import replace

_BREAK = re.compile(r"\r\n|\r|\n")
_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of a source text, numbered as the compiler numbers them (no line terminators)."""
    lines = _BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def code_point_column(line: bytes, column: int) -> int:
    """The 1-based code-point column of a 1-based byte column on a line of UTF-8 (invalid bytes
    count one character each, as the reporters' `errors="replace"` reading shows them)."""
    if column <= 1 or line.isascii():
        return column
    head = line[:column - 1]
    return len(head.decode("utf-8", errors="replace")) + 1 + max(0, column - 1 - len(line))


class _Files:
    def __init__(self):
        self._lines: dict[str, list[bytes]] = {}

    def line(self, path: str, number: int) -> bytes:
        if path not in self._lines:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                data = b""
            self._lines[path] = _BREAK_BYTES.split(data)
        lines = self._lines[path]
        return lines[number - 1] if 0 < number <= len(lines) else b""

    def column(self, path: str, line: int, column: int) -> int:
        return code_point_column(self.line(path, line), column) if column and line else column


def to_code_points(results) -> list:
    """The results (cudalint.engine.FileResult) with every column counted in code points."""
    files = _Files()
    for r in results:
        r.findings = [_finding(f, files) for f in r.findings]
        r.diagnostics = [replace(d, column=files.column(d.path, d.line, d.column)) for d in r.diagnostics]
    return results


def _finding(f, files: _Files):
    related = tuple(replace(x, column=files.column(x.path, x.line, x.column)) for x in f.related)
    return f.with_(column=files.column(f.path, f.line, f.column),
                   end_column=files.column(f.path, f.end_line, f.end_column), related=related)
