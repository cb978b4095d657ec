"""One kernel on the GPU: the child process of ``--confirm`` (``python child.py PLAN.json OUT.json``).

Run by :mod:`cudalint.gpu.runner` in its own process (and process group), under a time limit, and
possibly under ``compute-sanitizer`` or ``ncu``: a faulting kernel breaks its CUDA context for good,
and a deadlocked barrier never returns, so neither may happen in the linter's own process.

It compiles the device-only view with CuPy (``RawModule``, NVRTC, ``-lineinfo``), allocates the
planned buffers from a memory pool capped at ``mem_limit`` bytes, fills them with non-zero random
data made on the host (no CuPy kernels run, so the tools see the user's kernel alone), launches the
kernel ``runs`` times from the same initial data, and writes a JSON result: compile log, the CUDA
error of the launch if any, and a digest of every buffer after each run (differential evidence).

Standard library, NumPy and CuPy only: it is loaded by path and imports nothing from cudalint.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time


def _fill(np, rng, dtype: str, nbytes: int):
    if dtype in ("f4", "f8", "f2"):
        n = nbytes // int(dtype[1:])
        a = rng.uniform(0.5, 2.0, size=n).astype("<" + dtype)
    elif dtype == "bf16":
        f = rng.uniform(0.5, 2.0, size=nbytes // 2).astype("<f4")
        a = (f.view("<u4") >> 16).astype("<u2")
    elif dtype == "?":
        a = np.ones(nbytes, dtype="u1")
    else:
        size = int(dtype[1:])
        a = rng.integers(1, 8, size=nbytes // size).astype("<" + dtype)
    raw = a.view("u1")
    if raw.size < nbytes:
        raw = np.concatenate([raw, np.ones(nbytes - raw.size, dtype="u1")])
    return raw


def _scalar(np, dtype: str, value):
    if dtype == "bf16":
        f = np.array([value], dtype="<f4").view("<u4")[0] >> 16
        return np.uint16(f)
    if dtype == "?":
        return np.bool_(bool(value))
    return np.dtype("<" + dtype).type(value)


def main(argv) -> int:
    plan_path, out_path = argv[1], argv[2]
    with open(plan_path) as fh:
        plan = json.load(fh)
    res = {"compiled": False, "error": None, "error_text": None, "digests": [], "runs": 0,
           "compile_log": "", "seconds": {}}

    def write():
        with open(out_path, "w") as fh:
            json.dump(res, fh)

    t0 = time.monotonic()
    try:
        import cupy
        import numpy as np
    except Exception as exc:  # pragma: no cover - checked by the runner first
        res["error"], res["error_text"] = "import", repr(exc)
        write()
        return 3
    try:
        pool = cupy.get_default_memory_pool()
        pool.set_limit(size=int(plan.get("mem_limit") or 0))
        mod = cupy.RawModule(code=plan["source"], options=tuple(plan["options"]),
                             name_expressions=plan["name_expressions"])
        fn = mod.get_function(plan["kernel"])
        res["compiled"] = True
    except Exception as exc:
        res["error"] = "compile"
        res["compile_log"] = str(exc)[-4000:]
        write()
        return 4
    res["seconds"]["compile"] = round(time.monotonic() - t0, 3)
    try:
        shared = int(plan.get("shared_bytes") or 0)
        if shared > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared
        rng = np.random.default_rng(int(plan.get("seed", 12345)))
        init = []
        for a in plan["args"]:
            if a["kind"] == "buffer":
                init.append(_fill(np, rng, a["dtype"], int(a["nbytes"])))
            else:
                init.append(None)
        bufs = [cupy.empty(int(a["nbytes"]), dtype=cupy.uint8) if a["kind"] == "buffer" else None
                for a in plan["args"]]
        for r in range(int(plan.get("runs", 1))):
            args = []
            for a, b, h in zip(plan["args"], bufs, init):
                if a["kind"] == "buffer":
                    b.set(h)
                    args.append(b)
                else:
                    args.append(_scalar(np, a["dtype"], a["value"]))
            cupy.cuda.runtime.deviceSynchronize()
            t1 = time.monotonic()
            fn(tuple(plan["grid"]), tuple(plan["block"]), tuple(args), shared_mem=shared)
            cupy.cuda.runtime.deviceSynchronize()
            res["seconds"].setdefault("kernel", []).append(round(time.monotonic() - t1, 6))
            res["digests"].append([hashlib.sha1(b.get().tobytes()).hexdigest()[:16] if b is not None else None
                                   for b in bufs])
            res["runs"] = r + 1
            write()
    except Exception as exc:
        text = str(exc)
        name = None
        for word in text.replace(":", " ").split():
            if word.startswith(("cudaError", "CUDA_ERROR")):
                name = word
                break
        res["error"] = name or type(exc).__name__
        res["error_text"] = text[-2000:]
        write()
        return 5
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
