"""Running one job: the child (cudalint.gpu.child) under each tool its findings call for, in a
process of its own, under a time limit; each run's output and result are kept on the job."""

from __future__ import annotations

import json
import math
import os
import tempfile
import threading
from pathlib import Path

from . import evidence as ev
from . import ncu_source as ncs
from .plan import KernelJob, is_global_race
from .proc import run_cmd
from .access_log import SLOTS, log_variant, race_pairs
from .shared_hazards import DISTINCT, VALUE_REPORTS, VALUES, distinct_buffers, follow_up_steps, with_distinct_fill
from .views import arrival_variant, atomic_variant

CHILD = Path(__file__).with_name("child.py")
# Differential runs: at least DIFF_MIN_RUNS, then more (up to DIFF_MAX_RUNS, while under
# DIFF_SECONDS) until a difference shows: a racy counter often loses the same updates every run.
DIFF_MIN_RUNS, DIFF_MAX_RUNS, DIFF_SECONDS = 6, 64, 10.0
ARRIVAL_SLOTS = 1 << 24  # per-thread barrier arrival counters (64 MiB)
# Float outputs may differ this much (relative) between runs: atomics add in a different order
# each run, a reordered sum of n terms moves by about sqrt(n) ulp; a lost update moves by a term.
FLOAT_RTOL = {"f8": 1e-10, "f4": 1e-4, "f2": 1e-2, "bf16": 5e-2}
NCU_SOURCE = ("--section", "SourceCounters", "--page", "source", "--csv", "--print-source", "cuda,sass")


def tool_plan(job: KernelJob, findings, tl: dict) -> list[str]:
    fs = [findings[i] for i in job.findings]
    cats = {f.category for f in fs}
    out = ["plain"]
    cs = tl.get("compute-sanitizer")
    if "misaligned-access" in cats and cs:
        out += ["memcheck", "memcheck-optimised"]
    if "data-race" in cats:
        if cs and any(not is_global_race(f) for f in fs):
            out.append("racecheck")
        if not cs or any(is_global_race(f) for f in fs):
            out[0] = "plain-diff"
        if job.log_sites:
            out.append("access-log")
    if "barrier-divergence" in cats:
        out += ["synccheck", "arrivals"] if cs else ["arrivals"]
    if "bank-conflict" in cats and tl.get("ncu"):
        out.append("ncu")
    return out


def _flagged_calls(job: KernelJob, findings) -> dict:
    """line -> (column, end column) of each flagged block barrier on one line of the job's file:
    where the line has no `__syncthreads()`, the barrier is inside the call there (arrival_variant)."""
    return {f.line: (f.column, f.end_column) for f in (findings[i] for i in job.findings)
            if dict(f.properties).get("barrier") == "block" and f.end_line == f.line and f.path == job.path}


def execute_job(job: KernelJob, findings, tl: dict, timeout: float, work: Path, python: str,
                ncu_lock: threading.Lock) -> KernelJob:
    wd = Path(tempfile.mkdtemp(prefix="job-", dir=work))
    plan = dict(job.plan, nvcc=tl.get("nvcc"))
    steps = tool_plan(job, findings, tl)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for step in steps:
        p = dict(plan)
        if step == "plain-diff":
            n = plan.get("runs_override")
            p["diff"] = {"min_runs": n or DIFF_MIN_RUNS, "max_runs": n or DIFF_MAX_RUNS, "seconds": DIFF_SECONDS,
                         "rtol": FLOAT_RTOL}
            for f in (findings[i] for i in job.findings if is_global_race(findings[i])):
                variant = atomic_variant(plan["source"], job.lines_offset, f.line)
                if variant:
                    p["variant_source"], job.variant_line = variant, f.line
                    p["host_variant_source"] = atomic_variant(plan["host_source"], job.lines_offset, f.line)
                    break
        elif step == "arrivals":
            plain = job.plain()
            lines = sorted(job.lines.get("barrier-divergence", ()))
            g = job.geometry
            slots = min(len(lines) * math.prod(g.grid) * math.prod(g.block), ARRIVAL_SLOTS)
            calls = _flagged_calls(job, findings)
            variant = arrival_variant(plan["source"], job.lines_offset, lines, slots, calls)
            if variant is None or plain is None or plain.timed_out:
                continue  # no barrier to count, or a hang: counting would hang too
            p.update(source=variant, host_source=arrival_variant(plan["host_source"], job.lines_offset, lines, slots,
                                                                 calls),
                     arrivals={"lines": lines, "slots": slots}, runs=1)
        elif step == "access-log":
            p.update(source=log_variant(plan["source"], job.lines_offset, job.log_sites),
                     host_source=log_variant(plan["host_source"], job.lines_offset, job.log_sites), runs=1,
                     access_log={"slots": SLOTS, "pairs": race_pairs(job.log_sites),
                                 "widths": [site.width for site in job.log_sites],
                                 "shifts": [site.shift for site in job.log_sites],
                                 "same_block": job.log_same_block})
        elif step in ("ncu", "ncu-kernel"):
            p["runs"] = 1
        elif step == "memcheck-optimised":  # -G splits some 8-byte accesses into narrower ones
            p["options"] = [o for o in plan["options"] if o != "-G"]
        elif step == DISTINCT:
            p["args"] = with_distinct_fill(plan["args"], distinct_buffers(job, job.lines.get("data-race", ())))
        (wd / f"{step}.plan.json").write_text(json.dumps(p))
        out = wd / f"{step}.out.json"
        child = [python, str(CHILD), str(wd / f"{step}.plan.json"), str(out)]
        cs = tl.get("compute-sanitizer")
        if step in ("plain", "plain-diff", "arrivals", "access-log"):
            cmd = child
        elif step in ("memcheck", "memcheck-optimised"):
            cmd = [cs, "--tool", "memcheck", "--print-limit", "64", *child]
        elif step in ("racecheck", DISTINCT):
            cmd = [cs, "--tool", "racecheck", "--print-limit", "64", *child]
        elif step == VALUES:
            cmd = [cs, "--tool", "racecheck", "--racecheck-report", "hazard", "--print-limit", str(VALUE_REPORTS),
                   *child]
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
        if step == "racecheck" and not r.timed_out:
            steps += follow_up_steps(job, findings, r.output)
        if step in ("plain", "plain-diff") and r.result.get("error") == "compile":
            break  # nothing else can run
        if step in ("plain", "plain-diff") and r.timed_out and "synccheck" not in steps:
            break  # a hang: the tools would hang too
    return job
