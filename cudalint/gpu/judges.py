"""What each category's runs say about one finding: confirmed, not reproduced, unsupported, or
an error, with the evidence in words (the table in cudalint.gpu.runner says which tool for which)."""

from __future__ import annotations

from pathlib import Path

from cudalint.findings import Confirmation, Finding

from . import evidence as ev
from .access_log import judge_access_log, log_summary
from . import ncu_source as ncs
from .execute import FLOAT_RTOL
from .plan import KernelJob, is_global_race
from .proc import Run
from .shared_hazards import second_look
from .tool_output import at_location, records


def _geom_text(job: KernelJob) -> str:
    return job.geometry.describe() if job.geometry else "?"


def _launch_summary(job: KernelJob) -> str:
    r = job.plain()
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


# what a user can do about a kernel --confirm cannot build
COMPILE_HINT = ("; give the build's flags (-I, -D, or -p BUILD_DIR with its compile_commands.json) so the kernel "
                "compiles as in your build, or skip it with a `// cudalint-confirm: skip` comment")


def _basic_problem(job: KernelJob, launch_errors_count: bool = False) -> Confirmation | None:
    r = job.plain()
    if r is None:
        return Confirmation("error", "cupy", "the kernel was not run")
    res = r.result
    if res.get("error") == "compile":
        log = res.get("compile_log", "")
        nvrtc, sep, nvcc = log.partition("\nnvcc: ")
        if sep:  # the child tried nvcc too (cudalint.gpu.nvcc_build)
            return Confirmation("error", "nvcc", "neither NVRTC nor nvcc could compile the kernel; nvcc: "
                                + " ".join(nvcc.split())[-300:] + COMPILE_HINT)
        return Confirmation("error", "nvrtc", "NVRTC could not compile the device-only view: "
                            + " ".join(log.split())[-300:] + COMPILE_HINT)
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
    plain = job.plain()
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
        exception_lines = set()
        for head, details in records(mc.output):
            if "misaligned" in head.lower() and not head.lower().startswith(("invalid", "program hit")):
                loc = at_location(details)
                if loc is not None and loc.line == f.line:
                    return Confirmation("confirmed", "compute-sanitizer memcheck",
                                        f"{head} at line {f.line} ({_launch_summary(job)}; {_geom_text(job)})")
                if loc is not None and loc.line:
                    exception_lines.add(loc.line)
        others = sorted({_user_line(a, job) for a in reports if a.misaligned and _user_line(a, job)} | exception_lines)
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
    if is_global_race(f):
        logged = judge_access_log(f, job, {f.line} | _related_lines(f))
        if logged:
            return logged
        c = _differential(f, job)
        if c.status == "not-reproduced":
            return Confirmation(c.status, c.method, c.detail + (log_summary(job) or
                                                                (f"; {job.log_note}" if job.log_note else "")))
        return c
    if rc is None:
        c = _differential(f, job)
        if c.status != "confirmed":
            return Confirmation(c.status, c.method, c.detail + "; compute-sanitizer is not on PATH")
        return c
    if rc.timed_out:
        return Confirmation("error", "compute-sanitizer racecheck", f"racecheck was killed after {rc.seconds:.0f} s")
    hazards = ev.parse_racecheck(rc.output)
    hit = race_at_line(f, hazards, "compute-sanitizer racecheck", _geom_text(job))
    if hit:
        return second_look(f, job, hit)
    logged = judge_access_log(f, job, {f.line} | _related_lines(f))  # racecheck does not track atomics
    if logged:
        return logged
    other = sorted({l for h in hazards for l in h.lines})
    return Confirmation("not-reproduced", "compute-sanitizer racecheck",
                        f"{len(hazards)} hazard report(s), none at line {f.line}"
                        + (f" (lines {other})" if other else "") + f"; {_launch_summary(job)} ({_geom_text(job)})"
                        + log_summary(job))


def race_at_line(f: Finding, hazards: list, method: str, where: str) -> Confirmation | None:
    """`confirmed` where racecheck's hazards touch the finding's line (an error, and one within
    the finding's own lines, first); `where`: the run they come from."""
    lines = {f.line} | _related_lines(f)
    hits = [h for h in hazards if h.touches(f.path, f.line)]
    if not hits:
        return None
    best = sorted(hits, key=lambda h: (h.severity != "error", -(set(h.lines) <= lines)))[0]
    kinds = f"{best.first_access} at line {best.first.line} / {best.second_access} at line {best.second.line}"
    cat = f" ({best.category})" if best.category else ""
    return Confirmation("confirmed", method, f"{best.severity}: race between {kinds} "
                        f"[{sum(h.count for h in hits)} hazards]{cat} ({where})")


def sync_at_line(f: Finding, reports: list, method: str, where: str, also: str = "") -> Confirmation | None:
    """`confirmed` where synccheck's reports touch the finding's line; `where`: the run they come from."""
    hits = [s for s in reports if s.touches(f.path, f.line)]
    if not hits:
        return None
    s = hits[0]
    who = f" (thread {s.thread} in block {s.block})" if s.thread else ""
    return Confirmation("confirmed", method, f"{s.message} at line {f.line}{who}; {len(hits)} report(s){also} ({where})")


# what synccheck cannot see: on sm_70+ a barrier skipped by threads that then exit neither hangs nor is reported
EXITING_SKIP = ("the threads that skip this barrier exit, and on sm_70 and later exited threads count as arrived: "
                "synccheck does not see it")


def judge_barrier(f: Finding, job: KernelJob) -> Confirmation:
    bad = _basic_problem(job)
    if bad:
        return bad
    sc = job.runs.get("synccheck")
    plain = job.plain()
    perr = plain.result.get("error")
    if sc is not None:
        also = f"; the plain launch failed with {perr}" if perr else ""
        hit = sync_at_line(f, ev.parse_synccheck(sc.output), "compute-sanitizer synccheck", _geom_text(job), also)
        if hit:
            return hit
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
        return Confirmation("unsupported", "compute-sanitizer synccheck", f"{EXITING_SKIP}, and the arrivals were "
                            f"not counted ({_launch_summary(job)}; {_geom_text(job)})")
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
    return bank_at_line(f, lines, "ncu source counters", _geom_text(job))


def bank_at_line(f: Finding, lines: dict, method: str, where: str) -> Confirmation:
    """ncu's source counters (line -> SharedLine) read at the finding's line; `where`: the run
    they come from, for the detail ("grid (2,1,1) block (128,1,1)")."""
    hot = sorted(n for n, s in lines.items() if s.shared and s.excessive > 0)
    s = lines.get(f.line)
    if s is None or not s.shared:
        if hot:
            return Confirmation("unsupported", method, f"ncu attributes no shared access to line {f.line} (the "
                                f"compiler moved or merged it); the kernel's excessive wavefronts are at line(s) "
                                f"{', '.join(map(str, hot))} ({where})")
        return Confirmation("not-reproduced", method, f"no shared access at line {f.line} and no excessive shared "
                            f"wavefronts in the kernel ({where})")
    text = (f"line {f.line} ({s.operation}): {s.wavefronts:.0f} shared wavefronts, {s.ideal:.0f} without conflicts, "
            f"{s.excessive:.0f} excessive")
    if s.excessive > 0:
        return Confirmation("confirmed", method, f"{text} (about {s.degree:.1f}-way; {where})")
    others = [n for n in hot if n != f.line]
    return Confirmation("not-reproduced", method, text + (f"; conflicts at line(s) {', '.join(map(str, others))}"
                                                          if others else "") + f" ({where})")


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
