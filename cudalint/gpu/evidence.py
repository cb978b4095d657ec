"""Parsers for the text that NVIDIA's GPU tools print.

Pure Python, standard library only, no GPU needed: these functions read the
output of ``compute-sanitizer`` (racecheck, synccheck, memcheck, leak-check)
and of Nsight Compute (``ncu``) and return frozen dataclasses.  The GPU
confirmation script (``scripts/gpu/confirm_fixtures.py``) runs the tools on
the device machine and uses these parsers to decide whether the evidence
touches a fixture's marked lines; the unit tests run the parsers on real
outputs captured on an H200 (``tests/data/gpu/``).

Every compute-sanitizer line starts with the prefix ``========= `` (the
parsers strip it, and also accept text without it).  Source locations are
only present when the program was built with ``-lineinfo`` (or ``-G``);
without it a location is just ``function+offset``.

Bank-conflict degree (see :class:`BankConflictStats`)::

    degree = 1 + conflicts / instructions

``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`` counts the
*extra* shared-memory wavefronts caused by bank conflicts, and
``smsp__sass_inst_executed_op_shared_{ld,st}.sum`` counts warp-level shared
load/store instructions.  A conflict-free 4-byte access needs one wavefront
per instruction, an n-way conflict needs n, so the average degree over a
kernel's shared loads (or stores) is ``1 + conflicts / instructions``.  When
the wavefront metrics ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``
were collected too, ``wavefronts / instructions`` is the same number for
4-byte accesses (8- and 16-byte accesses need 2 and 4 wavefronts even
without a conflict, so for them prefer the conflict-based formula).  It is
an average over all shared loads (or stores) of the kernel: one 32-way
access among 31 clean ones shows as a degree near 2, so treat ``> 1`` as
"this kernel conflicts" and the value as a lower bound for the worst access.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

__all__ = [
    "SourceLocation",
    "RaceHazard",
    "SyncHazard",
    "MemAccessError",
    "ApiError",
    "HostFrame",
    "Leak",
    "LeakReport",
    "ToolSummary",
    "BankConflictStats",
    "Marker",
    "FunctionSpan",
    "strip_prefix",
    "kernel_basename",
    "parse_location",
    "parse_racecheck",
    "parse_synccheck",
    "parse_memcheck",
    "parse_api_errors",
    "parse_leakcheck",
    "parse_error_names",
    "parse_summaries",
    "parse_ncu_bank_conflicts",
    "read_markers",
    "read_marker_details",
    "function_spans",
    "enclosing_function",
    "blank_comments_strings",
    "NCU_BANK_METRICS",
]

#: The metrics the confirmation script asks ncu for (ld/st conflicts,
#: ld/st instructions, ld/st wavefronts).
NCU_BANK_METRICS = (
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
)

_PREFIX_RE = re.compile(r"^={5,}\s?")


def strip_prefix(line: str) -> str:
    """Remove compute-sanitizer's ``========= `` prefix (keeps indentation)."""
    return _PREFIX_RE.sub("", line.rstrip("\r\n"), count=1)


def _lines(text: str) -> list[str]:
    return [strip_prefix(l) for l in text.splitlines()]


def _int(s: str) -> int:
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


def _triple(s: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in s.split(",")]
    vals = [int(p) for p in parts if p]
    while len(vals) < 3:
        vals.append(0)
    return tuple(vals[:3])  # type: ignore[return-value]


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
        return _touches((self.first, self.second), file, line)


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
    lines = [l.strip() for l in _lines(text)]
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
            out.append(
                RaceHazard(
                    severity=_sev(m.group("sev")),
                    first_access=m.group("a1").capitalize(),
                    second_access=tail.group("a2").capitalize(),
                    first=parse_location(loc1),
                    second=parse_location(tail.group("loc2")),
                    count=_int(tail.group("n")) if tail.group("n") else 1,
                    category=(m.group("cat") or None),
                    address_space="shared",
                )
            )
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
                        block=_triple(m.group("block")) if m.group("block") else None,
                    )
                )
                i = j
                continue
        i += 1
    return out


# --------------------------------------------------------------------------
# synccheck


@dataclass(frozen=True)
class SyncHazard:
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

    def touches(self, file: str | None, line: int) -> bool:
        return _touches((self.location, *self.device_frames), file, line)

    @property
    def line(self) -> int | None:
        return self.location.line if self.location else None

    @property
    def divergent(self) -> bool:
        return "diverg" in self.message.lower()


_SYNC_HEAD_RE = re.compile(r"^(Barrier error detected\..*|.*Divergent thread.*|Invalid arguments.*|.*barrier.*error.*)$", re.I)


def _records(text: str) -> list[tuple[str, list[str]]]:
    """Split sanitizer output into (headline, indented detail lines) records."""
    recs: list[tuple[str, list[str]]] = []
    for raw in _lines(text):
        if not raw.strip():
            continue
        if raw[:1].isspace():
            if recs:
                recs[-1][1].append(raw.strip())
        else:
            recs.append((raw.strip(), []))
    return recs


def _at_location(details: Iterable[str]) -> SourceLocation | None:
    for d in details:
        if d.startswith("at "):
            return parse_location(d[3:])
    return None


def _device_frames(details: Iterable[str]) -> tuple[SourceLocation, ...]:
    out = []
    for d in details:
        if d.startswith("Device Frame:"):
            out.append(parse_location(d[len("Device Frame:"):]))
    return tuple(out)


def _touches(locs, file: str | None, line: int) -> bool:
    for loc in locs:
        if loc is not None and loc.line == line and (
            file is None or loc.file is None or loc.file == Path(file).name
        ):
            return True
    return False


def _thread_block(details: Iterable[str]):
    for d in details:
        m = _THREAD_BLOCK_RE.search(d)
        if m:
            return _triple(m.group("t")), _triple(m.group("b"))
    return None, None


def parse_synccheck(text: str) -> list[SyncHazard]:
    """Reports from ``compute-sanitizer --tool synccheck``."""
    out = []
    for head, details in _records(text):
        if head.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY", "Program hit", "Target application")):
            continue
        if not _SYNC_HEAD_RE.match(head):
            continue
        low = head.lower()
        scope = "block" if "in block" in low else "warp" if "warp" in low else None
        t, b = _thread_block(details)
        out.append(SyncHazard(head, _at_location(details), t, b, scope, _device_frames(details)))
    return out


# --------------------------------------------------------------------------
# memcheck


@dataclass(frozen=True)
class MemAccessError:
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

    def touches(self, file: str | None, line: int) -> bool:
        return _touches((self.location, *self.device_frames), file, line)

    @property
    def line(self) -> int | None:
        return self.location.line if self.location else None


_INVALID_RE = re.compile(
    r"^(?:Invalid|Misaligned)\s+(?:__(?P<space>\w+?)__\s+|(?P<space2>\w+)\s+)?(?P<acc>read|write|atomic\w*)\s+of size\s+(?P<size>[\d,]+)\s+bytes?",
    re.I,
)
_ADDR_RE = re.compile(r"(?:Address|Access to) (?P<addr>0x[0-9a-fA-F]+) is (?P<what>.*)$", re.I)


def parse_memcheck(text: str) -> list[MemAccessError]:
    """Invalid / misaligned accesses from ``compute-sanitizer --tool memcheck``."""
    out = []
    for head, details in _records(text):
        m = _INVALID_RE.match(head)
        if not m:
            continue
        t, b = _thread_block(details)
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
                size=_int(m.group("size")),
                address_space=(m.group("space") or m.group("space2") or "generic").lower(),
                location=_at_location(details),
                thread=t,
                block=b,
                address=addr,
                misaligned=misaligned,
                out_of_bounds=oob,
                message=head,
                device_frames=_device_frames(details),
            )
        )
    return out


@dataclass(frozen=True)
class HostFrame:
    """A ``Host Frame:`` line of a saved backtrace."""

    function: str | None
    module: str | None
    text: str

    @property
    def name(self) -> str | None:
        return kernel_basename(self.function)


_HOST_FRAME_RE = re.compile(r"^Host Frame:\s*(?P<rest>.*)$")


def _host_frame(rest: str) -> HostFrame:
    rest = rest.strip()
    module = None
    mm = re.search(r"\s+in\s+(?P<mod>\S+)\s*$", rest)
    body = rest
    if mm:
        module = mm.group("mod")
        body = rest[: mm.start()].strip()
    body = re.sub(r"\s*\[0x[0-9a-fA-F]+\]\s*", " ", body).strip()
    # newer tools print "func in /path/file.cpp:12" before the module
    body = re.sub(r"\s+in\s+\S+:\d+\s*$", "", body).strip()
    return HostFrame(function=body or None, module=module, text=rest)


def _frames(details: Iterable[str]) -> tuple[HostFrame, ...]:
    out = []
    for d in details:
        m = _HOST_FRAME_RE.match(d)
        if m:
            out.append(_host_frame(m.group("rest")))
    return tuple(out)


@dataclass(frozen=True)
class ApiError:
    """``Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaFree.``"""

    error: str
    code: int | None
    description: str | None
    api_call: str | None
    frames: tuple[HostFrame, ...] = ()

    @property
    def is_free(self) -> bool:
        return bool(self.api_call) and self.api_call.lower().startswith(("cudafree", "cumemfree", "cuMemFreeHost".lower()))

    def functions(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.frames if f.name)


_API_RE = re.compile(
    r"^Program hit (?P<err>\w+) \(error (?P<code>\d+)\)(?: due to \"(?P<desc>[^\"]*)\")?"
    r"(?: on (?:CUDA )?API call to (?P<api>\w+))?",
    re.I,
)


def parse_api_errors(text: str) -> list[ApiError]:
    """``Program hit cudaError... on CUDA API call to X`` records (memcheck / any tool)."""
    out = []
    for head, details in _records(text):
        m = _API_RE.match(head)
        if m:
            out.append(
                ApiError(
                    error=m.group("err"),
                    code=int(m.group("code")),
                    description=m.group("desc"),
                    api_call=m.group("api"),
                    frames=_frames(details),
                )
            )
    return out


_ERRNAME_RE = re.compile(r"\b(cudaError[A-Z]\w*|CUDA_ERROR_[A-Z_]+)\b")


def parse_error_names(text: str) -> list[str]:
    """Distinct CUDA error names printed anywhere (order of first appearance)."""
    seen: dict[str, None] = {}
    for m in _ERRNAME_RE.finditer(text):
        seen.setdefault(m.group(1), None)
    return list(seen)


# --------------------------------------------------------------------------
# leak check


@dataclass(frozen=True)
class Leak:
    bytes: int
    address: str | None
    frames: tuple[HostFrame, ...] = ()

    def functions(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.frames if f.name)


@dataclass(frozen=True)
class LeakReport:
    leaks: tuple[Leak, ...]
    total_bytes: int  # from the LEAK SUMMARY line, else the sum of the leaks
    allocations: int

    @property
    def leaked(self) -> bool:
        return self.total_bytes > 0


_LEAK_RE = re.compile(r"^Leaked (?P<n>[\d,]+) bytes? at (?P<addr>0x[0-9a-fA-F]+)", re.I)
_LEAK_SUM_RE = re.compile(
    r"^LEAK SUMMARY:\s*(?P<n>[\d,]+) bytes? leaked in (?P<a>[\d,]+) allocations?", re.I
)


def parse_leakcheck(text: str) -> LeakReport:
    """Leaks from ``compute-sanitizer --leak-check full --tool memcheck``."""
    leaks = []
    total = None
    allocs = None
    for head, details in _records(text):
        m = _LEAK_RE.match(head)
        if m:
            leaks.append(Leak(_int(m.group("n")), m.group("addr"), _frames(details)))
            continue
        m = _LEAK_SUM_RE.match(head)
        if m:
            total = _int(m.group("n"))
            allocs = _int(m.group("a"))
    if total is None:
        total = sum(l.bytes for l in leaks)
    if allocs is None:
        allocs = len(leaks)
    return LeakReport(tuple(leaks), total, allocs)


# --------------------------------------------------------------------------
# summaries


@dataclass(frozen=True)
class ToolSummary:
    """``ERROR SUMMARY: 4 errors`` / ``RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)``."""

    tool: str  # "ERROR", "RACECHECK", "LEAK", ...
    text: str
    errors: int | None = None
    warnings: int | None = None


_SUM_RE = re.compile(r"^(?P<tool>[A-Z]+) SUMMARY:\s*(?P<rest>.*)$")


def parse_summaries(text: str) -> list[ToolSummary]:
    out = []
    for raw in _lines(text):
        m = _SUM_RE.match(raw.strip())
        if not m:
            continue
        rest = m.group("rest")
        errs = re.search(r"([\d,]+) errors?\b", rest)
        warns = re.search(r"([\d,]+) warnings?\b", rest)
        out.append(
            ToolSummary(
                m.group("tool"),
                rest,
                _int(errs.group(1)) if errs else None,
                _int(warns.group(1)) if warns else None,
            )
        )
    return out


# --------------------------------------------------------------------------
# ncu bank conflicts


@dataclass(frozen=True)
class BankConflictStats:
    """Shared-memory bank-conflict counters of one kernel (summed over its launches).

    Degree (average over the kernel's shared loads or stores)::

        ld_degree = 1 + ld_conflicts / ld_instructions
        st_degree = 1 + st_conflicts / st_instructions

    (None when the kernel executed no such instruction.)
    """

    kernel: str
    function: str  # the name as ncu printed it
    launches: int
    ld_conflicts: float
    st_conflicts: float
    ld_instructions: float
    st_instructions: float
    ld_wavefronts: float | None = None
    st_wavefronts: float | None = None

    @property
    def conflicts(self) -> float:
        return self.ld_conflicts + self.st_conflicts

    @property
    def ld_degree(self) -> float | None:
        if not self.ld_instructions:
            return None
        return 1.0 + self.ld_conflicts / self.ld_instructions

    @property
    def st_degree(self) -> float | None:
        if not self.st_instructions:
            return None
        return 1.0 + self.st_conflicts / self.st_instructions

    @property
    def max_degree(self) -> float | None:
        ds = [d for d in (self.ld_degree, self.st_degree) if d is not None]
        return max(ds) if ds else None


def parse_number(s: str) -> float | None:
    """A number as ncu prints it (`1,024`), else None (`n/a`, `-`, empty)."""
    s = (s or "").strip().replace(",", "")
    if not s or s.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


_METRIC_KEYS = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "ld_conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "st_conflicts",
    "smsp__sass_inst_executed_op_shared_ld.sum": "ld_instructions",
    "smsp__sass_inst_executed_op_shared_st.sum": "st_instructions",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "ld_wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "st_wavefronts",
}


def _ncu_rows_csv(text: str) -> list[tuple[str, str, str, str]]:
    """(launch id, kernel, metric, value) rows of ``ncu --csv`` output."""
    lines = text.splitlines()
    start = None
    for i, l in enumerate(lines):
        if l.startswith('"ID"') or l.startswith("ID,"):
            start = i
            break
    if start is None:
        return []
    body = "\n".join(l for l in lines[start:] if l.startswith('"') or l[:1].isdigit() or l.startswith("ID,"))
    rows = []
    reader = csv.DictReader(io.StringIO(body))
    for r in reader:
        kernel = r.get("Kernel Name") or r.get("Function Name") or r.get("Name") or ""
        metric = r.get("Metric Name") or ""
        value = r.get("Metric Value") or ""
        rows.append((r.get("ID", ""), kernel, metric, value))
    return rows


_NCU_KERNEL_HEAD_RE = re.compile(
    r"^\s{0,4}(?P<name>\S.*?)\s+\((?P<g>\d+,\s*\d+,\s*\d+)\)x\((?P<b>\d+,\s*\d+,\s*\d+)\),\s*Context\b"
)
_NCU_METRIC_LINE_RE = re.compile(r"^\s+(?P<metric>[a-z0-9_]+__[\w.]+)\s+(?:(?P<unit>\S+)\s+)?(?P<value>[\d,.]+|n/a)\s*$")


def _ncu_rows_text(text: str) -> list[tuple[str, str, str, str]]:
    rows = []
    launch = -1
    kernel = None
    for l in text.splitlines():
        if l.startswith("==PROF==") or l.startswith("==WARNING=="):
            continue
        m = _NCU_KERNEL_HEAD_RE.match(l)
        if m:
            launch += 1
            kernel = m.group("name")
            continue
        m = _NCU_METRIC_LINE_RE.match(l)
        if m and kernel is not None:
            rows.append((str(launch), kernel, m.group("metric"), m.group("value")))
    return rows


def parse_ncu_bank_conflicts(text: str) -> dict[str, BankConflictStats]:
    """Per kernel (bare name, see :func:`kernel_basename`) bank-conflict counters.

    Accepts ``ncu --csv --metrics ...`` output and ncu's default text table.
    Launches of the same kernel are summed; ``launches`` counts them.
    Kernels of the same bare name but different signatures (template
    instances, overloads) are summed too; ``function`` keeps the first
    printed name.
    """
    rows = _ncu_rows_csv(text) or _ncu_rows_text(text)
    per_launch: dict[tuple[str, str], dict[str, float]] = {}
    order: list[tuple[str, str]] = []
    for launch, kernel, metric, value in rows:
        key = _METRIC_KEYS.get(metric.strip())
        if key is None:
            continue
        k = (launch, kernel)
        if k not in per_launch:
            per_launch[k] = {}
            order.append(k)
        v = parse_number(value)
        if v is not None:
            per_launch[k][key] = v
    out: dict[str, dict] = {}
    for launch, kernel in order:
        vals = per_launch[(launch, kernel)]
        name = kernel_basename(kernel) or kernel
        agg = out.setdefault(
            name,
            {"function": kernel, "launches": 0, "ld_conflicts": 0.0, "st_conflicts": 0.0,
             "ld_instructions": 0.0, "st_instructions": 0.0, "ld_wavefronts": None, "st_wavefronts": None},
        )
        agg["launches"] += 1
        for key in ("ld_conflicts", "st_conflicts", "ld_instructions", "st_instructions"):
            agg[key] += vals.get(key, 0.0)
        for key in ("ld_wavefronts", "st_wavefronts"):
            if key in vals:
                agg[key] = (agg[key] or 0.0) + vals[key]
    return {name: BankConflictStats(kernel=name, **agg) for name, agg in out.items()}


# fixture markers and source structure: cudalint.gpu.source (re-exported here, see __all__)
from .source import (  # noqa: E402
    FunctionSpan, Marker, blank_comments_strings, enclosing_function, function_spans, read_marker_details,
    read_markers,
)
