#!/usr/bin/env python3
"""`--confirm` for the findings of a judged sample only (docs/eval/*-sample.json), on the GPU machine.

    python3 scripts/gpu/confirm_sample.py --sample SAMPLE.json --root hecbench=DIR --root cuda-samples=DIR \
        -I hecbench=src/include -I cuda-samples=Common [--skip-false] [--id N ...] [--out $OUT] [--timeout 120]

SAMPLE.json: [{"id", "corpus", "rule", "path", "line", "verdict"?}, ...], paths relative to the
corpus root. Each corpus' files are checked from its root (so a `cudalint.toml` there, with its
`confirm-args`, applies), a header through the `.cu` files beside it; only the sample's findings
(same path, line and rule) go to the runner. `--skip-false`: leave out entries whose verdict is
FALSE. Writes results.json (each entry with its confirmation) and summary.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", required=True)
    ap.add_argument("--root", action="append", default=[], help="CORPUS=DIR")
    ap.add_argument("-I", dest="includes", action="append", default=[], help="CORPUS=DIR (relative to its root)")
    ap.add_argument("--skip-false", action="store_true")
    ap.add_argument("--id", type=int, action="append", default=[], help="only these entries (repeatable)")
    ap.add_argument("--out", default=os.environ.get("OUT") or "confirm-out")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    roots = dict(r.split("=", 1) for r in args.root)
    includes = collections.defaultdict(list)
    for entry in args.includes:
        corpus, d = entry.split("=", 1)
        includes[corpus].append(d)
    sample = json.loads(Path(args.sample).read_text())
    if args.id:
        sample = [e for e in sample if e["id"] in args.id]
    if args.skip_false:
        sample = [e for e in sample if str(e.get("verdict", "")).upper() != "FALSE"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start, rows = time.monotonic(), []
    here = os.getcwd()
    for corpus in sorted({e["corpus"] for e in sample}):
        entries = [e for e in sample if e["corpus"] == corpus]
        os.chdir(roots[corpus])
        try:
            rows += confirm_corpus(entries, includes[corpus], args.timeout)
        finally:
            os.chdir(here)
    rows.sort(key=lambda r: r["id"])
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    (out / "summary.md").write_text(summary(rows, time.monotonic() - start))
    print(summary(rows, time.monotonic() - start))
    return 0


def confirm_corpus(entries, include_dirs, timeout) -> list:
    from cudalint.arguments import parser, settings_from_args
    from cudalint.config import resolve_config
    from cudalint.engine import analyze_all
    from cudalint.gpu.runner import confirm

    paths = sorted({p for e in entries for p in files_for(e["path"])})
    argv = [*paths, *[x for d in include_dirs for x in ("-I", d)]]
    config = resolve_config(paths, None, False)
    settings = settings_from_args(parser().parse_args(argv), config)
    wanted = {(e["path"], e["line"], e["rule"]): e for e in entries}
    found = {}
    for r in analyze_all(paths, settings):
        for f in r.findings:
            key = (f.path, f.line, f.rule)
            if key in wanted and key not in found:
                found[key] = f
    keys = sorted(found)
    confirmed = confirm([found[k] for k in keys], settings, timeout=timeout)
    rows = []
    for key, e in wanted.items():
        c = confirmed[keys.index(key)].confirmation if key in found else None
        missing = "not run (no GPU)" if key in found else "not found by the static pass"
        rows.append({**{k: e[k] for k in ("id", "corpus", "rule", "path", "line")},
                     "status": c.status if c else missing,
                     "method": c.method if c else "", "detail": c.detail if c else ""})
    return rows


def files_for(path: str) -> list:
    """The files to check for a finding at `path`: itself, or for a header the .cu files beside it."""
    if path.endswith((".cu", ".cuh")):
        return [path]
    folder = os.path.dirname(path) or "."
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".cu"))


def summary(rows, seconds) -> str:
    by = collections.Counter(r["status"] for r in rows)
    lines = [f"{len(rows)} findings, {seconds:.0f} s: " + ", ".join(f"{s} {n}" for s, n in sorted(by.items())), "",
             "| id | rule | file:line | status | method | detail |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['id']} | {r['rule']} | {r['path']}:{r['line']} | {r['status']} | {r['method']} | "
              f"{r['detail'][:300].replace('|', '/')} |" for r in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
