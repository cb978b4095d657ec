"""One file as pre-commit checks it: wall time of `cudalint FILE` with the result cache warm (a
hit) and with `--no-cache` (parse and analysis; the prelude PCH already built).

    python bench/precommit.py [FILE] [--runs N] [--cudalint PATH ...]

Uses the `cudalint` beside this Python unless --cudalint names others (time an installed,
non-editable copy: that is what pre-commit runs, with its bytecode compiled; name two installs,
before and after a change, to compare them side by side: their runs alternate, so a burst of
load on a shared machine hits both alike). Prints the median and the spread of N runs of each,
and the load average. The caches live in temporary directories (CUDALINT_CACHE_DIR).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _default_cudalint() -> str:
    exe = Path(sys.executable).with_name("cudalint")
    return str(exe) if exe.exists() else "cudalint"


def _wall(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def _line(name: str, times: list[float]) -> str:
    return (f"{name:5s} median {statistics.median(times):.3f} s  "
            f"(min {min(times):.3f}, max {max(times):.3f}, {len(times)} runs)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="examples/matmul_tiled.cu")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cudalint", action="append", help="a cudalint executable (repeatable)")
    args = ap.parse_args()
    exes = args.cudalint or [_default_cudalint()]
    with tempfile.TemporaryDirectory(prefix="cudalint-precommit-") as tmp:
        envs = [dict(os.environ, CUDALINT_CACHE_DIR=os.path.join(tmp, str(i))) for i in range(len(exes))]
        for exe, env in zip(exes, envs):
            _wall([exe, args.file], env)  # fills the result cache (and the PCH, if missing)
            _wall([exe, args.file, "--no-cache"], env)
        warm, cold = [[] for _ in exes], [[] for _ in exes]
        for _ in range(args.runs):
            for i, (exe, env) in enumerate(zip(exes, envs)):
                warm[i].append(_wall([exe, args.file], env))
                cold[i].append(_wall([exe, args.file, "--no-cache"], env))
    for i, exe in enumerate(exes):
        print(f"{exe} {args.file}")
        print(_line("warm", warm[i]))
        print(_line("cold", cold[i]))
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
