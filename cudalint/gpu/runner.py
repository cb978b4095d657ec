"""``--confirm``: run flagged kernels on a CUDA GPU and attach what happened to each finding.

Entry point :func:`confirm` (called by the CLI after the static pass, and usable from Python).
Nothing here runs unless it is called: the CLI calls it only with ``--confirm``.

How one kernel finding is confirmed
-----------------------------------
1. **Plan** (:mod:`cudalint.gpu.plan`, no GPU): the device-only view of the translation unit (host
   code blanked line for line, so tool line numbers are the user's), the NVRTC options (the file's
   directory, ``-I``/``-D`` from the settings, ``-lineinfo``, ``--std``), the name expression of the
   instantiation (``block_sum<128>``), a launch shape that holds the finding's witness, and
   synthesised arguments.
2. **Run** (:mod:`cudalint.gpu.execute` and :mod:`cudalint.gpu.child`): each kernel in a child process of its own (a fault breaks a
   CUDA context for good), in its own process group, under a time limit (a hung kernel — a
   divergent barrier — is killed and reported), with CuPy's memory pool capped
   (``CUDALINT_CONFIRM_MEM`` bytes, default 4 GiB). Compiled with CuPy ``RawModule`` (NVRTC): this
   is the one compiler every CuPy install has; where NVRTC cannot compile the file (no C++
   library) and nvcc is on PATH, nvcc builds it with host code kept (:mod:`cudalint.gpu.nvcc_build`).
3. **Evidence** by category (:mod:`cudalint.gpu.judges`), parsed with :mod:`cudalint.gpu.evidence`;
   where the synthesised launch could not run (its arguments fault), the file's own ``main()``
   runs the kernel under the finding's tool instead (:mod:`cudalint.gpu.program_runs`):

   ===================== ==========================================================================
   misaligned-access     ``compute-sanitizer --tool memcheck``: a misaligned report at the line (in
                         the -G build; else in the optimised one, where a load may be reported at
                         its value's use); else the launch's ``cudaErrorMisalignedAddress``
   data-race             shared: ``--tool racecheck`` hazards at the line, unless every write there
                         stores the value its byte held, or the hazards go with repeated positions in
                         the runner's data (:mod:`cudalint.gpu.shared_hazards`); global (racecheck does not
                         see global memory): the flagged accesses logged as they happen, two blocks
                         at one address through a racing pair (:mod:`cudalint.gpu.access_log`), else
                         differential runs (identical inputs, outputs that differ beyond float
                         rounding, or from the kernel with its read-modify-write made atomic)
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
from pathlib import Path

from cudalint.findings import VIA_NOTE, Confirmation, Finding

from .execute import execute_job
from .host import failing_calls, judge_host, run_host
from .judges import JUDGES
from .plan import KernelJob, plan_kernel_jobs
from .proc import tools

HOST_CATEGORIES = ("memory-leak", "double-free", "mismatched-free", "unsynchronized-host-access", "use-after-free")
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
    host_idx: dict[tuple, list] = {}  # (path, calls made to fail) -> findings
    for i, f in enumerate(findings):
        if f.category in HOST_CATEGORIES or (f.kernel is None and f.category not in KERNEL_CATEGORIES):
            # one program per file and set of calls to make fail (a leak on an error path)
            host_idx.setdefault((f.path, failing_calls(f)), []).append(i)
        elif f.kernel is None:
            results[i] = Confirmation("unsupported", "none", "the finding names no kernel to run")
        elif f.rule in UNOBSERVED:
            results[i] = Confirmation("unsupported", "none", UNOBSERVED[f.rule])
        elif f.category not in JUDGES:
            results[i] = Confirmation("unsupported", "none", f"no GPU evidence for category {f.category}")
        else:
            kernel_idx.setdefault(kernel_file(f), []).append(i)
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
        host_futs = {key: pool.submit(run_host, key[0], settings, tl, timeout, work, key[1]) for key in host_idx}
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
    _program_runs(findings, results, settings, tl, timeout, work, n, stream)
    for key, idxs in host_idx.items():
        try:
            host = host_futs[key].result()
        except Exception as exc:
            host = {"problem": None, "build_error": f"internal error {exc!r}"}
        src = Path(key[0]).read_text(encoding="utf-8", errors="replace")
        for i in idxs:
            results[i] = judge_host(findings[i], host, src)
    if keep_dir:
        _keep(keep_dir, all_jobs, host_idx, host_futs if host_idx else {})
    shutil.rmtree(work, ignore_errors=True)
    return [f.with_(confirmation=results.get(i) or Confirmation("error", "none", "not confirmed"))
            for i, f in enumerate(findings)]


def _program_runs(findings, results, settings, tl, timeout, work, n, stream) -> None:
    """Kernel findings the synthesised launch could not run, run again in the file's own program
    where it has one (cudalint.gpu.program_runs): one build and run per file, kernel and tool."""
    from . import program_runs as pr
    from .host import has_main
    todo: dict = {}
    for i, f in enumerate(findings):
        path = kernel_file(f)
        if pr.wanted(f, results.get(i)) and has_main(Path(path).read_text(encoding="utf-8", errors="replace")):
            todo.setdefault((path, f.kernel, pr.tool_for(f)), []).append(i)
    if not todo:
        return
    with cf.ThreadPoolExecutor(max_workers=n) as pool:
        futs = {key: pool.submit(pr.run_program, *key, settings, tl, timeout, work) for key in todo}
        for key, idxs in todo.items():
            try:
                outcome = futs[key].result()
            except Exception as exc:
                print(f"cudalint: --confirm: internal error: {exc!r}", file=stream)
                continue
            for i in idxs:
                results[i] = pr.judge(findings[i], key[2], outcome, results[i])


def kernel_file(f: Finding) -> str:
    """The file to build the kernel from: a finding inside a header helper names the header, and
    its first "reached through this call" note the call in the kernel, whose file includes it."""
    via = [r.path for r in f.related if r.message == VIA_NOTE]
    return via[0] if via else f.path


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
    for (p, fails), fu in host_futs.items():
        try:
            h = fu.result()
        except Exception:
            continue
        if h.get("run"):
            failing = "".join(f".fail-{c[0]}-{c[1]}" for c in fails)
            (d / f"{Path(p).name}{failing}.leakcheck.txt").write_text(h["run"].output)
