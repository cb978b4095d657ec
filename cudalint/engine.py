"""One file through the pipeline (parse, model, rules), and many files through a process pool."""

from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from cudalint.findings import Finding
from cudalint.launch_index import facts_of, guessed_kernels, second_pass
from cudalint.model import Diagnostic, FileModel
from cudalint.registry import selected
from cudalint.settings import Settings


@dataclass
class FileContext:
    """What a rule sees: the file's model, the settings, and a cache analyses share."""
    model: FileModel
    settings: Settings
    deadline: float
    cache: dict = field(default_factory=dict)
    skipped: list = field(default_factory=list)  # (what, why) for --verbose

    def shared(self, key, compute):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def per_access(self, analysis: str, kernel, acc, geom, compute):
        """compute(), once per file for each access as the analyses see it (its offset, guard,
        loops and the geometry): template instantiations repeat most accesses unchanged."""
        loops = tuple(lp.shape() if lp else None for lp in (kernel.loops.get(lid) for lid in acc.loops))
        key = (analysis, acc.array, acc.offset, acc.guard, acc.width, acc.align, acc.kind, acc.loc, loops, geom)
        return self.shared(key, compute)

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline


@dataclass
class FileResult:
    path: str
    findings: list[Finding]
    diagnostics: list[Diagnostic]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kernels: int = 0
    includes: tuple = ()  # headers libclang included (for the cache's dependency check)
    cached: bool = False  # served from cudalint.cache
    launch_facts: tuple = ()  # constant launches the file makes (cudalint.launch_index)
    guessed_kernels: tuple = ()  # USRs of its kernels no launch in it gives a blockDim


def analyze_file(path: str, settings: Settings) -> FileResult:
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    start = time.monotonic()
    includes = ()
    try:
        parsed = parse(path, settings)
        includes = parsed.headers
        model = build_model(parsed)
    except Exception as exc:  # never let one file stop the run
        return FileResult(path, [], [Diagnostic(path, 0, 0, "error", f"internal error while parsing: {exc!r}")],
                          [traceback.format_exc()] if settings.verbose else [])
    ctx = FileContext(model, settings, start + settings.file_budget_s)
    findings, diags = [], list(model.diagnostics)
    for rule in selected(settings.select, settings.ignore):
        try:
            for f in rule.check(ctx):
                sev = settings.severities.get(f.rule)
                findings.append(f.with_(severity=sev) if sev else f)
        except Exception as exc:
            diags.append(Diagnostic(path, 0, 0, "error", f"internal error in rule {rule.code}: {exc!r}"))
            if settings.verbose:
                ctx.skipped.append((rule.code, traceback.format_exc()))
    findings = _first_per_place(sorted(set(findings), key=Finding.sort_key))
    notes = list(model.notes) + [f"{what}: {why}" for what, why in ctx.skipped]
    return FileResult(path, findings, diags, notes, time.monotonic() - start, len(model.kernels), includes,
                      launch_facts=facts_of(model), guessed_kernels=guessed_kernels(model, settings))


def _first_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and position: template instantiations of one kernel (or several
    launch geometries) would otherwise repeat the same bug."""
    seen, out = set(), []
    for f in findings:
        key = (f.rule, f.path, f.line, f.column)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def analyze_all(paths: list[str], settings: Settings, jobs: int = 0, cache=None,
                progress=None) -> list[FileResult]:
    """Results in the order of `paths`, whatever the job count. `cache`: a cudalint.cache.Cache
    (hits skip the work); `progress(done, total)` is called as files finish. Files whose kernels
    other files launch are checked again with those launches (cudalint.launch_index)."""
    results = _analyze_each(paths, [settings] * len(paths), jobs, cache, progress)
    again = second_pass(results, settings)
    if again:
        order = sorted(again)
        redone = _analyze_each([paths[i] for i in order], [again[i] for i in order], jobs, cache, None)
        for i, r in zip(order, redone):
            results[i] = r
    return results


def _analyze_each(paths: list[str], settings: list, jobs: int, cache, progress) -> list[FileResult]:
    """analyze_file for each path with its own settings, through the cache and a process pool."""
    results: list[FileResult | None] = [None] * len(paths)
    keys = [None] * len(paths)
    todo = []
    for i, p in enumerate(paths):
        if cache is not None:
            keys[i] = cache.key(p, settings[i])
            results[i] = cache.get(keys[i])
        if results[i] is None:
            todo.append(i)
    done = len(paths) - len(todo)
    if progress and done:
        progress(done, len(paths))
    jobs = jobs or min(os.cpu_count() or 1, 8)
    if jobs <= 1 or len(todo) <= 1:
        for i in todo:
            results[i] = analyze_file(paths[i], settings[i])
            done += 1
            if progress:
                progress(done, len(paths))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(analyze_file, paths[i], settings[i]): i for i in todo}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                done += 1
                if progress:
                    progress(done, len(paths))
    if cache is not None:
        for i in todo:
            cache.put(keys[i], results[i])
    return results
