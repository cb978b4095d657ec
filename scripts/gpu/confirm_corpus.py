#!/usr/bin/env python3
"""`cudalint --confirm` over a labelled corpus (e.g. HiRace's Indigo kernels), on the GPU machine.

    python3 scripts/gpu/confirm_corpus.py --root CORPUS_ROOT --labels labels.json \
        -I indigo/indigo_include --out $OUT [--jobs 14] [--chunk 40] [--deadline 480]

labels.json: [{"path": "relative/file.cu", "label": "race" | "clean" | ...}, ...]. Files run in
chunks (one cudalint call each, so a chunk that runs out of time loses only itself); writes
results.json (every finding with its file's label and its confirmation) and summary.md (per
label and rule: how many findings came back confirmed / not-reproduced / unsupported / error,
and every error's reason). Stdlib only.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

RACE_RULES = {"CUDA201", "CUDA202", "CUDA203", "CUDA204"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--labels", required=True)
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--out", default=os.environ.get("OUT") or "confirm-out")
    ap.add_argument("--jobs", type=int, default=14)
    ap.add_argument("--chunk", type=int, default=40)
    ap.add_argument("--deadline", type=float, default=480.0, help="seconds for the whole run")
    args = ap.parse_args(argv)

    labels = {e["path"]: e["label"] for e in json.loads(Path(args.labels).read_text())}
    paths = sorted(labels)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start, findings, skipped = time.monotonic(), [], []
    for i in range(0, len(paths), args.chunk):
        chunk = paths[i:i + args.chunk]
        left = args.deadline - (time.monotonic() - start)
        if left < 30:
            skipped += chunk
            continue
        cmd = [sys.executable, "-m", "cudalint", "--confirm", "--output-format", "json", "--exit-zero",
               "--no-cache", "-j", str(args.jobs), *[x for d in args.includes for x in ("-I", d)], *chunk]
        try:
            run = subprocess.run(cmd, cwd=args.root, capture_output=True, text=True, timeout=left)
            report = json.loads(run.stdout)
        except (subprocess.TimeoutExpired, ValueError) as e:
            skipped += chunk
            print(f"chunk {i // args.chunk}: {type(e).__name__}", file=sys.stderr)
            continue
        for f in report if isinstance(report, list) else report.get("findings", []):
            f["label"] = labels.get(f.get("path"), "?")
            findings.append(f)
        print(f"chunk {i // args.chunk}: {len(chunk)} files, {time.monotonic() - start:.0f} s", file=sys.stderr)
    (out / "results.json").write_text(json.dumps({"findings": findings, "skipped": skipped}, indent=1))
    (out / "summary.md").write_text(summary(findings, skipped, len(paths), time.monotonic() - start))
    return 0


def summary(findings, skipped, n_files, seconds) -> str:
    table = collections.Counter()
    errors = collections.Counter()
    for f in findings:
        status = (f.get("confirmation") or {}).get("status", "none")
        table[(f["label"], f["rule"], status)] += 1
        if status in ("error", "unsupported"):
            errors[(f["rule"], (f.get("confirmation") or {}).get("detail", "")[:160])] += 1
    lines = [f"{n_files} files, {len(skipped)} skipped (time), {len(findings)} findings, {seconds:.0f} s", "",
             "| file label | rule | status | findings |", "|---|---|---|---|"]
    lines += [f"| {label} | {rule} | {status} | {n} |" for (label, rule, status), n in sorted(table.items())]
    races = [f for f in findings if f["rule"] in RACE_RULES]
    for label in sorted({f["label"] for f in races}):
        mine = [f for f in races if f["label"] == label]
        by = collections.Counter((f.get("confirmation") or {}).get("status", "none") for f in mine)
        lines += ["", f"race/divergence findings on {label} files: {len(mine)}; " +
                  ", ".join(f"{s} {n} ({100 * n / len(mine):.1f} %)" for s, n in sorted(by.items()))]
    lines += ["", "| rule | error / unsupported reason | findings |", "|---|---|---|"]
    lines += [f"| {rule} | {why} | {n} |" for (rule, why), n in errors.most_common(40)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
