"""Source text without a compiler: fixture markers (``// expect: CODE``), function spans
(where each function of a ``.cu`` file starts and ends, and whether it is a kernel), and the
text with comments and strings blanked. Used by the GPU runner and the confirmation script to
map tool reports (function names, lines) back to the file; standard library only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class Marker(NamedTuple):
    line: int
    code: str
    kind: str  # "expect" / "ok"
    text: str | None = None  # the quoted message fragment, if any


_MARK_RE = re.compile(r"//\s*(?P<kind>expect|ok)\s*:\s*(?P<body>.*?)(?=//\s*(?:expect|ok)\s*:|$)")
_CODE_RE = re.compile(r"(?P<code>[A-Z][A-Z0-9]*\d{3})(?:\s+\"(?P<text>[^\"]*)\")?")


def _source_text(source: str | Path) -> str:
    if isinstance(source, Path):
        return source.read_text(encoding="utf-8", errors="replace")
    if "\n" not in source and len(source) < 4096:
        p = Path(source)
        try:
            if p.is_file():
                return p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            pass
    return source


def read_marker_details(source: str | Path) -> list[Marker]:
    """Markers with their quoted text: ``Marker(line, code, kind, text)``.

    ``source`` is a path or the file's text.
    """
    out = []
    for n, line in enumerate(_source_text(source).splitlines(), start=1):
        if "//" not in line:
            continue
        for m in _MARK_RE.finditer(line):
            for c in _CODE_RE.finditer(m.group("body")):
                out.append(Marker(n, c.group("code"), m.group("kind"), c.group("text")))
    return out


def read_markers(source: str | Path) -> list[tuple[int, str, str]]:
    """``(line, code, kind)`` for every ``// expect: CODE`` / ``// ok: CODE`` marker."""
    return [(m.line, m.code, m.kind) for m in read_marker_details(source)]


@dataclass(frozen=True)
class FunctionSpan:
    name: str
    start_line: int  # line of the opening brace's header start
    end_line: int  # line of the closing brace
    is_kernel: bool  # declared __global__
    is_device: bool = False  # declared __device__ (and not __global__)
    header: str = field(default="", compare=False)


def blank_comments_strings(src: str) -> str:
    """Replace comments, string and char literals by spaces (newlines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        elif c == "#" and (i == 0 or src[i - 1] == "\n"):
            # preprocessor line (with continuations)
            j = i
            while True:
                k = src.find("\n", j)
                if k < 0:
                    k = n
                    break
                if src[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


_IDENT_BEFORE_PAREN_RE = re.compile(r"([A-Za-z_~]\w*|operator\s*\S+?)\s*(?:<[^(){};]*>)?\s*\($")
_CONTAINER_RE = re.compile(r"\b(namespace|struct|class|union|extern\s+\"C\")\b")


def _function_name(header: str) -> str | None:
    """The name of a function whose header (text before '{') is given."""
    # find top-level parenthesised groups; the name precedes the last one
    # whose content is the parameter list (skip trailing qualifiers/attributes)
    depth = 0
    groups = []
    start = None
    for i, ch in enumerate(header):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start is not None:
                groups.append(start)
    for g in reversed(groups):
        m = _IDENT_BEFORE_PAREN_RE.search(header[: g + 1])
        if m:
            name = m.group(1)
            if name in ("__launch_bounds__", "__attribute__", "__declspec", "alignas", "decltype",
                        "noexcept", "__align__", "if", "for", "while", "switch", "return", "sizeof"):
                continue
            return name
    return None


def function_spans(source: str | Path) -> list[FunctionSpan]:
    """Top-level function definitions (also inside namespaces/structs) with line ranges.

    Simple and robust rather than complete: comments, strings and
    preprocessor lines are blanked, then braces are matched; a block whose
    header contains a parameter list is a function, a namespace/struct/class
    block is descended into.
    """
    text = blank_comments_strings(_source_text(source))
    spans: list[FunctionSpan] = []
    # stack entries: (kind, header, start_offset); kind "container"/"function"/"other"
    stack: list[tuple[str, str, int]] = []
    header_start = 0
    line_of = _line_index(text)
    for i, ch in enumerate(text):
        if ch == "{":
            in_function = any(k == "function" for k, _, _ in stack)
            header = text[header_start:i]
            kind = "other"
            if not in_function:
                h = header.strip()
                if _CONTAINER_RE.search(h) and "(" not in h.split("{")[-1].split(")")[-1] and not _function_name(h):
                    kind = "container"
                elif _function_name(h) and not re.search(r"=\s*$", h):
                    kind = "function"
            stack.append((kind, header, i))
            header_start = i + 1
        elif ch == "}":
            if stack:
                kind, header, start = stack.pop()
                if kind == "function":
                    h = header.strip()
                    name = _function_name(h) or "?"
                    hs = start - len(header) + (len(header) - len(header.lstrip()))
                    spans.append(
                        FunctionSpan(
                            name=name,
                            start_line=line_of(hs),
                            end_line=line_of(i),
                            is_kernel="__global__" in h,
                            is_device="__device__" in h and "__global__" not in h,
                            header=" ".join(h.split()),
                        )
                    )
            header_start = i + 1
        elif ch == ";":
            header_start = i + 1
    spans.sort(key=lambda s: s.start_line)
    return spans


def _line_index(text: str):
    import bisect

    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset)

    return line_of


def enclosing_function(spans: list[FunctionSpan], line: int, kernels_only: bool = False) -> FunctionSpan | None:
    """The innermost function span containing ``line``."""
    best = None
    for s in spans:
        if kernels_only and not s.is_kernel:
            continue
        if s.start_line <= line <= s.end_line:
            if best is None or s.start_line >= best.start_line:
                best = s
    return best
