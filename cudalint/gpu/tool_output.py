"""What every compute-sanitizer report is made of: its lines (the ``========= `` prefix stripped),
records (a headline and its indented details), source locations, threads and blocks.

Standard library only (scripts/gpu/confirm_fixtures.py loads it without cudalint's dependencies).
Source locations are only present when the program was built with ``-lineinfo`` (or ``-G``);
without it a location is just ``function+offset``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

_PREFIX_RE = re.compile(r"^={5,}\s?")


def strip_prefix(line: str) -> str:
    """Remove compute-sanitizer's ``========= `` prefix (keeps indentation)."""
    return _PREFIX_RE.sub("", line.rstrip("\r\n"), count=1)


def sanitizer_lines(text: str) -> list[str]:
    return [strip_prefix(l) for l in text.splitlines()]


def parse_int(s: str) -> int:
    return int(s.replace(",", "").strip())


# --------------------------------------------------------------------------
# names and locations


def kernel_basename(name: str | None) -> str | None:
    """The bare function name of a demangled signature.

    ``void ns::k<32, float>(const float *, int)`` -> ``k``;
    ``shift(int *)`` -> ``shift``; ``k`` -> ``k``.
    """
    if not name:
        return None
    s = name.strip().replace("(anonymous namespace)", "anonymous_namespace")
    # cut the parameter list: the first '(' outside template brackets
    depth = 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0 and i > 0:
            s = s[:i]
            break
    s = s.strip()
    # drop trailing template arguments
    while s.endswith(">"):
        depth = 0
        for j in range(len(s) - 1, -1, -1):
            if s[j] == ">":
                depth += 1
            elif s[j] == "<":
                depth -= 1
                if depth == 0:
                    s = s[:j].rstrip()
                    break
        else:
            break
    s = s.split("::")[-1]
    s = s.split()[-1] if s.split() else s
    return s or None


@dataclass(frozen=True)
class SourceLocation:
    """``function+0x140 in /path/file.cu:5`` (file/line only with -lineinfo)."""

    function: str | None  # demangled signature as printed
    offset: str | None  # "0x140"
    file: str | None  # basename
    line: int | None
    path: str | None = None  # the path as printed

    @property
    def kernel(self) -> str | None:
        return kernel_basename(self.function)


_LOC_RE = re.compile(
    r"^(?P<func>.*?)(?:\+(?P<off>0x[0-9a-fA-F]+))?"
    r"(?:\s+in\s+(?P<path>\S.*?):(?P<line>\d+))?\s*$"
)


def parse_location(text: str) -> SourceLocation:
    """Parse ``func(args)+0x10 in /p/file.cu:12`` (the part after ``at``)."""
    text = text.strip()
    m = _LOC_RE.match(text)
    if not m:  # pragma: no cover - the regex matches everything
        return SourceLocation(text or None, None, None, None)
    path = m.group("path")
    line = int(m.group("line")) if m.group("line") else None
    func = (m.group("func") or "").strip() or None
    return SourceLocation(
        function=func,
        offset=m.group("off"),
        file=Path(path).name if path else None,
        line=line,
        path=path,
    )


_THREAD_BLOCK_RE = re.compile(
    r"by thread \((?P<t>[^)]*)\) in block \((?P<b>[^)]*)\)"
)


def parse_triple(s: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in s.split(",")]
    vals = [int(p) for p in parts if p]
    while len(vals) < 3:
        vals.append(0)
    return tuple(vals[:3])  # type: ignore[return-value]


def records(text: str) -> list[tuple[str, list[str]]]:
    """Split sanitizer output into (headline, indented detail lines) records."""
    recs: list[tuple[str, list[str]]] = []
    for raw in sanitizer_lines(text):
        if not raw.strip():
            continue
        if raw[:1].isspace():
            if recs:
                recs[-1][1].append(raw.strip())
        else:
            recs.append((raw.strip(), []))
    return recs


def at_location(details: Iterable[str]) -> SourceLocation | None:
    for d in details:
        if d.startswith("at "):
            return parse_location(d[3:])
    return None


def device_frames(details: Iterable[str]) -> tuple[SourceLocation, ...]:
    out = []
    for d in details:
        if d.startswith("Device Frame:"):
            out.append(parse_location(d[len("Device Frame:"):]))
    return tuple(out)


def touches(locs, file: str | None, line: int) -> bool:
    for loc in locs:
        if loc is not None and loc.line == line and (
            file is None or loc.file is None or loc.file == Path(file).name
        ):
            return True
    return False


def thread_block(details: Iterable[str]):
    for d in details:
        m = _THREAD_BLOCK_RE.search(d)
        if m:
            return parse_triple(m.group("t")), parse_triple(m.group("b"))
    return None, None


class AtLocation:
    """A report at ``location`` (None: not printed), reached through ``device_frames``."""

    def touches(self, file: str | None, line: int) -> bool:
        return touches((self.location, *self.device_frames), file, line)

    @property
    def line(self) -> int | None:
        return self.location.line if self.location else None
