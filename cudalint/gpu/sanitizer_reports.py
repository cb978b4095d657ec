"""The device-side reports of compute-sanitizer: racecheck hazards, synccheck barrier errors and
memcheck access errors, as frozen dataclasses (standard library only)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tool_output import (AtLocation, SourceLocation, at_location, device_frames, parse_int, parse_location, parse_triple,
                          records, sanitizer_lines, thread_block, touches)


# --------------------------------------------------------------------------
# racecheck


@dataclass(frozen=True)
class RaceHazard:
    """One racecheck report.

    ``severity`` is ``error`` or ``warning``; ``category`` is e.g.
    ``Warp Level Programming`` when the tool names one (the hazard report
    mode does; the default analysis mode does not, a warp-level hazard then
    shows only as a warning).  ``first``/``second`` are the two accesses in the
    order racecheck prints them, ``first_access``/``second_access`` their kinds
    (``Write``/``Read``).  ``count`` is the ``[N hazards]`` number (1 for a
    single hazard-mode report).
    """

    severity: str
    first_access: str
    second_access: str
    first: SourceLocation
    second: SourceLocation
    count: int = 1
    category: str | None = None
    hazard_type: str | None = None  # RAW / WAR / WAW (hazard mode)
    address_space: str | None = None  # "shared"
    block: tuple[int, int, int] | None = None
    # hazard mode, per byte: the byte the address held and (WAR, WAW) the byte the write stores
    values: tuple[str, str | None] | None = None

    @property
    def kernel(self) -> str | None:
        return self.first.kernel or self.second.kernel

    @property
    def lines(self) -> tuple[int, ...]:
        return tuple(l for l in (self.first.line, self.second.line) if l is not None)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(f for f in (self.first.file, self.second.file) if f)

    def touches(self, file: str | None, line: int) -> bool:
        """True when either access is at ``file:line`` (file compared by basename)."""
        return touches((self.first, self.second), file, line)


_RACE_HEAD_RE = re.compile(
    r"^(?P<sev>Error|Warning)\s*:\s*(?:\((?P<cat>[^)]*)\)\s*)?"
    r"Race reported between (?P<a1>\w+) access at (?P<loc1>.*)$",
    re.I,
)
_RACE_TAIL_RE = re.compile(
    r"^and (?P<a2>\w+) access at (?P<loc2>.*?)(?:\s*\[(?P<n>[\d,]+) hazards?\])?\s*$",
    re.I,
)
_HAZ_HEAD_RE = re.compile(
    r"^(?P<sev>Error|Warning|WARN|ERROR|INFO)\s*:?\s*(?:\((?P<cat>[^)]*)\)\s*)?"
    r"Potential (?P<type>RAW|WAR|WAW) hazard detected at (?P<space>__\w+__|\w+) (?P<addr>0x[0-9a-fA-F]+)"
    r"(?: in block \((?P<block>[^)]*)\))?",
    re.I,
)
_HAZ_ACCESS_RE = re.compile(
    r"^(?P<kind>Write|Read|Atomic)\s+Thread\s+\((?P<t>[^)]*)\)\s+at\s+(?P<loc>.*)$", re.I
)
_HAZ_VALUES_RE = re.compile(r"^Current Value\s*:\s*(?P<cur>[^,\s]+)(?:\s*,\s*Incoming Value\s*:\s*(?P<inc>\S+))?", re.I)


def _sev(s: str) -> str:
    s = s.lower()
    if s.startswith("warn"):
        return "warning"
    if s.startswith("info"):
        return "info"
    return "error"


def parse_racecheck(text: str) -> list[RaceHazard]:
    """Hazards from ``compute-sanitizer --tool racecheck`` output.

    Understands the default analysis report::

        Error: Race reported between Write access at k(int *)+0x90 in f.cu:9
            and Read access at k(int *)+0xb0 in f.cu:10 [7936 hazards]

    and the ``--racecheck-report hazard`` form::

        Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x4 in block (0,0,0) :
            Write Thread (1,0,0) at k(int *)+0x50 in f.cu:16
            Read Thread (0,0,0) at k(int *)+0x70 in f.cu:17
    """
    out: list[RaceHazard] = []
    lines = [l.strip() for l in sanitizer_lines(text)]
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _RACE_HEAD_RE.match(line)
        if m:
            loc1 = m.group("loc1").strip()
            tail = None
            # the "and ... access at" part may be on the same line or the next
            rest = re.search(r"\s+and\s+(\w+\s+access at .*)$", loc1, re.I)
            if rest:
                tail = _RACE_TAIL_RE.match("and " + rest.group(1))
                loc1 = loc1[: rest.start()].strip()
            j = i + 1
            while tail is None and j < len(lines) and j <= i + 2:
                tail = _RACE_TAIL_RE.match(lines[j])
                j += 1
            if tail is None:
                i += 1
                continue
            while tail is not None:  # one access can race with several: an "and ..." line each
                out.append(
                    RaceHazard(
                        severity=_sev(m.group("sev")),
                        first_access=m.group("a1").capitalize(),
                        second_access=tail.group("a2").capitalize(),
                        first=parse_location(loc1),
                        second=parse_location(tail.group("loc2")),
                        count=parse_int(tail.group("n")) if tail.group("n") else 1,
                        category=(m.group("cat") or None),
                        address_space="shared",
                    )
                )
                tail = _RACE_TAIL_RE.match(lines[j]) if j < len(lines) else None
                j += tail is not None
            i = j
            continue
        m = _HAZ_HEAD_RE.match(line)
        if m:
            accesses = []
            j = i + 1
            while j < len(lines) and len(accesses) < 2:
                am = _HAZ_ACCESS_RE.match(lines[j])
                if am:
                    accesses.append(am)
                elif lines[j] and not lines[j].lower().startswith(("current value", "incoming value")):
                    if _HAZ_HEAD_RE.match(lines[j]) or _RACE_HEAD_RE.match(lines[j]):
                        break
                j += 1
            vm = _HAZ_VALUES_RE.match(lines[j]) if j < len(lines) else None
            if len(accesses) == 2:
                space = m.group("space").strip("_")
                out.append(
                    RaceHazard(
                        severity=_sev(m.group("sev")),
                        first_access=accesses[0].group("kind").capitalize(),
                        second_access=accesses[1].group("kind").capitalize(),
                        first=parse_location(accesses[0].group("loc")),
                        second=parse_location(accesses[1].group("loc")),
                        count=1,
                        category=(m.group("cat") or None),
                        hazard_type=m.group("type").upper(),
                        address_space=space,
                        block=parse_triple(m.group("block")) if m.group("block") else None,
                        values=(vm.group("cur"), vm.group("inc")) if vm else None,
                    )
                )
                i = j + (vm is not None)
                continue
        i += 1
    return out


# --------------------------------------------------------------------------
# synccheck


@dataclass(frozen=True)
class SyncHazard(AtLocation):
    """One synccheck report, e.g. ``Barrier error detected. Divergent thread(s) in block``.

    ``scope`` is ``block`` / ``warp`` when the message says so, else None.
    """

    message: str
    location: SourceLocation | None
    thread: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    scope: str | None = None
    #: ``Device Frame:`` lines: the inlined call chain when the barrier sits in
    #: a header (``__syncwarp`` reports ``sm_30_intrinsics.hpp:110`` as its
    #: location and the user's line as a device frame)
    device_frames: tuple[SourceLocation, ...] = ()

    @property
    def kernel(self) -> str | None:
        if self.location and self.location.kernel and not self.location.kernel.startswith("__"):
            return self.location.kernel
        for f in reversed(self.device_frames):
            if f.kernel:
                return f.kernel
        return self.location.kernel if self.location else None

    @property
    def divergent(self) -> bool:
        return "diverg" in self.message.lower()


_SYNC_HEAD_RE = re.compile(r"^(Barrier error detected\..*|.*Divergent thread.*|Invalid arguments.*|.*barrier.*error.*)$", re.I)


def parse_synccheck(text: str) -> list[SyncHazard]:
    """Reports from ``compute-sanitizer --tool synccheck``."""
    out = []
    for head, details in records(text):
        if head.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY", "Program hit", "Target application")):
            continue
        if not _SYNC_HEAD_RE.match(head):
            continue
        low = head.lower()
        scope = "block" if "in block" in low else "warp" if "warp" in low else None
        t, b = thread_block(details)
        out.append(SyncHazard(head, at_location(details), t, b, scope, device_frames(details)))
    return out


# --------------------------------------------------------------------------
# memcheck


@dataclass(frozen=True)
class MemAccessError(AtLocation):
    """``Invalid __global__ read of size 16 bytes`` and its details."""

    access: str  # "read" / "write" / "atomic"
    size: int
    address_space: str  # "global", "shared", "local", "generic"...
    location: SourceLocation | None
    thread: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    address: str | None
    misaligned: bool
    out_of_bounds: bool
    message: str
    device_frames: tuple[SourceLocation, ...] = ()

    @property
    def kernel(self) -> str | None:
        if self.device_frames and self.device_frames[-1].kernel:
            return self.device_frames[-1].kernel
        return self.location.kernel if self.location else None


_INVALID_RE = re.compile(
    r"^(?:Invalid|Misaligned)\s+(?:__(?P<space>\w+?)__\s+|(?P<space2>\w+)\s+)?(?P<acc>read|write|atomic\w*)\s+of size\s+(?P<size>[\d,]+)\s+bytes?",
    re.I,
)
_ADDR_RE = re.compile(r"(?:Address|Access to) (?P<addr>0x[0-9a-fA-F]+) is (?P<what>.*)$", re.I)


def parse_memcheck(text: str) -> list[MemAccessError]:
    """Invalid / misaligned accesses from ``compute-sanitizer --tool memcheck``."""
    out = []
    for head, details in records(text):
        m = _INVALID_RE.match(head)
        if not m:
            continue
        t, b = thread_block(details)
        addr = None
        misaligned = "misaligned" in head.lower()
        oob = False
        for d in details:
            am = _ADDR_RE.search(d)
            if am:
                addr = am.group("addr")
                what = am.group("what").lower()
                misaligned = misaligned or "misaligned" in what
                oob = oob or "out of bounds" in what or "not inside" in what
            elif "misaligned" in d.lower():
                misaligned = True
            elif "out of bounds" in d.lower():
                oob = True
        out.append(
            MemAccessError(
                access=m.group("acc").lower(),
                size=parse_int(m.group("size")),
                address_space=(m.group("space") or m.group("space2") or "generic").lower(),
                location=at_location(details),
                thread=t,
                block=b,
                address=addr,
                misaligned=misaligned,
                out_of_bounds=oob,
                message=head,
                device_frames=device_frames(details),
            )
        )
    return out
