"""``--confirm``: run flagged kernels on a CUDA GPU and attach what happened to each finding.

Entry point :func:`confirm` (called by the CLI after the static pass, and usable from Python).
Nothing here runs unless it is called: the CLI calls it only with ``--confirm``.

How one kernel finding is confirmed
-----------------------------------
1. **Plan** (:mod:`cudalint.gpu.plan`, no GPU): the device-only view of the translation unit (host
   code blanked line for line, so tool line numbers are the user's), the NVRTC options (the file's
   directory, ``-I``/``-D`` from the settings, ``-lineinfo``, ``--std``), the name expression of the
   instantiation (``block_sum<128>``), a geometry that holds the finding's witness, and synthesised
   arguments.
2. **Run** (:mod:`cudalint.gpu.child`): each kernel in a child process of its own (a fault breaks a
   CUDA context for good), in its own process group, under a time limit (a hung kernel — a
   divergent barrier — is killed and reported), with CuPy's memory pool capped
   (``CUDALINT_CONFIRM_MEM`` bytes, default 4 GiB). Compiled with CuPy ``RawModule`` (NVRTC): this
   is the one compiler every CuPy install has; nvcc is used only for host programs (below).
3. **Evidence** by category, parsed with :mod:`cudalint.gpu.evidence`:

   ===================== ==========================================================================
   misaligned-access     ``compute-sanitizer --tool memcheck``: a misaligned report at the line (in
                         the -G build; else in the optimised one, where a load may be reported at
                         its value's use); else the launch's ``cudaErrorMisalignedAddress``
   data-race             shared: ``--tool racecheck`` hazards at the line; global (racecheck does not
                         see global memory) or no sanitizer: differential runs (identical inputs,
                         outputs that differ beyond float rounding)
   barrier-divergence    ``--tool synccheck`` at the line; or the launch hangs and is killed; or,
                         counted per thread in a variant of the kernel, threads of one block reach
                         the ``__syncthreads()`` different numbers of times (threads that exit
                         before it: sm_70+ neither hangs nor reports)
   bank-conflict         ``ncu`` source counters: excessive shared wavefronts at the line
                         (kernel-level counters only where no line-level data came back)
   host categories       ``nvcc`` builds the file's ``main()``, run under
                         ``compute-sanitizer --leak-check full`` (:mod:`cudalint.gpu.host`; a
                         ``free()`` of a device pointer by the backtrace of the crash it causes)
   ===================== ==========================================================================

Without CuPy or a GPU: one line on stderr and the findings unchanged.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from cudalint.engine import file_model
from cudalint.findings import Confirmation, Finding

from . import evidence as ev
from . import ncu_source as ncs
from . import plan as pl
from .host import judge_host, run_host
from .proc import Run, run_cmd, tools

HOST_CATEGORIES = ("memory-leak", "double-free", "mismatched-free", "unsynchronized-host-access")
KERNEL_CATEGORIES = ("data-race", "barrier-divergence", "misaligned-access", "bank-conflict")
# Rules whose bug no NVIDIA tool observes: synccheck checks barriers, not the masks of shuffles
# and votes, and an undefined shuffle value looks like any other value (issue 19).
UNOBSERVED = {
    "CUDA205": "compute-sanitizer synccheck does not check shuffle and vote masks (0 errors on an H200)",
    "CUDA206": "no NVIDIA tool observes a shuffle from an absent lane; its value is merely undefined",
    "CUDA207": "no NVIDIA tool reports __activemask() masks; converged lanes usually hide it",
    "CUDA208": "nvcc itself rejects the legacy shuffles on sm_70+ (and warns about the votes)",
}
NEEDS_GPU = "--confirm needs a CUDA GPU and `pip install cudalint[gpu]`"
CHILD = Path(__file__).with_name("child.py")
# Differential runs: at least DIFF_MIN_RUNS, then more (up to DIFF_MAX_RUNS, while under
# DIFF_SECONDS) until a difference shows: a racy counter often loses the same updates every run.
DIFF_MIN_RUNS, DIFF_MAX_RUNS, DIFF_SECONDS = 6, 64, 10.0
ARRIVAL_SLOTS = 1 << 24  # per-thread barrier arrival counters (64 MiB)
# Float outputs may differ this much (relative) between runs: atomics add in a different order
# each run, a reordered sum of n terms moves by about sqrt(n) ulp; a lost update moves by a term.
FLOAT_RTOL = {"f8": 1e-10, "f4": 1e-4, "f2": 1e-2, "bf16": 5e-2}
NCU_SOURCE = ("--section", "SourceCounters", "--page", "source", "--csv", "--print-source", "cuda,sass")


# ----------------------------------------------------------------------------- environment


def gpu_status(python: str | None = None, timeout: float = 120.0) -> tuple[bool, str]:
    """(usable, reason): CuPy importable and a CUDA device visible (checked in a child)."""
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        return False, "CuPy is not installed"
    code = "import cupy; n = cupy.cuda.runtime.getDeviceCount(); print(n)"
    try:
        r = subprocess.run([python or sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"CuPy probe failed: {exc}"
    if r.returncode != 0 or not r.stdout.strip().isdigit() or int(r.stdout.strip()) < 1:
        last = (r.stderr.strip().splitlines() or ["no CUDA device"])[-1]
        return False, f"no usable CUDA device ({last[:160]})"
    return True, f"{r.stdout.strip()} CUDA device(s)"


# ----------------------------------------------------------------------------- jobs


@dataclass
class KernelJob:
    path: str
    kernel: str
    findings: list  # indices into the findings list
    plan: dict | None = None
    geometry: pl.Geometry | None = None
    args: pl.ArgPlan | None = None
    problem: str | None = None  # -> unsupported
    runs: dict = field(default_factory=dict)  # tool -> Run
    lines_offset: int = 0
    lines: dict = field(default_factory=dict)  # category -> lines of this job's findings
    variant_line: int | None = None  # the line made atomic in the differential step's variant
    accesses: dict = field(default_factory=dict)  # line -> {(read|write|atomic, bytes)} of the static model

    def peers(self, f: Finding) -> list[int]:
        """Other lines of the kernel that the static pass flags for the same category."""
        return sorted(self.lines.get(f.category, set()) - {f.line})

    def where(self) -> str:
        g = self.geometry.describe() if self.geometry else "?"
        return f"{self.kernel} at {g}"


def _categories(fs) -> set:
    return {f.category for f in fs}


def _is_global_race(f: Finding) -> bool:
    return f.rule == "CUDA203" or dict(f.properties).get("memory_space") == "global"


def _nvrtc_options(path: str, settings) -> list:
    opts = ["-lineinfo", f"--std={getattr(settings, 'std', 'c++17') or 'c++17'}",
            "-DCUDALINT_CONFIRM=1", f"-I{os.path.dirname(os.path.abspath(path)) or '.'}"]
    for d in getattr(settings, "include_dirs", ()) or ():
        opts.append(f"-I{d}")
    for d in getattr(settings, "defines", ()) or ():
        opts.append(f"-D{d}")
    return opts


def _accesses(kern) -> dict:
    out: dict = {}
    for e in getattr(kern, "events", ()):
        if hasattr(e, "width"):
            out.setdefault(e.loc.line, set()).add((e.kind, e.width))
    return out


def _aliased_args(args: list, aliased: str | None) -> list:
    """With `aliased` ("in=out"), the second buffer is the first one (`same_as` its index), as at
    the launch that passes one pointer for both."""
    kept, _, merged = (aliased or "").partition("=")
    index = {a["name"]: i for i, a in enumerate(args)}
    if kept in index and merged in index:
        k, m = args[index[kept]], args[index[merged]]
        k["nbytes"] = m["nbytes"] = max(k["nbytes"], m["nbytes"])
        m["same_as"] = index[kept]
    return args


def plan_kernel_jobs(path: str, findings: list, idxs: list, settings) -> list[KernelJob]:
    """Group one file's kernel findings into jobs (kernel x geometry) with their run plans."""
    source = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        model = file_model(path, settings)
    except Exception as exc:  # the static pass parsed it; be safe anyway
        model = None
        err = f"cannot rebuild the file's model: {exc!r}"
    view, offset = pl.device_view(source, path, include_dirs=tuple(getattr(settings, "include_dirs", ()) or ()))
    jobs: dict = {}
    for i in idxs:
        f = findings[i]
        kern = None
        if model is not None:
            cands = [k for k in model.kernels if k.name == f.kernel] or \
                    [k for k in model.kernels if k.qualname == f.kernel and not k.is_template_pattern]
            kern = cands[0] if cands else None
        key_problem = None
        if model is None:
            key_problem = err
        elif kern is None:
            key_problem = f"kernel `{f.kernel}` not found in {path}"
        elif kern is not None and kern.is_template_pattern:
            key_problem = f"`{f.kernel}` is a template with no instantiation in the file"
        if key_problem:
            jobs.setdefault((f.kernel, key_problem), KernelJob(path, f.kernel, [], problem=key_problem)).findings.append(i)
            continue
        ovr = pl.overrides(source, kern.loc)
        try:
            geom = pl.choose_geometry(f, kern, model, settings, ovr)
        except pl.EvalError as exc:
            jobs.setdefault((f.kernel, str(exc)), KernelJob(path, f.kernel, [], problem=f"override: {exc}")).findings.append(i)
            continue
        aliased = dict(f.properties).get("aliased")  # "in=out": the launch passes one buffer for both
        key = (f.kernel, geom.grid, geom.block, geom.shared_bytes, aliased)
        if key in jobs:
            jobs[key].findings.append(i)
            continue
        job = KernelJob(path, f.kernel, [i], geometry=geom, lines_offset=offset, accesses=_accesses(kern))
        jobs[key] = job
        if "skip" in ovr:
            job.problem = "skipped by a `cudalint-confirm: skip` comment"
            continue
        try:
            args = pl.synthesize_args(kern.signature, geom, kern, ovr, settings)
        except pl.EvalError as exc:
            job.problem = f"override: {exc}"
            continue
        job.args = args
        if args.problem:
            job.problem = args.problem + " (set it with a `// cudalint-confirm: NAME=VALUE` comment)"
            continue
        job.plan = {
            "source": view, "options": _nvrtc_options(path, settings),
            "name_expressions": [f.kernel], "kernel": f.kernel,
            "grid": list(geom.grid), "block": list(geom.block), "shared_bytes": geom.shared_bytes,
            "args": _aliased_args([{"name": a.name, "kind": a.kind, "dtype": a.dtype, "value": a.value,
                                    "nbytes": a.nbytes, "fill": a.fill} for a in args.args], aliased),
            "runs": 1, "seed": 12345,
            "mem_limit": int(os.environ.get("CUDALINT_CONFIRM_MEM", 4 << 30)),
        }
        if "runs" in ovr:
            job.plan["runs_override"] = int(pl.c_eval(ovr["runs"]))
    for job in jobs.values():
        for i in job.findings:
            job.lines.setdefault(findings[i].category, set()).add(findings[i].line)
        # Device debug code keeps each access on its own source line (at -O3 a wide load is
        # scheduled into the next line's code and the tools name that line); bank-conflict
        # counts must come from the optimised code the user ships.
        if job.plan and "bank-conflict" not in {findings[i].category for i in job.findings}:
            job.plan["options"] = job.plan["options"] + ["-G"]
    return list(jobs.values())


# ----------------------------------------------------------------------------- execution


def _tool_plan(job: KernelJob, findings, tl: dict) -> list[str]:
    fs = [findings[i] for i in job.findings]
    cats = _categories(fs)
    out = ["plain"]
    cs = tl.get("compute-sanitizer")
    if "misaligned-access" in cats and cs:
        out += ["memcheck", "memcheck-optimised"]
    if "data-race" in cats:
        if cs and any(not _is_global_race(f) for f in fs):
            out.append("racecheck")
        if not cs or any(_is_global_race(f) for f in fs):
            out[0] = "plain-diff"
    if "barrier-divergence" in cats:
        out += ["synccheck", "arrivals"] if cs else ["arrivals"]
    if "bank-conflict" in cats and tl.get("ncu"):
        out.append("ncu")
    return out


def execute_job(job: KernelJob, findings, tl: dict, timeout: float, work: Path, python: str,
                ncu_lock: threading.Lock) -> KernelJob:
    wd = Path(tempfile.mkdtemp(prefix="job-", dir=work))
    plan = dict(job.plan)
    steps = _tool_plan(job, findings, tl)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for step in steps:
        p = dict(plan)
        if step == "plain-diff":
            n = plan.get("runs_override")
            p["diff"] = {"min_runs": n or DIFF_MIN_RUNS, "max_runs": n or DIFF_MAX_RUNS, "seconds": DIFF_SECONDS,
                         "rtol": FLOAT_RTOL}
            for f in (findings[i] for i in job.findings if _is_global_race(findings[i])):
                variant = pl.atomic_variant(plan["source"], job.lines_offset, f.line)
                if variant:
                    p["variant_source"], job.variant_line = variant, f.line
                    break
        elif step == "arrivals":
            plain = _plain(job)
            lines = sorted(job.lines.get("barrier-divergence", ()))
            g = job.geometry
            slots = min(len(lines) * _prod(g.grid) * _prod(g.block), ARRIVAL_SLOTS)
            variant = pl.arrival_variant(plan["source"], job.lines_offset, lines, slots)
            if variant is None or plain is None or plain.timed_out:
                continue  # no __syncthreads() to count, or a hang: counting would hang too
            p.update(source=variant, arrivals={"lines": lines, "slots": slots}, runs=1)
        elif step in ("ncu", "ncu-kernel"):
            p["runs"] = 1
        elif step == "memcheck-optimised":  # -G splits some 8-byte accesses into narrower ones
            p["options"] = [o for o in plan["options"] if o != "-G"]
        (wd / f"{step}.plan.json").write_text(json.dumps(p))
        out = wd / f"{step}.out.json"
        child = [python, str(CHILD), str(wd / f"{step}.plan.json"), str(out)]
        cs = tl.get("compute-sanitizer")
        if step in ("plain", "plain-diff", "arrivals"):
            cmd = child
        elif step in ("memcheck", "memcheck-optimised"):
            cmd = [cs, "--tool", "memcheck", "--print-limit", "64", *child]
        elif step == "racecheck":
            cmd = [cs, "--tool", "racecheck", "--print-limit", "64", *child]
        elif step == "synccheck":
            cmd = [cs, "--tool", "synccheck", "--print-limit", "64", *child]
        elif step == "ncu":
            cmd = [tl["ncu"], "--clock-control", "none", *NCU_SOURCE, *child]
        elif step == "ncu-kernel":
            cmd = [tl["ncu"], "--clock-control", "none", "--csv", "--metrics", ",".join(ev.NCU_BANK_METRICS), *child]
        else:  # pragma: no cover
            continue
        if step.startswith("ncu"):
            with ncu_lock:  # the source page names the file by its #line name: run beside it
                r = run_cmd(step, cmd, timeout, env, cwd=os.path.dirname(os.path.abspath(job.path)))
            if step == "ncu" and not r.timed_out and not ncs.kernel_lines(r.output, job.kernel, job.path):
                steps.append("ncu-kernel")  # no line-level data: kernel-level counters instead
        else:
            r = run_cmd(step, cmd, timeout, env)
        try:
            r.result = json.loads(out.read_text())
        except (OSError, ValueError):
            r.result = {}
        job.runs[step] = r
        if step in ("plain", "plain-diff") and r.result.get("error") == "compile":
            break  # nothing else can run
        if step in ("plain", "plain-diff") and r.timed_out and "synccheck" not in steps:
            break  # a hang: the tools would hang too
    return job


# ----------------------------------------------------------------------------- judging


def _prod(dims) -> int:
    return dims[0] * dims[1] * dims[2]


def _plain(job: KernelJob) -> Run | None:
    return job.runs.get("plain") or job.runs.get("plain-diff")


def _geom_text(job: KernelJob) -> str:
    return job.geometry.describe() if job.geometry else "?"


def _launch_summary(job: KernelJob) -> str:
    r = _plain(job)
    if r is None:
        return "not run"
    if r.timed_out:
        return f"the launch hung and was killed after {r.seconds:.0f} s"
    res = r.result
    if res.get("error"):
        return f"the launch failed with {res['error']}"
    if not res:
        return f"the child exited with status {r.rc} and no result"
    return "the launch completed without error"


def _basic_problem(job: KernelJob, launch_errors_count: bool = False) -> Confirmation | None:
    r = _plain(job)
    if r is None:
        return Confirmation("error", "cupy", "the kernel was not run")
    res = r.result
    if res.get("error") == "compile":
        log = " ".join(res.get("compile_log", "").split())
        return Confirmation("error", "nvrtc", f"NVRTC could not compile the device-only view: {log[-300:]}")
    if res.get("error") == "import":
        return Confirmation("error", "cupy", res.get("error_text") or "CuPy import failed")
    if not res and not r.timed_out:
        tail = " ".join(r.output.split())[-300:]
        return Confirmation("error", "cupy", f"the child exited with status {r.rc}: {tail}")
    if launch_errors_count and res.get("error"):
        return Confirmation("error", "launch", f"{_launch_summary(job)}: the synthesised arguments or geometry do "
                            f"not fit this kernel ({_geom_text(job)}); pin them with a `// cudalint-confirm:` comment")
    return None


def judge_misaligned(f: Finding, job: KernelJob) -> Confirmation:
    """From the debug build (each access on its line); where that does not fault, from the
    optimised one, in which an 8-byte access that -G splits in two stays one wide access."""
    c = _judge_misaligned_debug(f, job)
    opt = job.runs.get("memcheck-optimised")
    if c.status != "not-reproduced" or opt is None or opt.timed_out:
        return c
    # optimised code may name a neighbouring line: a store's line blamed for a load is not taken
    kinds = {"ld": "read", "st": "write"}
    wanted = {kinds[d] for d in _direction(f)}
    mis = [a for a in ev.parse_memcheck(opt.output) if a.misaligned and a.access in wanted]
    here = [a for a in mis if a.touches(f.path, f.line)]  # reports name files through #line
    moved = [a for a in mis if a.location and _moved_from(job, f.line, a)]
    if not here and not moved:
        return c
    a = (here or moved)[0]
    where = "" if here else (f" (reported at line {a.location.line}, where the optimised code does it: line "
                             f"{a.location.line} has no {a.size}-byte {a.access} of its own and line {f.line} "
                             f"is the kernel's only one)")
    return Confirmation("confirmed", "compute-sanitizer memcheck (optimised build)",
                        f"misaligned {a.address_space} {a.access} of {a.size} bytes at line {f.line}{where}"
                        f"{f' by thread {a.thread} in block {a.block}' if a.thread else ''} ({len(here or moved)} "
                        f"report(s); the -G build did not fault here; {_geom_text(job)})")


def _user_line(a, job: KernelJob) -> int | None:
    """The line of the user's file a report names: an access inside a header's inline function
    (`__half2::__half2` in cuda_fp16.h) is at its device frame in the file."""
    locs = [l for l in (getattr(a, "location", None), *getattr(a, "device_frames", ())) if l is not None and l.line]
    own = [l for l in locs if l.file == Path(job.path).name] or locs
    return own[0].line if own else getattr(a, "line", None)


def _moved_from(job: KernelJob, line: int, a) -> bool:
    """Optimised code schedules a load at its value's use, and line info follows: a report at a line
    with no access of its kind and size is taken for `line` when `line` is the kernel's one such access."""
    kind = (a.access, a.size)
    if a.location.line == line or kind in job.accesses.get(a.location.line, set()):
        return False
    return [l for l, acc in job.accesses.items() if kind in acc] == [line]


def _judge_misaligned_debug(f: Finding, job: KernelJob) -> Confirmation:
    bad = _basic_problem(job)
    if bad:
        return bad
    plain = _plain(job)
    perr = plain.result.get("error")
    mc = job.runs.get("memcheck")
    if mc is not None and not mc.timed_out:
        reports = ev.parse_memcheck(mc.output)
        hits = [a for a in reports if a.touches(f.path, f.line)]
        mis = [a for a in hits if a.misaligned]
        if mis:
            a = mis[0]
            who = f" by thread {a.thread} in block {a.block}" if a.thread else ""
            return Confirmation("confirmed", "compute-sanitizer memcheck",
                                f"misaligned {a.address_space} {a.access} of {a.size} bytes at line {f.line}{who} "
                                f"({len(mis)} report(s); {_launch_summary(job)}; {_geom_text(job)})")
        # the hardware-exception form ("Misaligned shared or local address / at k+0x120 in f.cu:90"),
        # printed for generic-pointer accesses, which parse_memcheck does not read
        for head, details in ev._records(mc.output):
            if "misaligned" in head.lower() and not head.lower().startswith(("invalid", "program hit")):
                loc = ev._at_location(details)
                if loc is not None and loc.line == f.line:
                    return Confirmation("confirmed", "compute-sanitizer memcheck",
                                        f"{head} at line {f.line} ({_launch_summary(job)}; {_geom_text(job)})")
                if loc is not None and loc.line:
                    reports.append(type("R", (), {"misaligned": True, "line": loc.line})())
        others = sorted({_user_line(a, job) for a in reports if a.misaligned and _user_line(a, job)})
        if others:
            return Confirmation("unsupported", "compute-sanitizer memcheck",
                                f"not reached: the kernel stops at the misaligned access on line "
                                f"{', '.join(map(str, others))} first ({_geom_text(job)})")
        if hits:
            return Confirmation("not-reproduced", "compute-sanitizer memcheck",
                                f"invalid (not misaligned) {hits[0].access} at this line: {hits[0].message}")
        if perr == "cudaErrorMisalignedAddress":
            return Confirmation("confirmed", "launch",
                                f"cudaErrorMisalignedAddress from the launch ({_geom_text(job)}); kernel-level: "
                                f"memcheck did not attribute the fault to a line")
        if perr:
            return Confirmation("error", "launch", f"{_launch_summary(job)}; memcheck reported nothing at this line")
        return Confirmation("not-reproduced", "compute-sanitizer memcheck",
                            f"no misaligned access reported; {_launch_summary(job)} ({_geom_text(job)})")
    if perr == "cudaErrorMisalignedAddress":
        return Confirmation("confirmed", "launch",
                            f"cudaErrorMisalignedAddress from the launch ({_geom_text(job)}); kernel-level: "
                            f"compute-sanitizer is not on PATH to map it to a line")
    if plain.timed_out:
        return Confirmation("error", "launch", _launch_summary(job))
    if perr:
        return Confirmation("error", "launch", f"{_launch_summary(job)} (not a misalignment; arguments may be off)")
    return Confirmation("not-reproduced", "launch", f"{_launch_summary(job)} ({_geom_text(job)})")


def _related_lines(f: Finding) -> set:
    return {r.line for r in f.related if r.path == f.path or Path(r.path).name == Path(f.path).name}


def _differential(f: Finding, job: KernelJob) -> Confirmation:
    r = job.runs.get("plain-diff")
    if r is None:
        return Confirmation("error", "differential-runs", "differential runs did not run")
    if r.result.get("error"):
        return Confirmation("error", "differential-runs", _launch_summary(job))
    runs, cmp = r.result.get("runs") or 0, r.result.get("compare") or []
    if runs < 2:
        return Confirmation("error", "differential-runs", f"fewer than two completed runs ({_launch_summary(job)})")
    names = [a["name"] for a in job.plan["args"]]
    dtypes = [a.get("dtype") for a in job.plan["args"]]
    beyond, within, reordered = [], [], []
    for name, dt, c in zip(names, dtypes, cmp):
        if not c or not c["runs_differ"]:
            continue
        if c.get("runs_permuted") == c["runs_differ"]:
            reordered.append(f"`{name}`")
        elif c["runs_beyond"]:
            how = (f"max relative difference {c['max_rel']:.2g} > {FLOAT_RTOL[dt]:g}" if c["max_rel"] is not None
                   else "integers, compared exactly")
            beyond.append(f"`{name}` in {c['runs_beyond']} run(s), {c['elements']} element(s), {how}")
        else:
            within.append(f"`{name}` by at most {c['max_rel'] or 0.0:.2g} relative (<= {FLOAT_RTOL[dt]:g})")
    head = f"{runs} runs from identical inputs"
    if beyond and job.peers(f):  # outputs are kernel-level: any racy line of the kernel changes them
        return Confirmation("unsupported", "differential-runs",
                            f"{head}: results differ ({'; '.join(beyond)}), but differential runs cannot single "
                            f"out line {f.line}: the static pass also flags line(s) "
                            f"{', '.join(map(str, job.peers(f)))} of this kernel ({_geom_text(job)})")
    if beyond:
        return Confirmation("confirmed", "differential-runs",
                            f"{head}: results differ from the first run's ({'; '.join(beyond)}; {_geom_text(job)})")
    variant = r.result.get("variant") or {}
    changed = [f"`{name}`" for name, d in zip(names, variant.get("buffers") or []) if d and d["beyond"]]
    if changed and job.variant_line == f.line and not job.peers(f):
        return Confirmation("confirmed", "atomic-variant",
                            f"{head} agree with each other, but not with the same kernel with line {f.line} made "
                            f"an atomicAdd ({', '.join(changed)} differ): the plain read-modify-write loses "
                            f"updates, the same ones every run ({_geom_text(job)})")
    if reordered:
        return Confirmation("not-reproduced", "differential-runs",
                            f"{head} differ only in the order of their values ({', '.join(reordered)}): "
                            f"positions handed out by atomics, not a lost or torn write ({_geom_text(job)})")
    if within:
        return Confirmation("not-reproduced", "differential-runs",
                            f"{head} differ only by float rounding ({'; '.join(within)}): the order of "
                            f"atomic additions, not a lost update ({_geom_text(job)})")
    return Confirmation("not-reproduced", "differential-runs", f"{head} gave identical results ({_geom_text(job)})")


def judge_race(f: Finding, job: KernelJob) -> Confirmation:
    bad = _basic_problem(job, launch_errors_count=True)
    if bad:
        return bad
    rc = job.runs.get("racecheck")
    if _is_global_race(f) or rc is None:
        c = _differential(f, job)
        if rc is None and not _is_global_race(f) and c.status != "confirmed":
            return Confirmation(c.status, c.method, c.detail + "; compute-sanitizer is not on PATH")
        return c
    if rc.timed_out:
        return Confirmation("error", "compute-sanitizer racecheck", f"racecheck was killed after {rc.seconds:.0f} s")
    hazards = ev.parse_racecheck(rc.output)
    lines = {f.line} | _related_lines(f)
    hits = [h for h in hazards if h.touches(f.path, f.line)]
    if hits:
        best = sorted(hits, key=lambda h: (h.severity != "error", -(set(h.lines) <= lines)))[0]
        kinds = f"{best.first_access} at line {best.first.line} / {best.second_access} at line {best.second.line}"
        cat = f" ({best.category})" if best.category else ""
        return Confirmation("confirmed", "compute-sanitizer racecheck",
                            f"{best.severity}: race between {kinds} [{sum(h.count for h in hits)} hazards]{cat} "
                            f"({_geom_text(job)})")
    other = sorted({l for h in hazards for l in h.lines})
    return Confirmation("not-reproduced", "compute-sanitizer racecheck",
                        f"{len(hazards)} hazard report(s), none at line {f.line}"
                        + (f" (lines {other})" if other else "") + f"; {_launch_summary(job)} ({_geom_text(job)})")


def judge_barrier(f: Finding, job: KernelJob) -> Confirmation:
    bad = _basic_problem(job)
    if bad:
        return bad
    sc = job.runs.get("synccheck")
    plain = _plain(job)
    perr = plain.result.get("error")
    if sc is not None:
        reps = ev.parse_synccheck(sc.output)
        hits = [s for s in reps if s.touches(f.path, f.line)]
        if hits:
            s = hits[0]
            who = f" (thread {s.thread} in block {s.block})" if s.thread else ""
            also = f"; the plain launch failed with {perr}" if perr else ""
            return Confirmation("confirmed", "compute-sanitizer synccheck",
                                f"{s.message} at line {f.line}{who}; {len(hits)} report(s){also} ({_geom_text(job)})")
    if plain.timed_out:
        return Confirmation("confirmed", "hang",
                            f"{_launch_summary(job)}: threads wait at a barrier others never reach ({_geom_text(job)})")
    uneven = _uneven_arrivals(f, job)
    if uneven:
        return uneven
    if sc is None and perr == "cudaErrorIllegalInstruction" and not job.peers(f):
        # sm_70+ traps a __syncwarp whose mask leaves out a calling lane (the kernel's only flagged barrier)
        return Confirmation("confirmed", "launch", f"cudaErrorIllegalInstruction from the launch ({_geom_text(job)}); "
                            f"kernel-level: compute-sanitizer is not on PATH to map it to a line")
    if perr:
        return _basic_problem(job, launch_errors_count=True)
    if sc is None:
        return Confirmation("not-reproduced", "launch",
                            f"{_launch_summary(job)}{_even_arrivals(f, job)}; compute-sanitizer is not on PATH "
                            f"for synccheck")
    if sc.timed_out:
        return Confirmation("confirmed", "hang", f"synccheck run hung and was killed after {sc.seconds:.0f} s")
    reps = ev.parse_synccheck(sc.output)
    other = sorted({s.line for s in reps if s.line})
    even = _even_arrivals(f, job)
    if not reps and not even and dict(f.properties).get("skipping_threads") == "exit":
        return Confirmation("unsupported", "compute-sanitizer synccheck",
                            "the threads that skip this barrier exit, and on sm_70 and later exited threads count "
                            f"as arrived: synccheck does not see it, and the arrivals were not counted "
                            f"({_launch_summary(job)}; {_geom_text(job)})")
    return Confirmation("not-reproduced", "compute-sanitizer synccheck",
                        f"{len(reps)} barrier report(s), none at line {f.line}" + (f" (lines {other})" if other else "")
                        + f"{even}; {_launch_summary(job)} ({_geom_text(job)})")


def _arrivals_at(job: KernelJob, line: int) -> dict | None:
    r = job.runs.get("arrivals")
    rows = [a for a in (r.result.get("arrivals") or []) if a["line"] == line] if r else []
    return rows[0] if rows else None


def _even_arrivals(f: Finding, job: KernelJob) -> str:
    a = _arrivals_at(job, f.line)
    if a is None or a["uneven_blocks"]:
        return ""
    return f"; each block's threads all reached it equally often ({a['arrivals']} arrivals counted)"


def _uneven_arrivals(f: Finding, job: KernelJob) -> Confirmation | None:
    """Confirmed when threads of one block reached the barrier different numbers of times (each
    thread counted in the `arrivals` run): the barrier is not reached by the whole block."""
    a = _arrivals_at(job, f.line)
    if a is None or not a["uneven_blocks"]:
        return None
    ex = a["example"]
    counts = sorted(ex["threads_by_count"].items(), key=lambda kv: -int(kv[0]))
    how = ", ".join(f"{n} thread(s) {'never' if c == '0' else f'{c} time(s)'}" for c, n in counts)
    why = ""
    if dict(f.properties).get("skipping_threads") == "exit":
        why = ("; the threads that skip it exit, which sm_70 and later count as arriving (so nothing hangs "
               "and synccheck is silent), but CUDA requires the whole block to reach it")
    return Confirmation("confirmed", "arrival count",
                        f"threads of one block reach line {f.line} different numbers of times: in block "
                        f"{tuple(ex['block'])} {how} ({a['uneven_blocks']} of {a['blocks']} block(s) "
                        f"uneven){why} ({_geom_text(job)})")


def _direction(f: Finding) -> set:
    """Loads ("ld"), stores ("st") or both (an atomic, or a finding that does not say)."""
    return {"read": {"ld"}, "write": {"st"}}.get(dict(f.properties).get("access"), {"ld", "st"})


def judge_bank(f: Finding, job: KernelJob) -> Confirmation:
    bad = _basic_problem(job, launch_errors_count=True)
    if bad:
        return bad
    r = job.runs.get("ncu")
    if r is None:
        return Confirmation("unsupported", "ncu", "ncu is not on PATH (no hardware counters to read)")
    if r.timed_out:
        return Confirmation("error", "ncu", f"ncu was killed after {r.seconds:.0f} s")
    lines = ncs.kernel_lines(r.output, f.kernel, f.path)
    if lines:
        return _bank_at_line(f, job, lines)
    return _bank_in_kernel(f, job, job.runs.get("ncu-kernel") or r)


def _bank_at_line(f: Finding, job: KernelJob, lines: dict) -> Confirmation:
    method = "ncu source counters"
    hot = sorted(n for n, s in lines.items() if s.shared and s.excessive > 0)
    s = lines.get(f.line)
    if s is None or not s.shared:
        if hot:
            return Confirmation("unsupported", method, f"ncu attributes no shared access to line {f.line} (the "
                                f"compiler moved or merged it); the kernel's excessive wavefronts are at line(s) "
                                f"{', '.join(map(str, hot))} ({_geom_text(job)})")
        return Confirmation("not-reproduced", method, f"no shared access at line {f.line} and no excessive shared "
                            f"wavefronts in the kernel ({_geom_text(job)})")
    text = (f"line {f.line} ({s.operation}): {s.wavefronts:.0f} shared wavefronts, {s.ideal:.0f} without conflicts, "
            f"{s.excessive:.0f} excessive")
    if s.excessive > 0:
        return Confirmation("confirmed", method, f"{text} (about {s.degree:.1f}-way; {_geom_text(job)})")
    others = [n for n in hot if n != f.line]
    return Confirmation("not-reproduced", method, text + (f"; conflicts at line(s) {', '.join(map(str, others))}"
                                                          if others else "") + f" ({_geom_text(job)})")


def _bank_in_kernel(f: Finding, job: KernelJob, r: Run) -> Confirmation:
    """Kernel-level counters: evidence for a line only when no other line is suspected."""
    stats = ev.parse_ncu_bank_conflicts(r.output)
    base = ev.kernel_basename(f.kernel) or f.kernel
    st = stats.get(base)
    if st is None:
        tail = " ".join(r.output.split())[-200:]
        return Confirmation("error", "ncu", f"ncu printed no metrics for {base}: {tail}")
    dirs = _direction(f)
    conf = (st.ld_conflicts if "ld" in dirs else 0) + (st.st_conflicts if "st" in dirs else 0)
    deg = [d for d, k in ((st.ld_degree, "ld"), (st.st_degree, "st")) if k in dirs and d]
    detail = (f"{base}: loads {st.ld_conflicts:.0f} conflicts / {st.ld_instructions:.0f} shared instructions, "
              f"stores {st.st_conflicts:.0f} / {st.st_instructions:.0f}"
              + (f"; average degree {max(deg):.1f}" if deg else "") + f" ({_geom_text(job)})")
    if conf > 0 and job.peers(f):
        return Confirmation("unsupported", "ncu", f"kernel-level counters cannot single out line {f.line}: the "
                            f"static pass also flags line(s) {', '.join(map(str, job.peers(f)))} ({detail}; ncu "
                            f"gave no source-level data)")
    if conf > 0:
        return Confirmation("confirmed", "ncu", f"kernel-level: {detail}")
    return Confirmation("not-reproduced", "ncu", detail)


JUDGES = {"misaligned-access": judge_misaligned, "data-race": judge_race,
          "barrier-divergence": judge_barrier, "bank-conflict": judge_bank}


# ----------------------------------------------------------------------------- entry point


def confirm(findings: list[Finding], settings=None, timeout: float = 60.0, jobs: int | None = None,
            keep_dir: str | None = None, stream=None, check_gpu: bool = True) -> list[Finding]:
    """Findings with ``confirmation`` attached (same order). Runs code on the GPU.

    Without CuPy or a GPU prints one line to ``stream`` (stderr) and returns the findings unchanged.
    ``keep_dir``: copy every raw tool output there (``<file>.<kernel>.<tool>.txt``).
    """
    stream = stream or sys.stderr
    findings = list(findings)
    if not findings:
        return findings
    if settings is None:
        from cudalint.settings import Settings
        settings = Settings()
    if check_gpu:
        ok, why = gpu_status()
        if not ok:
            print(f"cudalint: {NEEDS_GPU} ({why}); static results unchanged", file=stream)
            return findings
    tl = tools()
    work = Path(tempfile.mkdtemp(prefix="cudalint-confirm-"))
    python = sys.executable
    results: dict[int, Confirmation] = {}
    kernel_idx: dict[str, list] = {}
    host_idx: dict[str, list] = {}
    for i, f in enumerate(findings):
        if f.category in HOST_CATEGORIES or (f.kernel is None and f.category not in KERNEL_CATEGORIES):
            host_idx.setdefault(f.path, []).append(i)
        elif f.kernel is None:
            results[i] = Confirmation("unsupported", "none", "the finding names no kernel to run")
        elif f.rule in UNOBSERVED:
            results[i] = Confirmation("unsupported", "none", UNOBSERVED[f.rule])
        elif f.category not in JUDGES:
            results[i] = Confirmation("unsupported", "none", f"no GPU evidence for category {f.category}")
        else:
            kernel_idx.setdefault(f.path, []).append(i)
    all_jobs: list[KernelJob] = []
    for path, idxs in kernel_idx.items():
        try:
            all_jobs += plan_kernel_jobs(path, findings, idxs, settings)
        except Exception as exc:
            for i in idxs:
                results[i] = Confirmation("error", "plan", f"could not plan the run: {exc!r}")
    runnable = [j for j in all_jobs if j.problem is None and j.plan is not None]
    lock = threading.Lock()
    n = jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
    with cf.ThreadPoolExecutor(max_workers=n) as pool:
        futs = [pool.submit(execute_job, j, findings, tl, timeout, work, python, lock) for j in runnable]
        host_futs = {p: pool.submit(run_host, p, settings, tl, timeout, work) for p in host_idx}
        for fu in futs:
            try:
                fu.result()
            except Exception as exc:  # keep going: one job's failure is that job's error
                print(f"cudalint: --confirm: internal error: {exc!r}", file=stream)
    for j in all_jobs:
        for i in j.findings:
            f = findings[i]
            if j.problem:
                results[i] = Confirmation("unsupported", "cupy", j.problem)
                continue
            try:
                c = JUDGES[f.category](f, j)
            except Exception as exc:
                c = Confirmation("error", "judge", f"internal error: {exc!r}")
            results[i] = c
    for p, idxs in host_idx.items():
        try:
            host = host_futs[p].result()
        except Exception as exc:
            host = {"problem": None, "build_error": f"internal error {exc!r}"}
        src = Path(p).read_text(encoding="utf-8", errors="replace")
        for i in idxs:
            results[i] = judge_host(findings[i], host, src)
    if keep_dir:
        _keep(keep_dir, all_jobs, host_idx, host_futs if host_idx else {})
    shutil.rmtree(work, ignore_errors=True)
    return [f.with_(confirmation=results.get(i) or Confirmation("error", "none", "not confirmed"))
            for i, f in enumerate(findings)]


def _keep(keep_dir: str, jobs: list, host_idx: dict, host_futs: dict) -> None:
    d = Path(keep_dir)
    d.mkdir(parents=True, exist_ok=True)
    for j in jobs:
        stem = f"{Path(j.path).name}.{re.sub(r'[^A-Za-z0-9_.-]', '_', j.kernel)}"
        if j.geometry:
            stem += f".b{j.geometry.block[0]}x{j.geometry.block[1]}"
        for tool, r in j.runs.items():
            (d / f"{stem}.{tool}.txt").write_text("$ " + " ".join(r.cmd[:6]) + " ...\n" + r.output
                                                  + "\n--- result ---\n" + json.dumps(r.result)[:4000])
    for p, fu in host_futs.items():
        try:
            h = fu.result()
        except Exception:
            continue
        if h.get("run"):
            (d / f"{Path(p).name}.leakcheck.txt").write_text(h["run"].output)
