#!/usr/bin/env python3
"""Capture raw tool output for the runner's line-level evidence (test data for tests/data/gpu/runner/).

Run on the device machine after the set-up of run_runner_tests.sh (PYTHONPATH with cudalint and
the carried site312):

    python3 scripts/gpu/capture_runner_evidence.py --out $OUT

* ncu source-level output (SourceCounters, ``--page source``, ``--print-details all``) of bank
  fixture kernels, planned exactly as the runner plans them;
* synccheck and the plain launch of a ``__syncwarp(mask)`` kernel;
* repeated launches of racy and atomic global accumulators (how far runs differ).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BANK = [("strides.cu", 35, "stride2_2way"), ("float4_access.cu", 38, "f4_stride2_2way"),
        ("doubles.cu", 36, "dbl_stride2_2way"), ("extern_carve.cu", 34, "carve_col_32way"),
        ("block2d.cu", 27, "blk16_col_8way"), ("transpose.cu", 33, "transpose_naive_tile"),
        ("swizzle.cu", 33, "xor_swizzle_masked_2way"), ("column_read.cu", 44, "col_const_32x8_32way")]
IMPORTS = {
    "src_cuda_sass.csv": ["--page", "source", "--csv", "--print-source", "cuda,sass"],
    "src_cuda.csv": ["--page", "source", "--csv", "--print-source", "cuda"],
    "src_sass.csv": ["--page", "source", "--csv", "--print-source", "sass"],
    "details.txt": ["--page", "details", "--print-details", "all"],
    "raw.csv": ["--page", "raw", "--csv"],
}


def sh(cmd, out: Path, cwd=None, timeout=120):
    t0 = time.monotonic()
    try:
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, timeout=timeout)
        text, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired as exc:
        text, rc = f"timeout {exc}", -1
    out.write_text("$ " + " ".join(map(str, cmd)) + "\n" + text)
    print(f"{out.name}: rc={rc} {time.monotonic() - t0:.1f} s", flush=True)
    return rc


def plan_for(path: str, line: int, kernel: str, category: str, rule: str):
    from cudalint.findings import Finding
    from cudalint.gpu import plan
    from cudalint.settings import Settings
    f = Finding(rule, category, category, "warning", path, line, 1, line, 1, "capture", kernel=kernel)
    jobs = plan.plan_kernel_jobs(path, [f], [0], Settings())
    return jobs[0].plan, jobs[0].problem


def race_runs(dest: str) -> None:
    """Global accumulators launched 12 times from identical inputs, at 1x, 4x, 16x the grid and n."""
    import importlib.util

    import cupy
    import numpy as np
    spec = importlib.util.spec_from_file_location("child", REPO / "cudalint" / "gpu" / "child.py")
    ch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ch)
    path = str(REPO / "fixtures" / "races" / "global_accumulate.cu")
    res = {}
    for kernel, line in (("count_above_plain", 26), ("count_above_atomic", 33), ("sum_atomic", 19), ("sum_plain", 11)):
        plan, _ = plan_for(path, line, kernel, "data-race", "CUDA203")
        for opt in ("G", "O3"):
            opts = [o for o in plan["options"] if o != "-G"] + (["-G"] if opt == "G" else [])
            fn = cupy.RawModule(code=plan["source"], options=tuple(opts), name_expressions=[kernel]).get_function(kernel)
            for scale in (1, 4, 16):
                grid = (plan["grid"][0] * scale, 1, 1)
                rng = np.random.default_rng(12345)
                init, args = [], []
                for a in plan["args"]:
                    if a["kind"] == "buffer":
                        h = ch._fill(np, rng, a["dtype"], int(a["nbytes"]) * scale)
                        init.append(h)
                        args.append(cupy.asarray(h))
                    else:
                        v = a["value"] * scale if a["name"] == "n" else a["value"]
                        init.append(None)
                        args.append(ch._scalar(np, a["dtype"], v))
                out_i = [i for i, a in enumerate(plan["args"]) if a["name"] in ("count", "total")][0]
                dt = "<u4" if "count" in kernel else "<f4"
                vals = []
                for _ in range(12):
                    args[out_i].set(init[out_i])
                    fn(grid, tuple(plan["block"]), tuple(args))
                    cupy.cuda.runtime.deviceSynchronize()
                    vals.append(float(args[out_i][:4].get().view(dt)[0]))
                start = float(init[out_i][:4].view(dt)[0])
                res[f"{kernel} {opt} x{scale}"] = {"grid": grid, "start": start, "values": vals}
                print(kernel, opt, f"x{scale}", grid, "start", start, "distinct", len(set(vals)), vals[:4], flush=True)
    Path(dest).write_text(json.dumps(res, indent=1))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--races")
    a = ap.parse_args()
    if a.races:
        race_runs(a.races)
        return 0
    out = Path(a.out)
    d = out / "cap"
    d.mkdir(parents=True, exist_ok=True)
    from cudalint.gpu import evidence as ev
    from cudalint.gpu import execute, runner
    tl = runner.tools()
    ncu, cs, py, child = tl["ncu"], tl["compute-sanitizer"], sys.executable, str(execute.CHILD)
    sh([ncu, "--version"], d / "ncu_version.txt")
    sh([ncu, "--help"], d / "ncu_help.txt")
    sh([ncu, "--list-sections"], d / "ncu_sections.txt")
    for sec in Path(ncu).resolve().parent.glob("**/SourceCounters.section"):
        (d / "SourceCounters.section.txt").write_text(sec.read_text())
    # __syncwarp(mask) with lanes outside the mask, planned as the runner plans it (-G)
    path = str(REPO / "fixtures" / "barriers" / "syncwarp_mask.cu")
    plan, _ = plan_for(path, 16, "pair_sum_bad_mask", "barrier-divergence", "CUDA204")
    pj = d / "syncwarp.plan.json"
    pj.write_text(json.dumps(plan))
    sh([py, child, pj, d / "syncwarp.plain.json"], d / "syncwarp.plain.txt")
    sh([cs, "--tool", "synccheck", "--print-limit", "64", py, child, pj, d / "syncwarp.sc.json"],
       d / "syncwarp.synccheck.txt")
    plan["options"] = [o for o in plan["options"] if o != "-G"]
    pj.write_text(json.dumps(plan))
    sh([py, child, pj, d / "syncwarp.plainO3.json"], d / "syncwarp.plainO3.txt")
    sh([py, __file__, "--races", d / "races.json"], d / "races.txt", timeout=200)
    for fname, line, kernel in BANK:
        path = str(REPO / "fixtures" / "bank" / fname)
        plan, problem = plan_for(path, line, kernel, "bank-conflict", "CUDA301")
        if plan is None:
            (d / f"{kernel}.problem.txt").write_text(str(problem))
            continue
        pj = d / f"{kernel}.plan.json"
        pj.write_text(json.dumps(plan))
        rep = d / f"{kernel}"
        cmd = [ncu, "--clock-control", "none", "--section", "SourceCounters", "--metrics",
               ",".join(ev.NCU_BANK_METRICS), "--import-source", "yes", "-f", "-o", rep,
               py, child, pj, d / f"{kernel}.out.json"]
        if sh(cmd, d / f"{kernel}.profile.txt", cwd=Path(path).parent) != 0:
            cmd[cmd.index("--import-source"):cmd.index("-f")] = []
            if sh(cmd, d / f"{kernel}.profile2.txt", cwd=Path(path).parent) != 0:
                continue
        for name, args in IMPORTS.items():
            if kernel not in ("stride2_2way", "f4_stride2_2way") and name not in ("src_cuda_sass.csv", "details.txt"):
                continue
            sh([ncu, "-i", f"{rep}.ncu-rep", *args], d / f"{kernel}.{name}")
        if kernel == "stride2_2way":
            sh([ncu, "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", "cuda",
                "--resolve-source-file", path], d / f"{kernel}.src_cuda_resolved.csv")  # one-shot form: the source page printed while profiling
            sh([ncu, "--clock-control", "none", "--section", "SourceCounters", "--page", "source", "--csv",
                "--print-source", "cuda,sass", py, child, pj, d / "oneshot.out.json"],
               d / f"{kernel}.oneshot_src.csv", cwd=Path(path).parent)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
