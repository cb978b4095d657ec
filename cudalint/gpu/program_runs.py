"""Kernel findings shown by the user's own program, where the synthesised launch cannot show them.

Synthesised arguments fit most kernels, not all: a kernel that indexes lookup tables with values
it loads, or walks data the host prepares, faults on made-up buffers (``cudaErrorIllegalAddress``),
and some arguments cannot be made up at all (a pointer to pointers).
Where the kernel's file has a ``main()``, that program launches the kernel with the data it was
written for: it is built as :mod:`cudalint.gpu.host` builds it (``-lineinfo``), run with its
``confirm-args``, under the finding's tool — ncu's source counters for a bank conflict (the
kernel's first launch), racecheck for a shared-memory race, synccheck for a divergent barrier — and
the report is read at the finding's line as for a synthesised run.
"""

from __future__ import annotations

import os
from pathlib import Path

from cudalint.findings import Confirmation, Finding

from . import evidence as ev
from . import ncu_source as ncs
from .execute import NCU_SOURCE
from .host import build_program, program_args
from .judges import EXITING_SKIP, bank_at_line, race_at_line, sync_at_line
from .plan import is_global_race
from .proc import run_cmd
from .tool_output import kernel_basename

METHODS = {"ncu": "ncu source counters (the program's own run)",
           "racecheck": "compute-sanitizer racecheck (the program's own run)",
           "synccheck": "compute-sanitizer synccheck (the program's own run)"}


def tool_for(f: Finding) -> str | None:
    """The tool that shows the finding in a whole program's run, if one does."""
    if f.category == "bank-conflict":
        return "ncu"
    if f.category == "data-race" and not is_global_race(f):
        return "racecheck"
    if f.category == "barrier-divergence" and f.rule == "CUDA204":
        return "synccheck"
    return None


def wanted(f: Finding, c: Confirmation | None) -> bool:
    """Whether a synthesised run's verdict leaves the program's run to try: the launch could not
    run, or its arguments could not be made (a pointer to pointers)."""
    return tool_for(f) is not None and c is not None and \
        (c.status == "error" or c.status == "unsupported" and c.method == "cupy")


def run_program(path: str, kernel: str, tool: str, settings, tl: dict, timeout: float, work: Path) -> dict:
    """{"run": the tool's Run} of the program in `path`, or {"problem"/"build_error": why not}."""
    if tool == "ncu" and not tl.get("ncu"):
        return {"problem": "ncu is not on PATH"}
    built = build_program(path, settings, tl, timeout, work)
    if "program" not in built:
        return built
    argv = [built["program"], *program_args(path, settings)]
    if tool == "ncu":
        base = kernel_basename(kernel) or kernel
        cmd = [tl["ncu"], "--clock-control", "none", *NCU_SOURCE, "-k", f"regex:^{base}(<|$)", "--launch-count", "1", *argv]
    else:
        cmd = [tl["compute-sanitizer"], "--tool", tool, "--print-limit", "64", *argv]
    # ncu's source page names the file by its path at build time: run beside it
    return {"run": run_cmd(f"program-{tool}", cmd, timeout, cwd=os.path.dirname(os.path.abspath(path)))}


def judge(f: Finding, tool: str, outcome: dict, before: Confirmation) -> Confirmation:
    """The program run's verdict; where it cannot give one, the synthesised run's error, with why."""
    method = METHODS[tool]
    why = outcome.get("problem") or (f"nvcc could not build it: {outcome['build_error']}" if outcome.get("build_error") else None)
    if why:
        return Confirmation(before.status, before.method, f"{before.detail}; the program's own run: {why}")
    r = outcome["run"]
    if r.timed_out:
        return Confirmation("error", method, f"{before.detail}; the program's own run was killed after {r.seconds:.0f} s")
    if tool == "ncu":
        lines = ncs.kernel_lines(r.output, f.kernel, f.path)
        if not lines:
            tail = " ".join(r.output.split())[-200:]
            return Confirmation("error", method, f"{before.detail}; ncu profiled no launch of {f.kernel} in the "
                                f"program's run (exit status {r.rc}): {tail}")
        return bank_at_line(f, lines, method, f"the program's first launch of {f.kernel}")
    where = f"exit status {r.rc}"
    if tool == "racecheck":
        return race_at_line(f, ev.parse_racecheck(r.output), method, where) or \
            Confirmation("not-reproduced", method, f"no hazard at line {f.line} ({where})")
    hit = sync_at_line(f, ev.parse_synccheck(r.output), method, where)
    if hit:
        return hit
    if dict(f.properties).get("skipping_threads") == "exit":
        return Confirmation("unsupported", method, f"{EXITING_SKIP} ({where})")
    return Confirmation("not-reproduced", method, f"no barrier report at line {f.line} ({where})")
