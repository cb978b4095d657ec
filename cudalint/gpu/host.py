"""Host-side findings under ``--confirm``: build the file's ``main()`` with nvcc and run it under
``compute-sanitizer --leak-check full``.

Leaks and failing ``cudaFree``/``cudaFreeHost`` calls come from compute-sanitizer's reports, whose
backtraces name the host function. ``free()`` on a device pointer is not a CUDA call: the program
dies inside glibc (an abort, or a segmentation fault). A small signal handler linked into the
program (:data:`CRASH_TRACE`, the user's file is not touched) prints the backtrace of that crash,
which names the function that called ``free``.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cudalint.findings import Confirmation, Finding

from . import evidence as ev
from .inject import inject_failures, library_flags
from .nvcc_build import PERMISSIVE
from .proc import Run, run_cmd
from .source import blank_comments_strings, enclosing_function, function_spans

FREE_CALLS = ("cudaFree", "cudaFreeHost", "cudaFreeAsync", "cudaFreeArray", "cuMemFree")
CRASH_BEGIN, CRASH_END = "=== cudalint: host program got signal", "=== cudalint: end of backtrace"
# Linked beside the user's file: on a fatal signal, print the backtrace (function names through
# -rdynamic), then die of the same signal.
CRASH_TRACE = r"""
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void cudalint_crash(int sig) {
  void* frames[64];
  char line[96];
  int n = backtrace(frames, 64);
  write(2, line, snprintf(line, sizeof line, "\n%s %d\n", BEGIN, sig));
  backtrace_symbols_fd(frames, n, 2);
  write(2, line, snprintf(line, sizeof line, "%s\n", END));
  signal(sig, SIG_DFL);
  raise(sig);
}
__attribute__((constructor)) static void cudalint_install_crash_trace(void) {
  signal(SIGABRT, cudalint_crash);
  signal(SIGSEGV, cudalint_crash);
  signal(SIGBUS, cudalint_crash);
}
""".replace("BEGIN", f'"{CRASH_BEGIN}"').replace("END", f'"{CRASH_END}"')
# What glibc prints before it aborts on a bad free().
GLIBC_FREE = re.compile(r"^((?:free|munmap_chunk|realloc|double free)[^\n]*?(?:invalid pointer|corruption|"
                        r"invalid size)[^\n]*)$", re.M)


@dataclass(frozen=True)
class Crash:
    signal: int
    symbols: tuple[str, ...]  # innermost frame first: `free`, `_Z22device_freed_with_freev`, ...
    glibc: str | None  # glibc's own message, e.g. "free(): invalid pointer"

    def first_of(self, names) -> str | None:
        """The innermost frame that is one of the file's functions (by plain or mangled name)."""
        for sym in self.symbols:
            for n in names:
                if sym == n or re.search(rf"(?<!\d){len(n)}{re.escape(n)}", sym):
                    return n
        return None

    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"

    def in_free(self) -> bool:
        return bool(self.glibc) or any(s in ("free", "cfree", "__libc_free") for s in self.symbols)


def parse_crash(text: str) -> Crash | None:
    """The backtrace :data:`CRASH_TRACE` printed, if the program died of a signal."""
    m = re.search(rf"{re.escape(CRASH_BEGIN)} (\d+)\n(.*?){re.escape(CRASH_END)}", text, re.S)
    if not m:
        return None
    symbols = []
    for frame in m.group(2).splitlines():  # `./prog(_Z3foov+0x2a) [0x55…]`, `libc.so.6(free+0x1e) [0x7f…]`
        s = re.search(r"\(([^()+]*)\+0x[0-9a-f]+\)", frame)
        if s and s.group(1):
            symbols.append(s.group(1))
    g = GLIBC_FREE.search(text)
    return Crash(int(m.group(1)), tuple(symbols), g.group(1).strip() if g else None)


def run_host(path: str, settings, tl: dict, timeout: float, work: Path, fails: tuple = ()) -> dict:
    """Build the file's program (with the calls in `fails` made to fail, see cudalint.gpu.inject)
    and run it under compute-sanitizer's leak check."""
    built = build_program(path, settings, tl, timeout, work, fails)
    if "program" not in built:
        return built
    cmd = [tl["compute-sanitizer"], "--leak-check", "full", "--tool", "memcheck", built["program"],
           *program_args(path, settings)]
    return {"problem": None, "run": run_cmd("leakcheck", cmd, timeout), "fails": tuple(fails)}


def build_program(path: str, settings, tl: dict, timeout: float, work: Path, fails: tuple = ()) -> dict:
    """{"program": the executable} built by nvcc from the file's main() (and, where the file alone
    does not link, the sources beside it), or {"problem": why not} / {"build_error": nvcc's words}."""
    nvcc, cs = tl.get("nvcc"), tl.get("compute-sanitizer")
    if not nvcc or not cs:
        miss = " and ".join(n for n, p in (("nvcc", nvcc), ("compute-sanitizer", cs)) if not p)
        return {"problem": f"{miss} not on PATH: the host program cannot be built and checked"}
    src = Path(path).read_text(encoding="utf-8", errors="replace")
    if not has_main(src):
        return {"problem": "the file has no main(): no host program to run"}
    wd = Path(tempfile.mkdtemp(prefix="host-", dir=work))
    program = path
    if fails:
        variant, why = inject_failures(src, fails)
        if why:
            return {"problem": why}
        program = str(wd / Path(path).name)  # its own includes resolve through -I (below)
        Path(program).write_text(variant, encoding="utf-8")
    (wd / "cudalint_crash_trace.c").write_text(CRASH_TRACE)
    cmd = [nvcc, "-arch=native", "-lineinfo", "-g", "-O0", *PERMISSIVE, "-Xcompiler", "-fno-inline",
           "-Xlinker", "-export-dynamic", f"-I{os.path.dirname(os.path.abspath(path))}"]
    cmd += [f"-I{d}" for d in getattr(settings, "include_dirs", ()) or ()]
    cmd += [f"-D{d}" for d in getattr(settings, "defines", ()) or ()]
    out = ["-o", str(wd / "prog"), program, str(wd / "cudalint_crash_trace.c")]
    b = run_cmd("nvcc", cmd + out + library_flags(src), max(timeout, 120))
    beside = program_sources(path) if b.rc != 0 and "undefined reference" in b.output else []
    if beside:  # the program's other sources define what the file uses: link them too
        texts = "".join(Path(f).read_text(encoding="utf-8", errors="replace") for f in beside)
        b = run_cmd("nvcc", cmd + out + beside + library_flags(src + texts), max(timeout, 240))
    if b.rc != 0:
        return {"problem": None, "build_error": " ".join(b.output.split())[-300:]}
    return {"program": str(wd / "prog")}


def has_main(source: str) -> bool:
    return bool(re.search(r"\bmain\s*\(", blank_comments_strings(source)))


SOURCES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def program_sources(path: str) -> list[str]:
    """The other sources of the file's program: those beside it with no main() of their own (a
    HeCBench folder's utils.cpp, kernels.cu), for a build that the file alone does not link."""
    folder = Path(path).resolve().parent
    out = []
    for f in sorted(folder.iterdir()):
        if f.suffix not in SOURCES or f.resolve() == Path(path).resolve() or not f.is_file():
            continue
        if not has_main(f.read_text(encoding="utf-8", errors="replace")):
            out.append(str(f))
    return out


def program_args(path: str, settings) -> list[str]:
    """The arguments the program is run with: the last `confirm-args` entry whose glob matches
    the file (relative to the config's folder), or `--confirm-args` (glob `*`); none by default."""
    import pathspec

    from cudalint.discover import matches
    chosen = ""
    for root, glob, argv in getattr(settings, "confirm_args", ()) or ():
        if glob == "*" or matches(pathspec.GitIgnoreSpec.from_lines([glob]), root or os.getcwd(), path):
            chosen = argv
    return shlex.split(chosen)


def failing_calls(f: Finding) -> tuple:
    """The calls a leak finding's path takes as failed (its `fails` property), else ()."""
    return tuple(dict(f.properties).get("fails", ())) if f.category == "memory-leak" else ()


def _made_to_fail(host: dict) -> str:
    """How the run was made to take the finding's path ("with `cudaMemcpy` at line 6 made to fail, ")."""
    calls = host.get("fails") or ()
    return "with " + " and ".join(f"`{c[0]}` at line {c[1]}" for c in calls) + " made to fail, " if calls else ""


def judge_host(f: Finding, host: dict, source: str) -> Confirmation:
    method = "compute-sanitizer --leak-check full"
    if host.get("problem"):
        return Confirmation("unsupported", method, host["problem"])
    if host.get("build_error"):
        return Confirmation("error", "nvcc", f"nvcc could not build the file: {host['build_error']}")
    r: Run = host["run"]
    if r.timed_out:
        return Confirmation("error", method, f"the program was killed after {r.seconds:.0f} s")
    spans = function_spans(source)
    fs = enclosing_function(spans, f.line)
    func = fs.name if fs else None
    if f.category == "memory-leak":
        rep = ev.parse_leakcheck(r.output)
        own = [l for l in rep.leaks if func and func in l.functions()]
        forced = _made_to_fail(host)
        if own:
            return Confirmation("confirmed", method, f"{forced}{sum(l.bytes for l in own)} bytes leaked in "
                                f"{len(own)} allocation(s) made in {func}")
        if not rep.leaked:
            return Confirmation("not-reproduced", method, f"{forced}no leak reported (exit status {r.rc})")
        named = sorted({n for l in rep.leaks for n in l.functions() if n and any(s.name == n for s in spans)})
        return Confirmation("not-reproduced", method,
                            f"{forced}{rep.total_bytes} bytes leaked, backtraces name "
                            f"{', '.join(named) or 'no function of the file'}, not {func}")
    if f.category in ("double-free", "mismatched-free"):
        api = [a for a in ev.parse_api_errors(r.output) if a.api_call and a.api_call.startswith(FREE_CALLS)]
        own = [a for a in api if func and func in a.functions()]
        if own:
            return Confirmation("confirmed", "compute-sanitizer memcheck",
                                f"{own[0].error} on {own[0].api_call} in {func}")
        crash = parse_crash(r.output)
        if crash and crash.in_free() and func and crash.first_of([s.name for s in spans]) == func:
            return Confirmation("confirmed", "crash backtrace",
                                f"the program died in free() ({crash.glibc or crash.signal_name()}) "
                                f"called from {func}")
        if api:
            return Confirmation("not-reproduced", "compute-sanitizer memcheck",
                                f"{len(api)} failing free call(s), none from {func}")
        return Confirmation("not-reproduced", "compute-sanitizer memcheck", "no failing free call reported")
    if f.category == "use-after-free":
        api = [a for a in ev.parse_api_errors(r.output) if a.api_call and not a.api_call.startswith(FREE_CALLS)]
        own = [a for a in api if func and func in a.functions()]
        if own:
            return Confirmation("confirmed", "compute-sanitizer memcheck", f"{own[0].error} on {own[0].api_call} in {func}")
        return Confirmation("not-reproduced", "compute-sanitizer memcheck",
                            f"{len(api)} failing API call(s), none from {func}" if api else "no failing API call reported")
    return Confirmation("unsupported", "none", "no NVIDIA tool observes a host read racing an asynchronous copy")


