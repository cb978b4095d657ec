#!/usr/bin/env python3
"""Confirm cudalint's fixtures with the ``--confirm`` runner (cudalint/gpu/runner.py) on a GPU.

* must-fire: the static pass over fixtures/; every finding on an ``// expect: CODE`` line is
  confirmed with ``cudalint.gpu.runner.confirm`` (exactly what ``cudalint --confirm`` does);
* must-stay-clean: for every ``// ok: CODE`` line inside a kernel, a probe finding of that rule's
  category is confirmed in the same call; a probe must never come back ``confirmed``;
* markers of rules that have not landed are counted, not run.

Writes results.json, results.md and raw.tar.gz (every tool output) to --out (default $OUT).

    python3 scripts/gpu/run_runner_fixtures.py --out $OUT [--only misaligned]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default="fixtures")
    ap.add_argument("--out", default=os.environ.get("OUT") or "runner-out")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--no-probes", action="store_true")
    args = ap.parse_args(argv)

    from cudalint.engine import analyze_all
    from cudalint.findings import Finding
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    from cudalint.gpu import evidence as ev
    from cudalint.gpu import runner
    from cudalint.model import Access
    from cudalint.registry import all_rules
    from cudalint.settings import Settings

    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    rules = all_rules()
    files = sorted(str(p) for p in Path(args.fixtures).rglob("*.cu"))
    if args.only:
        files = [f for f in files if any(o in f for o in args.only)]
    results = analyze_all(files, settings, args.jobs)
    print(f"static pass: {len(files)} files, {sum(len(r.findings) for r in results)} findings, "
          f"{time.monotonic() - t0:.0f} s", flush=True)
    findings, roles = [], []
    skipped = {}
    expects: dict = {}  # path -> its (line, code) expect markers

    def expected(f) -> bool:  # a finding in an included header is judged by the header's markers
        if f.path not in expects:
            expects[f.path] = {(m.line, m.code) for m in ev.read_marker_details(f.path) if m.kind == "expect"}
        return (f.line, f.rule) in expects[f.path]

    for r in results:
        marks = ev.read_marker_details(r.path)
        for f in r.findings:
            findings.append(f)
            roles.append(("expect" if expected(f) else "unexpected", f.line, f.rule))
        found = {(f.line, f.rule) for f in r.findings}
        for m in marks:
            if m.code not in rules:
                skipped[m.code] = skipped.get(m.code, 0) + 1
                continue
            if m.kind == "expect" and (m.line, m.code) not in found:
                roles.append(("missed", m.line, m.code))
                findings.append(None)
        if args.no_probes:
            continue
        oks = [m for m in marks if m.kind == "ok" and m.code in rules]
        if not oks:
            continue
        model = build_model(parse(r.path, settings))
        src = Path(r.path).read_text()
        spans = ev.function_spans(src)
        for m in oks:
            sp = ev.enclosing_function(spans, m.line, kernels_only=True)
            if sp is None:
                continue
            ks = [k for k in model.kernels if (ev.kernel_basename(k.name) == sp.name) and not k.is_template_pattern]
            if not ks:
                continue
            rule = rules[m.code]
            # the line's access, as a real finding types it (judges read the direction): a load or a
            # store; neither where the line does both or only atomics
            kinds = {e.kind for e in ks[0].events if isinstance(e, Access) and e.loc.line == m.line} & {"read", "write"}
            findings.append(Finding(rule.code, rule.name, rule.category, rule.severity, r.path, m.line, 1, m.line, 1,
                                    f"probe of a must-stay-clean line ({rule.category})", kernel=ks[0].name,
                                    properties=(("access", kinds.pop()),) if len(kinds) == 1 else ()))
            roles.append(("ok", m.line, m.code))
    real = [f for f in findings if f is not None]
    keep = tempfile.mkdtemp(prefix="runner-raw-")
    t1 = time.monotonic()
    confirmed = runner.confirm(real, settings, timeout=args.timeout, jobs=args.jobs, keep_dir=keep)
    print(f"confirm: {len(real)} findings/probes in {time.monotonic() - t1:.0f} s", flush=True)
    it = iter(confirmed)
    rows = []
    for f, (role, line, code) in zip(findings, roles):
        if f is None:
            rows.append({"path": None, "line": line, "code": code, "role": role, "status": "static-miss",
                         "method": "", "detail": "the static pass did not report this expectation"})
            continue
        c = next(it)
        conf = c.confirmation
        rows.append({"path": f.path, "line": f.line, "code": f.rule, "kernel": f.kernel, "role": role,
                     "status": conf.status if conf else None, "method": conf.method if conf else None,
                     "detail": conf.detail if conf else None})
    # fix the missed rows' paths (static misses carry no finding)
    summary = {}
    for r in rows:
        summary.setdefault(r["role"], {}).setdefault(r["status"], 0)
        summary[r["role"]][r["status"]] += 1
    bad_ok = [r for r in rows if r["role"] == "ok" and r["status"] == "confirmed"]
    doc = {"seconds": round(time.monotonic() - t0, 1), "summary": summary, "skipped_markers": skipped,
           "clean_confirmed": len(bad_ok), "rows": rows, "tools": runner.tools()}
    (out / "results.json").write_text(json.dumps(doc, indent=2))
    md = ["| file:line | code | role | kernel | status | method | evidence |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["role"] == "ok" and r["status"] != "confirmed":
            continue  # the table lists must-fire rows and any clean line that was (wrongly) confirmed
        d = (r.get("detail") or "").replace("|", "\\|")
        md.append(f"| {r['path']}:{r['line']} | {r['code']} | {r['role']} | {r.get('kernel') or ''} | "
                  f"{r['status']} | {r['method'] or ''} | {d} |")
    md.append("")
    md.append(f"Summary: {json.dumps(summary)}; markers of rules not landed: {json.dumps(skipped)}")
    (out / "results.md").write_text("\n".join(md) + "\n")
    with tarfile.open(out / "raw.tar.gz", "w:gz") as tar:
        tar.add(keep, arcname="raw")
    print(json.dumps(summary), "clean lines confirmed:", len(bad_ok), flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
