"""What compute-sanitizer says about the host side: backtraces, CUDA API errors, leaks and the
tools' summaries (standard library only)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .tool_output import kernel_basename, parse_int, records, sanitizer_lines


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
    for head, details in records(text):
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
    for head, details in records(text):
        m = _LEAK_RE.match(head)
        if m:
            leaks.append(Leak(parse_int(m.group("n")), m.group("addr"), _frames(details)))
            continue
        m = _LEAK_SUM_RE.match(head)
        if m:
            total = parse_int(m.group("n"))
            allocs = parse_int(m.group("a"))
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
    for raw in sanitizer_lines(text):
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
                parse_int(errs.group(1)) if errs else None,
                parse_int(warns.group(1)) if warns else None,
            )
        )
    return out
