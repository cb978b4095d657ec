#!/usr/bin/env python3
"""Parse every .cu/.cuh file under a directory in cudalint's shim mode and report
how many libclang errors each file gets (a coverage check for cudalint/shim).

usage: shim_coverage.py DIR [-I DIR]... [-D NAME[=VAL]]... [-j N] [--top N] [--quiet]
                        [--shim DIR] [--error-limit N] [--show REGEX]

Errors are counted without clang's usual cap of 20 per file (--error-limit 0), so the totals
are real counts; --shim points at another shim directory (e.g. an older one, for a before/after).
"""
import argparse
import collections
import multiprocessing
import os
import re
import sys
import time

SHIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cudalint", "shim")


def shim_args(shim):
    return ["-x", "cuda", "--cuda-host-only", "-std=c++17", "--cuda-gpu-arch=sm_80",
            "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version",
            f"--cuda-path={shim}", "-isystem", shim, "-include", "cudalint_shim.h"]

_index = None


def _init():
    global _index
    import clang.cindex as ci
    ci.Config.libcxx_dir = None  # must happen before the first libclang call
    _index = ci.Index.create()


def _parse(job):
    path, args = job
    import clang.cindex as ci
    opts = 0x200 | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD  # 0x200 = KeepGoing
    t0 = time.perf_counter()
    try:
        tu = _index.parse(path, args=args, options=opts)
    except ci.TranslationUnitLoadError as e:
        return path, None, [f"refused: {e}"], time.perf_counter() - t0
    errs = []
    for d in tu.diagnostics:
        if d.severity >= 3:
            loc = d.location
            where = f"{loc.file.name}:{loc.line}" if loc.file else "<driver>"
            errs.append(f"{where}: {d.spelling}")
    return path, len(errs), errs, time.perf_counter() - t0


def _normalise(msg):
    """Error text without its location, for grouping."""
    text = msg.split(": ", 1)[1] if ": " in msg else msg
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--quiet", action="store_true", help="only list files with errors")
    ap.add_argument("--shim", default=SHIM, help="shim directory (default: cudalint/shim)")
    ap.add_argument("--error-limit", type=int, default=0, help="clang -ferror-limit (0 = none)")
    ap.add_argument("--show", metavar="REGEX", help="print every error whose text matches REGEX")
    a = ap.parse_args(argv)

    extra = [f"-I{os.path.abspath(i)}" for i in a.includes] + [f"-D{d}" for d in a.defines]
    args = shim_args(os.path.abspath(a.shim)) + [f"-ferror-limit={a.error_limit}"] + extra
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(a.dir) for f in fs
                   if f.endswith((".cu", ".cuh")))
    t0 = time.perf_counter()
    with multiprocessing.Pool(a.jobs, initializer=_init) as pool:
        results = pool.map(_parse, [(f, args) for f in files], chunksize=1)
    wall = time.perf_counter() - t0

    counts = collections.Counter()
    clean = dirty = refused = total = 0
    for path, n, errs, dt in results:
        rel = os.path.relpath(path, a.dir)
        if n is None:
            refused += 1
            print(f"REFUSED {rel}: {errs[0]}")
            continue
        total += n
        if n:
            dirty += 1
        else:
            clean += 1
        if n or not a.quiet:
            print(f"{n:5d}  {rel}  ({dt * 1000:.0f} ms)")
        for e in errs:
            counts[_normalise(e)] += 1
            if a.show and re.search(a.show, e):
                print("      " + e)
    print(f"\n{a.top} most common errors:")
    for msg, c in counts.most_common(a.top):
        print(f"{c:6d}  {msg}")
    print(f"\nfiles: {len(files)}  clean (0 errors): {clean}  with errors: {dirty}  refused: {refused}"
          f"  total errors: {total}  wall: {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
