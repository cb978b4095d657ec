#!/usr/bin/env python3
"""Confirm cudalint's fixtures on a real GPU with NVIDIA's tools.

Runs ON the GPU machine (nvcc, compute-sanitizer and ncu on PATH or under
/usr/local/cuda/bin).  For every fixture ``.cu`` file that has a ``main(``:

* build it: ``nvcc -arch=sm_90 -lineinfo -O2 -o BIN FILE``;
* run the tools its folder and its markers call for (each with a time limit;
  a hung program -- a deadlocked barrier -- is killed and recorded):

  =============  ==========================================================
  races/         racecheck, synccheck, plain runs (global races: outputs
                 that differ between runs are nondeterminism evidence)
  barriers/      synccheck, racecheck, plain run
  misaligned/    plain run (error names), memcheck
  host/          plain run (error names), memcheck --leak-check full
  bank/          ncu bank-conflict metrics (serially, one ncu at a time)
  =============  ==========================================================

  Markers add tools too (a CUDA101 marker in any folder gets memcheck, ...).
* decide for every ``// expect: CODE`` marker whether the evidence touches
  its line (``confirmed`` / ``not-reproduced``; ``unsupported`` where no tool
  can show it, ``error`` where the build or the tool failed) and for every
  ``// ok: CODE`` marker whether evidence wrongly touches it (``touched`` /
  ``clean``).

Outputs in --out (default $OUT, else ./gpu-confirm-out): ``results.json``,
``results.md`` and ``raw.tar.gz`` holding every raw tool output as
``raw/<fixture path>.<tool>.txt`` (plus build logs).  Few files, as the
device tool brings back at most 8 files from $OUT.

Usage on the device machine (from the repository root)::

    python3 scripts/gpu/confirm_fixtures.py --fixtures fixtures --out $OUT

Standard library only; the parsers come from cudalint/gpu/evidence.py,
loaded by file path so that cudalint's own dependencies need not be
installed on the GPU machine.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import importlib.util
import json
import os
import re
import shutil
import sys
import tarfile
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _load_standalone() -> dict:
    """cudalint/gpu/{source,evidence,proc}.py (standard library only) without importing cudalint,
    whose dependencies need not be installed where this runs."""
    folder = REPO / "cudalint" / "gpu"
    pkg = types.ModuleType("cudalint_gpu_standalone")
    pkg.__path__ = [str(folder)]
    sys.modules[pkg.__name__] = pkg
    mods = {}
    for name in ("source", "evidence", "proc"):
        spec = importlib.util.spec_from_file_location(f"{pkg.__name__}.{name}", folder / f"{name}.py")
        mods[name] = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mods[name]  # dataclasses look the module up
        spec.loader.exec_module(mods[name])
    return mods


_standalone = _load_standalone()
ev, proc = _standalone["evidence"], _standalone["proc"]

FOLDER_TOOLS = {
    "races": ("racecheck", "synccheck", "plain"),
    "barriers": ("synccheck", "racecheck", "plain"),
    "misaligned": ("plain", "memcheck"),
    "host": ("plain", "leakcheck"),
    "bank": ("ncu",),
    "warp": ("synccheck", "racecheck", "plain"),
}
CODE_TOOLS = {
    "CUDA101": ("plain", "memcheck"),
    "CUDA201": ("racecheck",),
    "CUDA202": ("racecheck",),
    "CUDA203": ("plain",),
    "CUDA204": ("synccheck", "plain"),
    "CUDA301": ("ncu",),
    "CUDA401": ("leakcheck",),
    "CUDA402": ("plain", "leakcheck"),
    "CUDA403": ("plain", "leakcheck"),
    "CUDA404": ("plain",),
    "CUDA205": ("synccheck",),
    "CUDA206": ("synccheck",),
}
TOOL_ORDER = ("plain", "racecheck", "synccheck", "memcheck", "leakcheck", "ncu")
FREE_CALLS = ("cudaFree", "cudaFreeHost", "cudaFreeAsync", "cudaFreeArray", "cudaFreeMipmappedArray",
              "cuMemFree", "cuMemFreeHost", "cuMemFreeAsync")


def find_tool(name: str) -> str | None:
    p = shutil.which(name)
    if p:
        return p
    for d in ("/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer", "/opt/nvidia/nsight-compute"):
        c = Path(d) / name
        if c.is_file():
            return str(c)
    for c in sorted(Path("/opt/nvidia").glob(f"nsight-compute/*/{name}")) if Path("/opt/nvidia").is_dir() else []:
        return str(c)
    return None


# ---------------------------------------------------------------------------
# running commands


@dataclass
class Run:
    tool: str
    cmd: list[str]
    rc: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    output: str = ""
    stdout: str = ""
    raw: str | None = None  # path inside raw.tar.gz
    error: str | None = None
    kernel: str | None = None  # the kernel selected with argv[1], if any

    def meta(self) -> dict:
        return {"tool": self.tool, "kernel": self.kernel, "cmd": " ".join(self.cmd), "rc": self.rc,
                "timed_out": self.timed_out,
                "seconds": round(self.seconds, 2), "raw": self.raw, "error": self.error}


def run_cmd(tool: str, cmd: list[str], timeout: float, cwd: Path | None = None) -> Run:
    """Run with a time limit; kill the whole process group on timeout (cudalint/gpu/proc.py)."""
    r = Run(tool, cmd)
    done = proc.communicate(cmd, timeout, cwd=cwd, merge=False, grace=15)
    if done.start_error:
        r.error = done.start_error
        return r
    r.seconds, r.rc, r.timed_out, r.stdout = done.seconds, done.rc, done.timed_out, done.out
    r.output = done.out + (("\n--- stderr ---\n" + done.err) if done.err else "")
    if r.timed_out:
        r.output += f"\n--- killed after {timeout:.0f} s (time limit) ---\n"
    return r


# ---------------------------------------------------------------------------
# per fixture


@dataclass
class Fixture:
    path: Path  # absolute
    rel: str  # relative to the fixtures dir
    folder: str
    source: str
    markers: list  # evidence.Marker, with file
    spans: dict  # basename -> list[FunctionSpan]
    tools: tuple = ()
    binary: Path | None = None
    build: Run | None = None
    runs: dict = field(default_factory=dict)  # tool -> list[Run]


def local_includes(path: Path, fixtures_dir: Path) -> list[Path]:
    out = []
    for m in re.finditer(r'^\s*#\s*include\s*"([^"]+)"', path.read_text(errors="replace"), re.M):
        c = (path.parent / m.group(1)).resolve()
        if c.is_file() and fixtures_dir.resolve() in c.parents:
            out.append(c)
    return out


def discover(fixtures_dir: Path, only: list[str] | None) -> list[Fixture]:
    out = []
    for p in sorted(fixtures_dir.rglob("*.cu")):
        rel = p.relative_to(fixtures_dir).as_posix()
        if only and not any(Path(rel).match(o) or o in rel for o in only):
            continue
        src = p.read_text(errors="replace")
        if not re.search(r"\bmain\s*\(", ev.blank_comments_strings(src)):
            continue
        files = [p] + local_includes(p, fixtures_dir)
        markers = []
        spans = {}
        for f in files:
            spans[f.name] = ev.function_spans(f)
            for m in ev.read_marker_details(f):
                markers.append((f, m))
        folder = rel.split("/")[0] if "/" in rel else ""
        tools = set(FOLDER_TOOLS.get(folder, ()))
        for _, m in markers:
            tools.update(CODE_TOOLS.get(m.code, ()))
        out.append(Fixture(p, rel, folder, src, markers, spans,
                           tuple(t for t in TOOL_ORDER if t in tools)))
    return out


def build(fx: Fixture, nvcc: str, bindir: Path, extra: list[str], timeout: float) -> Fixture:
    fx.binary = bindir / (fx.rel.replace("/", "__").rsplit(".", 1)[0])
    cmd = [nvcc, "-arch=sm_90", "-lineinfo", "-O2", *extra, "-o", str(fx.binary), str(fx.path)]
    fx.build = run_cmd("build", cmd, timeout)
    if fx.build.rc != 0 or fx.build.timed_out:
        fx.build.error = fx.build.error or "build failed"
    return fx


PER_KERNEL_TOOLS = ("racecheck", "synccheck", "memcheck")


def selectable_kernels(fx: Fixture) -> tuple[list[str], bool]:
    """Kernels the program can run one at a time, and whether a whole run is still needed.

    Convention used by the fixtures: ``main(int argc, char** argv)`` runs only
    the kernel named by ``argv[1]`` (``if (argc < 2 || !strcmp(argv[1], "k"))``).
    A misaligned access breaks the CUDA context and a divergent barrier can
    hang, so one run per kernel keeps one kernel's bug from hiding the next.
    """
    if "argv[1]" not in fx.source:
        return [], True
    marked = []
    for f, m in fx.markers:
        k = ev.enclosing_function(fx.spans.get(f.name, []), m.line, kernels_only=True)
        if k and k.name not in marked:
            marked.append(k.name)
    sel = [k for k in marked if f'"{k}"' in fx.source]
    whole = len(sel) < len(marked) or not marked
    return sel, whole


def tool_commands(tool: str, fx: Fixture, tools: dict, runs: int) -> list[tuple[str | None, list[str]]]:
    """(kernel selected or None, command) pairs for one tool."""
    b = str(fx.binary)
    cs = tools.get("compute-sanitizer")
    if tool == "plain":
        return [(None, [b]) for _ in range(runs)]
    if tool in ("racecheck", "synccheck", "memcheck", "leakcheck") and not cs:
        return []
    if tool == "leakcheck":
        return [(None, [cs, "--leak-check", "full", "--tool", "memcheck", b])]
    if tool in PER_KERNEL_TOOLS:
        base = [cs, "--tool", tool]
        sel, whole = selectable_kernels(fx)
        cmds = [(k, base + [b, k]) for k in sel]
        if whole:
            cmds.append((None, base + [b]))
        return cmds
    if tool == "ncu":
        if not tools.get("ncu"):
            return []
        return [(None, [tools["ncu"], "--clock-control", "none", "--csv", "--metrics",
                        ",".join(ev.NCU_BANK_METRICS), b])]
    return []


# ---------------------------------------------------------------------------
# judging markers


def _fmt_deg(d):
    return "-" if d is None else f"{d:.1f}"


def _shared_direction(fx_src_lines: list[str], line: int, kernel_span) -> set[str]:
    """Does the marked line load ('ld') or store ('st') shared memory? Heuristic."""
    if kernel_span is None or line - 1 >= len(fx_src_lines):
        return {"ld", "st"}
    body = "\n".join(fx_src_lines[kernel_span.start_line - 1: kernel_span.end_line])
    names = set(re.findall(r"__shared__[^;\[]*?\b([A-Za-z_]\w*)\s*\[", body))
    code = fx_src_lines[line - 1].split("//")[0]
    if not names:
        return {"ld", "st"}
    m = re.search(r"(?<![=!<>+\-*/%&|^])(\+|-|\*|/|%|&|\||\^|<<|>>)?=(?!=)", code)
    dirs = set()
    for n in names:
        for am in re.finditer(r"\b%s\s*\[" % re.escape(n), code):
            if m and am.start() < m.start():
                dirs.add("st")
                if m.group(1):
                    dirs.add("ld")
            else:
                dirs.add("ld")
    return dirs or {"ld", "st"}


def judge(fx: Fixture) -> list[dict]:
    """One result row per marker."""
    rows = []
    outs = {t: [r for r in rs] for t, rs in fx.runs.items()}
    texts = {t: "\n".join(r.output for r in rs) for t, rs in outs.items()}

    def ran(tool):
        rs = outs.get(tool) or []
        return [r for r in rs if r.error is None]

    races = ev.parse_racecheck(texts.get("racecheck", ""))
    syncs = ev.parse_synccheck(texts.get("synccheck", ""))
    mem = ev.parse_memcheck(texts.get("memcheck", ""))
    leak = ev.parse_leakcheck(texts.get("leakcheck", ""))
    api = ev.parse_api_errors(texts.get("leakcheck", "") + "\n" + texts.get("memcheck", ""))
    plain = ran("plain")
    plain_errs = ev.parse_error_names("\n".join(r.stdout for r in plain))
    bank = ev.parse_ncu_bank_conflicts(texts.get("ncu", "")) if "ncu" in texts else {}
    plain_outputs = [(r.rc, r.stdout) for r in plain if not r.timed_out]
    nondeterministic = len(set(plain_outputs)) > 1
    any_timeout = any(r.timed_out for rs in outs.values() for r in rs)
    src_lines = fx.source.splitlines()
    n_204_expect = sum(1 for _, m in fx.markers if m.code == "CUDA204" and m.kind == "expect")
    race_expect_lines: dict = {}
    sync_expect_lines: dict = {}
    for f, m in fx.markers:
        if m.kind != "expect":
            continue
        if m.code in ("CUDA201", "CUDA202", "CUDA203"):
            race_expect_lines.setdefault(f.name, set()).add(m.line)
        if m.code == "CUDA204":
            k = ev.enclosing_function(fx.spans.get(f.name, []), m.line, kernels_only=True)
            sync_expect_lines.setdefault((f.name, k.name if k else None), set()).add(m.line)

    for f, m in fx.markers:
        spans = fx.spans.get(f.name, [])
        kspan = ev.enclosing_function(spans, m.line, kernels_only=True)
        fspan = ev.enclosing_function(spans, m.line)
        kernel = kspan.name if kspan else None
        func = fspan.name if fspan else None
        row = {"path": fx.rel if f == fx.path else f.name, "file": f.name, "line": m.line, "code": m.code,
               "kind": m.kind, "text": m.text, "kernel": kernel, "function": func}
        touched, method, detail, status = None, None, "", None
        code, fname = m.code, f.name

        if fx.build is None or fx.build.error:
            status = "error"
            detail = "build failed"
        elif code in ("CUDA201", "CUDA202"):
            r = ran("racecheck")
            if not r:
                status, detail = "error", "racecheck did not run"
            else:
                hits = [h for h in races if h.touches(fname, m.line)]
                method = "racecheck"
                explained = []
                if m.kind == "ok":
                    # a hazard whose other access carries an expect marker is that
                    # expectation's race (this line is its related access), not a
                    # finding on this line
                    explained = [h for h in hits
                                 if any(h.touches(fname, l) for l in race_expect_lines.get(fname, ()) if l != m.line)]
                    hits = [h for h in hits if h not in explained]
                def fmt(hs):
                    return "; ".join(
                        f"{h.severity} {h.first_access}@{h.first.line} / {h.second_access}@{h.second.line}"
                        f" [{h.count} hazards]" + (f" ({h.category})" if h.category else "") for h in hs)
                if hits:
                    touched = True
                    detail = fmt(hits)
                else:
                    touched = False
                    near = [h for h in races if kernel and h.kernel == kernel]
                    detail = (f"{len(races)} hazard report(s), none on this line"
                              + (f"; in {kernel}: lines {sorted({l for h in near for l in h.lines})}" if near else ""))
                    if explained:
                        detail = f"only as the related access of an expected race: {fmt(explained)}"
                    if any(x.timed_out for x in r if x.kernel in (None, kernel)):
                        detail += "; racecheck timed out"
                        status = "error" if m.kind == "expect" else None
        elif code == "CUDA203":
            method = "plain-runs"
            if len(plain_outputs) < 2:
                status, detail = "error", "fewer than two completed plain runs"
            elif m.kind == "expect":
                touched = nondeterministic
                detail = ("outputs differ between runs (file-level evidence)" if nondeterministic
                          else f"{len(plain_outputs)} runs gave identical output")
            else:
                if nondeterministic:
                    status, detail = "unsupported", "outputs differ between runs; file-level evidence cannot clear one line"
                else:
                    touched, detail = False, f"{len(plain_outputs)} runs gave identical output"
        elif code == "CUDA204":
            r = ran("synccheck")
            method = "synccheck"
            hits = [x for x in syncs if x.touches(fname, m.line)]
            explained_by = []
            if hits and m.kind == "ok" and kernel:
                # threads waiting here are reported too when their partners wait at
                # an expected divergent barrier of the same kernel
                explained_by = [l for l in sync_expect_lines.get((fname, kernel), ())
                                if l != m.line and any(x.touches(fname, l) for x in syncs)]
            if hits and not explained_by:
                touched = True
                detail = f"{hits[0].message} ({len(hits)} report(s))"
            elif hits:
                touched = False
                detail = (f"{hits[0].message} ({len(hits)} report(s)), explained by the divergent barrier "
                          f"at line(s) {explained_by} of {kernel}")
            else:
                touched = False
                other = sorted({x.line for x in syncs if x.line is not None})
                detail = f"{len(syncs)} synccheck report(s)" + (f" at lines {other}" if other else "")
                if any_timeout:
                    detail += "; a run timed out (deadlock?)"
                    timed = [x for x in (ran("plain") + ran("synccheck")) if x.timed_out]
                    if m.kind == "expect" and (
                        any(x.kernel == kernel for x in timed)
                        or (n_204_expect == 1 and any(x.kernel is None for x in timed))):
                        touched, method = True, "deadlock"
                        detail += ("; the run of this kernel alone hung" if any(x.kernel == kernel for x in timed)
                                   else "; the file's only CUDA204 expectation")
                if not r:
                    status, detail = "error", "synccheck did not run"
        elif code == "CUDA101":
            r = ran("memcheck")
            method = "memcheck"
            hits = [a for a in mem if a.touches(fname, m.line)]
            mis = [a for a in hits if a.misaligned]
            if mis:
                touched = True
                a = mis[0]
                detail = (f"misaligned {a.address_space} {a.access} of {a.size} bytes in {a.kernel} "
                          f"({len(mis)} thread report(s))")
            elif hits:
                touched = m.kind == "ok"  # an invalid access on an ok line still counts against it
                detail = f"invalid (not misaligned) {hits[0].access} of {hits[0].size} bytes on this line"
            else:
                touched = False
                detail = f"{len(mem)} memcheck access report(s), none on this line"
            if plain_errs:
                detail += f"; plain run printed {', '.join(plain_errs)}"
            if not r:
                status, detail = "error", "memcheck did not run"
        elif code == "CUDA301":
            method = "ncu"
            st = bank.get(kernel) if kernel else None
            if "ncu" not in outs or not ran("ncu"):
                status, detail = "error", "ncu did not run"
            elif st is None:
                status, detail = "error", f"ncu printed no metrics for kernel {kernel}"
            else:
                dirs = _shared_direction(src_lines if f == fx.path else f.read_text(errors='replace').splitlines(),
                                         m.line, kspan)
                conf = (st.ld_conflicts if "ld" in dirs else 0) + (st.st_conflicts if "st" in dirs else 0)
                touched = conf > 0
                detail = (f"{kernel}: ld {st.ld_conflicts:.0f} conflicts / {st.ld_instructions:.0f} instr "
                          f"(degree {_fmt_deg(st.ld_degree)}), st {st.st_conflicts:.0f} / {st.st_instructions:.0f} "
                          f"(degree {_fmt_deg(st.st_degree)}); line is {'+'.join(sorted(dirs))}")
                want = re.search(r"(\d+)-way", m.text or "")
                if want and touched:
                    degs = [d for d, k in ((st.ld_degree, "ld"), (st.st_degree, "st")) if k in dirs and d]
                    got = max(degs) if degs else None
                    if got is not None:
                        detail += f"; expected {want.group(1)}-way, measured {got:.1f}"
        elif code == "CUDA401":
            r = ran("leakcheck")
            method = "leak-check"
            # host functions defined in the fixture that leak backtraces name
            defined = {sp.name for sps in fx.spans.values() for sp in sps}
            named = {n for l in leak.leaks for n in l.functions() if n in defined}
            if not r:
                status, detail = "error", "leak-check did not run"
            elif func and func in named:
                touched = True
                own = [l for l in leak.leaks if func in l.functions()]
                detail = f"{sum(l.bytes for l in own)} bytes leaked in {len(own)} allocation(s) made in {func}"
            elif not leak.leaked:
                touched, detail = False, "no leak reported"
            elif m.kind == "expect":
                touched = True
                detail = (f"{leak.total_bytes} bytes leaked in {leak.allocations} allocation(s) "
                          f"(file-level: backtraces name {', '.join(sorted(named)) or 'no fixture function'})")
            elif named - {"main"}:
                touched = False
                detail = f"leaks attributed to {', '.join(sorted(named))}"
            else:
                status = "unsupported"
                detail = (f"{leak.total_bytes} bytes leaked, backtraces name only "
                          f"{', '.join(sorted(named)) or 'no fixture function'} (helpers may be inlined)")
        elif code in ("CUDA402", "CUDA403"):
            method = "memcheck-api-errors"
            if not ran("leakcheck") and not ran("memcheck"):
                status = "error"
            frees = [a for a in api if a.api_call and a.api_call.startswith(FREE_CALLS)]
            own = [a for a in frees if func and func in a.functions()]
            if own:
                touched = True
                detail = f"{own[0].error} on {own[0].api_call} in {func}"
            elif m.kind == "expect":
                anon = [a for a in frees if not a.functions()]
                touched = bool(anon)
                detail = (f"{anon[0].error} on {anon[0].api_call} (no host function names)" if anon
                          else f"{len(frees)} failing free call(s), none from {func}")
            else:
                touched = False
                detail = f"{len(frees)} failing free call(s), none from {func}"
            if plain_errs:
                detail += f"; plain run printed {', '.join(plain_errs)}"
            if status == "error":
                detail = "memcheck did not run; " + detail
        else:
            status, method, detail = "unsupported", None, "no tool confirms this rule"

        if status is None:
            if m.kind == "expect":
                status = "confirmed" if touched else "not-reproduced"
            else:
                status = "touched" if touched else "clean"
        row.update(status=status, method=method, detail=detail)
        rows.append(row)
    return rows


def file_summary(fx: Fixture) -> dict:
    texts = {t: "\n".join(r.output for r in rs) for t, rs in fx.runs.items()}
    s: dict = {}
    if "racecheck" in texts:
        hz = ev.parse_racecheck(texts["racecheck"])
        s["racecheck"] = [{"severity": h.severity, "kernel": h.kernel, "lines": list(h.lines),
                           "accesses": [h.first_access, h.second_access], "count": h.count,
                           "category": h.category} for h in hz]
    if "synccheck" in texts:
        s["synccheck"] = [{"message": x.message, "kernel": x.kernel, "line": x.line} for x in
                          ev.parse_synccheck(texts["synccheck"])][:50]
    if "memcheck" in texts:
        seen = {}
        for a in ev.parse_memcheck(texts["memcheck"]):
            k = (a.kernel, a.line, a.access, a.size, a.address_space, a.misaligned)
            seen[k] = seen.get(k, 0) + 1
        s["memcheck"] = [{"kernel": k[0], "line": k[1], "access": k[2], "size": k[3], "space": k[4],
                          "misaligned": k[5], "threads": n} for k, n in seen.items()]
    if "leakcheck" in texts:
        lr = ev.parse_leakcheck(texts["leakcheck"])
        s["leakcheck"] = {"total_bytes": lr.total_bytes, "allocations": lr.allocations,
                          "leaks": [{"bytes": l.bytes, "functions": list(l.functions())[:6]} for l in lr.leaks]}
        s["api_errors"] = [{"error": a.error, "api": a.api_call, "functions": list(a.functions())[:6]}
                           for a in ev.parse_api_errors(texts["leakcheck"])]
    if "plain" in fx.runs:
        pr = fx.runs["plain"]
        s["plain"] = {"rcs": [r.rc for r in pr], "timed_out": [r.timed_out for r in pr],
                      "identical": len({(r.rc, r.stdout) for r in pr}) <= 1,
                      "error_names": ev.parse_error_names("\n".join(r.stdout for r in pr))}
    if "ncu" in texts:
        s["ncu"] = {k: {"ld_conflicts": v.ld_conflicts, "st_conflicts": v.st_conflicts,
                        "ld_instructions": v.ld_instructions, "st_instructions": v.st_instructions,
                        "ld_degree": v.ld_degree, "st_degree": v.st_degree, "launches": v.launches}
                    for k, v in ev.parse_ncu_bank_conflicts(texts["ncu"]).items()}
    return s


# ---------------------------------------------------------------------------
# output


def write_markdown(path: Path, rows: list[dict], meta: dict) -> None:
    lines = ["# GPU confirmation of cudalint fixtures", "",
             f"Device: {meta.get('device') or '?'}; tools: {meta.get('versions_short') or '?'}; "
             f"{meta.get('files', 0)} fixture file(s) with main(), {len(rows)} marker(s); "
             f"{meta.get('seconds', 0):.0f} s.", ""]
    counts: dict = {}
    for r in rows:
        counts[(r["kind"], r["status"])] = counts.get((r["kind"], r["status"]), 0) + 1
    lines.append("Summary: " + ", ".join(f"{k} {s}: {n}" for (k, s), n in sorted(counts.items())))
    lines += ["", "| file:line | code | marker | kernel/function | status | method | evidence |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        d = (r.get("detail") or "").replace("|", "\\|")
        code = r["code"] + (f' "{r["text"]}"' if r.get("text") else "")
        lines.append(f"| {r['path']}:{r['line']} | {code} | {r['kind']} | {r.get('kernel') or r.get('function') or ''}"
                     f" | {r['status']} | {r.get('method') or ''} | {d} |")
    path.write_text("\n".join(lines) + "\n")


def tool_versions(tools: dict) -> dict:
    v = {}
    for name, args in (("nvcc", ["--version"]), ("compute-sanitizer", ["--version"]), ("ncu", ["--version"])):
        if tools.get(name):
            r = run_cmd(name, [tools[name], *args], 60)
            v[name] = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.output.strip()[:200]
        else:
            v[name] = None
    smi = shutil.which("nvidia-smi")
    if smi:
        v["nvidia-smi -L"] = run_cmd("smi", [smi, "-L"], 30).stdout.strip()
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixtures", default=str(REPO / "fixtures"), help="fixtures folder (default: fixtures/)")
    ap.add_argument("--out", default=os.environ.get("OUT") or "gpu-confirm-out", help="output folder (default $OUT)")
    ap.add_argument("--work", default="/tmp/cudalint-gpu-confirm", help="build/scratch folder")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 4), help="parallel builds/runs")
    ap.add_argument("--timeout", type=float, default=60.0, help="time limit of each sanitizer run, seconds")
    ap.add_argument("--run-timeout", type=float, default=30.0, help="time limit of each plain run, seconds")
    ap.add_argument("--ncu-timeout", type=float, default=180.0, help="time limit of each ncu run, seconds")
    ap.add_argument("--runs", type=int, default=3, help="plain runs per program (global-race nondeterminism)")
    ap.add_argument("--only", action="append", help="only fixtures whose relative path matches (glob or substring)")
    ap.add_argument("--nvcc-flag", action="append", default=[], help="extra nvcc flag (repeatable)")
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    fixtures_dir = Path(args.fixtures).resolve()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work)
    if work.exists():
        shutil.rmtree(work)
    (work / "bin").mkdir(parents=True)
    raw_dir = work / "raw"

    tools = {n: find_tool(n) for n in ("nvcc", "compute-sanitizer", "ncu")}
    print("tools:", tools, flush=True)
    if not tools["nvcc"]:
        print("nvcc not found", file=sys.stderr)
        return 2
    versions = tool_versions(tools)
    fxs = discover(fixtures_dir, args.only)
    print(f"{len(fxs)} fixture file(s) with main() under {fixtures_dir}", flush=True)

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(lambda f: build(f, tools["nvcc"], work / "bin", args.nvcc_flag, 300), fxs))
    for f in fxs:
        print(f"build {f.rel}: {'ok' if not f.build.error else 'FAILED'}", flush=True)

    # every (fixture, tool, index) job; ncu jobs run serially afterwards
    jobs, ncu_jobs = [], []
    for f in fxs:
        if f.build.error:
            continue
        for tool in f.tools:
            for i, (kernel, cmd) in enumerate(tool_commands(tool, f, tools, args.runs)):
                (ncu_jobs if tool == "ncu" else jobs).append((f, tool, i, kernel, cmd))
            if not tool_commands(tool, f, tools, args.runs):
                f.runs.setdefault(tool, []).append(Run(tool, [], error=f"{tool} not available"))

    def do(job):
        f, tool, i, kernel, cmd = job
        limit = args.run_timeout if tool == "plain" else args.ncu_timeout if tool == "ncu" else args.timeout
        r = run_cmd(tool, cmd, limit)
        r.kernel = kernel
        return f, tool, i, r

    results = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for res in pool.map(do, jobs):
            results.append(res)
            f, tool, i, r = res
            print(f"{f.rel} {tool}#{i}{' ' + r.kernel if r.kernel else ''}: rc={r.rc} {'TIMEOUT ' if r.timed_out else ''}{r.seconds:.1f}s", flush=True)
    for job in ncu_jobs:  # one ncu at a time
        res = do(job)
        results.append(res)
        f, tool, i, r = res
        print(f"{f.rel} {tool}#{i}: rc={r.rc} {'TIMEOUT ' if r.timed_out else ''}{r.seconds:.1f}s", flush=True)
    results.sort(key=lambda x: (x[0].rel, TOOL_ORDER.index(x[1]), x[2]))
    for f, tool, i, r in results:
        suffix = f".{r.kernel}" if r.kernel else ("" if i == 0 else f".{i + 1}")
        name = f"{f.rel}.{tool}{suffix}.txt"
        r.raw = f"raw/{name}"
        p = raw_dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("$ " + " ".join(r.cmd) + "\n" + r.output)
        f.runs.setdefault(tool, []).append(r)
    for f in fxs:
        p = raw_dir / f"{f.rel}.build.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("$ " + " ".join(f.build.cmd) + "\n" + f.build.output)
        f.build.raw = f"raw/{f.rel}.build.txt"

    rows = []
    files = []
    for f in fxs:
        rs = judge(f)
        rows.extend(rs)
        files.append({"path": f.rel, "tools": list(f.tools), "build": f.build.meta(),
                      "runs": [r.meta() for t in TOOL_ORDER for r in f.runs.get(t, [])],
                      "evidence": file_summary(f) if not f.build.error else {}})
    seconds = time.monotonic() - t0
    summary: dict = {}
    for r in rows:
        summary.setdefault(r["kind"], {}).setdefault(r["status"], 0)
        summary[r["kind"]][r["status"]] += 1
    meta = {"device": versions.get("nvidia-smi -L"), "versions": versions,
            "versions_short": ", ".join(f"{k} {v}" for k, v in versions.items() if k != "nvidia-smi -L" and v),
            "files": len(fxs), "seconds": seconds}
    doc = {"fixtures_dir": str(fixtures_dir), "tools": tools, "versions": versions,
           "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seconds": round(seconds, 1),
           "summary": summary, "markers": rows, "files": files}
    (out / "results.json").write_text(json.dumps(doc, indent=2))
    write_markdown(out / "results.md", rows, meta)
    with tarfile.open(out / "raw.tar.gz", "w:gz") as tar:
        tar.add(raw_dir, arcname="raw")
    print(f"{len(rows)} marker(s): {json.dumps(summary)}; wrote {out}/results.json, results.md, raw.tar.gz "
          f"in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
