"""One file through the pipeline (parse, model, rules), many files through a process pool, and
what a run reports of them (suppressions, per-file ignores, severities, the baseline)."""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from cudalint.columns import to_code_points
from cudalint.diagnostics import Diagnostic
from cudalint.findings import Finding
from cudalint.launch_index import context_files, facts_of, guessed_kernels, second_pass
from cudalint.registry import selected
from cudalint.settings import Settings

if TYPE_CHECKING:  # the model and the analyses load where files are analysed, not on a cache hit
    from cudalint.model import FileModel


WORK_CAP = "work cap reached"  # a FileContext.skipped reason: a larger --file-budget would not help


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

    def capped(self, what: str, how: str) -> None:
        """`what` was checked only in part: a cap on work (not on time) stopped it, `how`."""
        self.skipped.append((what, f"{WORK_CAP}: {how}"))


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
    phases: tuple = ()  # (phase, seconds): parse, model, then each rule (analyses shared by rules
    # are paid by the first rule that asks), for --profile
    deferred: bool = False  # parsed and modelled, rules not run yet (analyze_file's `defer`)
    model_blob: bytes | None = field(default=None, repr=False)  # a deferred result's pickled model
    weight: int = 0  # a deferred result's estimate of its rules' work (analyze_all starts the heaviest first)


def analyze_file(path: str, settings: Settings, defer: bool = False) -> FileResult:
    """One file, in this process. Never raises: a failure becomes an error diagnostic (the file
    is then reported as not fully checked, see cudalint.outcomes). `defer`: where a kernel of the
    file has no launch in it (another file of the run may give its blockDim), stop after the
    model and return it, pickled, in a `deferred` result: `check_deferred` runs the rules on it
    once the launches of the whole run are known (analyze_all), so that it is parsed once."""
    from cudalint.analysis.hostflow import functions_read
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    start = time.monotonic()
    includes = ()
    phases = []
    try:
        parsed = parse(path, settings)
        includes = parsed.headers
        phases.append(("parse", time.monotonic() - start))
        model = build_model(parsed, settings.launches_only, host_scope=functions_read)
        phases.append(("model", time.monotonic() - start - phases[0][1]))
    except Exception as exc:  # never let one file stop the run
        return FileResult(path, [], [_failure(path, "while parsing", exc)],
                          [traceback.format_exc()] if settings.verbose else [])
    facts, guessed = facts_of(model), guessed_kernels(model, settings)
    if defer and guessed and not settings.launches_only:
        blob = _pickled(model)
        if blob is not None:
            return FileResult(path, [], [], [], time.monotonic() - start, len(model.kernels), includes,
                              launch_facts=facts, guessed_kernels=guessed, phases=tuple(phases), deferred=True,
                              model_blob=blob, weight=_weight(model))
    return _check_model(path, model, settings, start, includes, phases, facts, guessed)


def _weight(model) -> int:
    """How much work a model's rules are, roughly, to start the heaviest first: for each pair of
    accesses to one array (the race check) the size of their terms (what the solver is given;
    pns's 26 accesses of large expressions outweigh gmm's 41 small ones), and host functions
    (the host walk)."""
    from cudalint.model import Access
    work = 0
    for kernel in model.kernels:
        count, size = {}, {}
        for e in kernel.events:
            if isinstance(e, Access):
                count[e.array] = count.get(e.array, 0) + 1
                size[e.array] = size.get(e.array, 0) + sum(getattr(x, "size", 1) for x in (e.offset, *e.guard))
        work += sum(count[a] * size[a] for a in count)
    return work + len(model.host_functions)


def check_deferred(deferred: FileResult, settings: Settings) -> FileResult:
    """The rules of a deferred result's file (see analyze_file), on its model, as analyze_file
    with `settings` gives them; the file's time budget is what its parse and model left of it."""
    import pickle
    spent = sum(t for _, t in deferred.phases)
    start = time.monotonic() - spent
    return _check_model(deferred.path, pickle.loads(deferred.model_blob), settings, start, deferred.includes,
                        list(deferred.phases), deferred.launch_facts, deferred.guessed_kernels)


def _pickled(model) -> bytes | None:
    import pickle
    try:
        return pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a model that does not pickle has its rules run at once, as without deferring
        return None


def _check_model(path: str, model, settings: Settings, start: float, includes, phases: list, facts,
                 guessed) -> FileResult:
    from cudalint.symbolic import fresh_context
    fresh_context()
    ctx = FileContext(model, settings, start + settings.file_budget_s)
    findings, diags = [], list(model.diagnostics)
    for rule in () if settings.launches_only else selected(settings.select, settings.ignore):
        t = time.monotonic()
        try:
            findings.extend(rule.check(ctx))
        except Exception as exc:  # the other rules still run; the file is not reported clean
            diags.append(_failure(path, f"in rule {rule.code}", exc))
            if settings.verbose:
                ctx.skipped.append((rule.code, traceback.format_exc()))
        phases.append((rule.code, time.monotonic() - t))
    if any("file time budget" in why for _, why in ctx.skipped):
        diags.append(budget_diagnostic(path, settings.file_budget_s, "some checks were skipped"))
    capped = [(what, why) for what, why in ctx.skipped if why.startswith(WORK_CAP)]
    if capped:
        what, why = capped[0]
        diags.append(Diagnostic(path, 0, 0, "error", f"{what}: {why.removeprefix(WORK_CAP + ': ')}; the rest "
                                "were not checked", "limit"))
    findings = _first_per_place(sorted(set(findings), key=Finding.sort_key))
    notes = list(model.notes) + [f"{what}: {why}" for what, why in ctx.skipped]
    return FileResult(path, findings, diags, notes, time.monotonic() - start, len(model.kernels), includes,
                      launch_facts=facts, guessed_kernels=guessed, phases=tuple(phases))


def file_model(path: str, settings: Settings) -> FileModel:
    """One file's model as the rules see it, for those that plan from it (the --confirm runner)."""
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    return build_model(parse(path, settings))


def _failure(path: str, where: str, exc: Exception) -> Diagnostic:
    if isinstance(exc, RecursionError):
        return Diagnostic(path, 0, 0, "error", f"code nested too deeply to analyse {where}; skipped", "depth")
    return Diagnostic(path, 0, 0, "error", f"internal error {where}: {exc!r}", "crash")


def budget_diagnostic(path: str, budget_s: float, what: str) -> Diagnostic:
    return Diagnostic(path, 0, 0, "error", f"file time budget of {budget_s:g} s spent ({what}; "
                      "raise it with --file-budget)", "budget")


def lost_result(path: str, why: str, seconds: float, budget_s: float) -> FileResult:
    """The result of a file whose worker was killed at its hard limit or died."""
    if why == "budget":
        diag = budget_diagnostic(path, budget_s, "analysis stopped")
    else:
        diag = Diagnostic(path, 0, 0, "error", f"internal error: {why.removeprefix('crash: ')}", "crash")
    return FileResult(path, [], [diag], [], seconds)


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
    (hits skip the work; each result is stored as it arrives, so an interrupted run keeps what it
    finished); `progress(done, total, path)` is called as files finish (path: the last to finish).
    Files run in worker processes under a hard time limit (cudalint.workers), also at jobs=1.
    A file with a kernel that it does not launch itself waits for the launches of the whole run
    after its model (cudalint.launch_index; also launches in files beside it that the run does
    not name); then the rules of all such files run, heaviest first."""
    finished: set = set()

    def final(result: FileResult) -> None:
        if progress and not result.deferred and result.path not in finished:
            finished.add(result.path)
            progress(len(finished), len(paths), result.path)

    results = _analyze_each(paths, settings, jobs, cache, final, defer=True)
    beside = context_files(results, settings, paths)
    context = _analyze_each(beside, replace(settings, launches_only=True), jobs, cache) if beside else []
    plan = second_pass(results, settings, context)
    again = sorted((i for i, r in enumerate(results) if r.deferred or i in plan), key=lambda i: -results[i].weight)
    if again:  # each file with the launches of the others
        done = _analyze_each([paths[i] for i in again], settings, jobs, cache, final, [results[i] for i in again],
                             each=[plan.get(i, settings) for i in again])
        for i, r in zip(again, done):
            results[i] = r
    return results


def _analyze_each(paths: list[str], settings: Settings, jobs: int, cache, final=None, earlier=None,
                  defer: bool = False, each=None) -> list[FileResult]:
    """analyze_file for each path, through the cache and the workers, in this order. `final(result)`
    is called as each result arrives; `earlier`: each file's result of the run's first pass,
    whose model a deferred one holds (the rules then run on it); `defer`: analyze_file's
    (only the first pass defers); `each`: the settings of each file where they differ from
    `settings` in the launches of other files alone."""
    each = each or [settings] * len(paths)
    results: list[FileResult | None] = [None] * len(paths)
    keys = [None] * len(paths)
    todo = []
    for i, p in enumerate(paths):
        if cache is not None:
            keys[i] = cache.key(p, each[i])
            results[i] = cache.get(keys[i])
            if results[i] is not None and results[i].deferred and not defer:
                results[i] = None  # only the launches of a file whose rules have not run
        if results[i] is None:
            todo.append(i)
        elif final:
            final(results[i])

    def finished(i: int, result: FileResult) -> None:
        results[i] = result
        if cache is not None:  # a deferred result: the launches a later run needs before the rules
            cache.put(keys[i], result)
        if final:
            final(result)

    def lost(i: int, why: str, seconds: float) -> None:
        finished(i, lost_result(paths[i], why, seconds, settings.file_budget_s))

    if todo:
        from cudalint import workers
        _preload(settings)
        jobs = jobs or min(os.cpu_count() or 1, 8)
        kept = [earlier[i] if earlier and earlier[i].model_blob is not None else paths[i] for i in range(len(paths))]
        workers.run([(i, (kept[i], each[i])) for i in todo], settings, min(jobs, len(todo)),
                    (_prepare, partial(_analyze, defer=defer)), finished, lost)
    return results


def _prepare(job, _) -> None:
    from cudalint.frontend.parse import prepare
    what, settings = job
    if isinstance(what, str):
        prepare(what, settings)


def _analyze(job, _, defer: bool) -> FileResult:
    """A worker's job: (a path to analyse, or a deferred result whose rules are to run; the
    file's settings)."""
    what, settings = job
    if isinstance(what, str):
        return analyze_file(what, settings, defer=defer)
    return check_deferred(what, settings)


def _preload(settings: Settings) -> None:
    """Import what workers need before they are forked, so each starts ready: the parser, z3 and
    every analysis (rule modules import theirs inside `check`, so that a cached run needs none)."""
    import importlib
    import pkgutil

    import z3  # noqa: F401
    import cudalint.analysis
    import cudalint.frontend.tu  # noqa: F401
    for info in pkgutil.iter_modules(cudalint.analysis.__path__):
        importlib.import_module(f"cudalint.analysis.{info.name}")
    selected(settings.select, settings.ignore)


@dataclass
class Checked:
    """A run's outcome: each file's result, and the findings left to report."""
    results: list[FileResult]
    findings: list[Finding]
    suppressed: int = 0  # findings hidden by suppression comments
    baselined: int = 0  # findings matched by the baseline
    stale: list = field(default_factory=list)  # baseline entries that matched nothing


def check(paths: list[str], settings: Settings, rules, config, source, root, jobs: int = 0, cache=None,
          progress=None, suppressions: bool = True, baseline: list | None = None) -> Checked:
    """`analyze_all`, then what the run reports: columns in code points (cudalint.columns),
    suppression comments (with CUDA901 for unused ones, unless `suppressions` is off), the
    severities configured, the config's per-file ignores, a header's finding once however many
    files include it, and only findings not in `baseline` (its entries, when given). `rules`: the
    rules that ran; `source(path)`: a file's lines; `root`: the project root baselines key on."""
    results = to_code_points(analyze_all(paths, settings, jobs, cache=cache, progress=progress))
    checked = Checked(results, *_reported(results, rules, settings, config, source, suppressions))
    if baseline is not None:
        from cudalint import baseline as baselines
        checked.findings, checked.baselined, checked.stale = baselines.apply(
            baseline, checked.findings, source, root, paths)
    return checked


def _reported(results, rules, settings, config, source, suppressions) -> tuple[list[Finding], int]:
    """(findings to report before the baseline, number hidden by suppression comments)."""
    from cudalint import suppress
    from cudalint.discover import matches
    from cudalint.registry import all_rules
    pfi = [(root_spec, set(codes)) for root_spec, codes in _per_file_specs(config)]
    ran = {r.code for r in rules}
    unused_rule = all_rules().get(suppress.UNUSED_CODE) if suppress.UNUSED_CODE in ran else None
    codes = {c: r.name for c, r in all_rules().items()}
    findings, seen, suppressed = [], set(), 0
    for r in results:
        fs = list(r.findings)
        if suppressions:
            own = [f for f in fs if f.path == r.path]
            fs, n = suppress.apply(r.path, source(r.path), own, ran, codes, unused_rule)
            suppressed += n
            for path in sorted({f.path for f in r.findings} - {r.path}):  # in headers the file includes
                kept, n = suppress.apply(path, source(path), [f for f in r.findings if f.path == path],
                                         ran, codes, None)
                fs += kept
                suppressed += n
        # the configured severities, here only: CUDA901 findings are born in suppress.apply
        fs = [f.with_(severity=settings.severities[f.rule]) if settings.severities.get(f.rule) else f for f in fs]
        if pfi:
            fs = [f for f in fs if not any(matches(spec, root, f.path) and any(f.rule.startswith(c) for c in cs)
                                           for (root, spec), cs in pfi)]
        # a header's finding once, however many files of the run include it
        findings += [f for f in fs if f.sort_key() not in seen and not seen.add(f.sort_key())]
    return findings, suppressed


def _per_file_specs(config):
    for glob, codes in config.get("per-file-ignores", ()):
        import pathspec
        from cudalint.registry import resolve
        yield (str(config.root), pathspec.GitIgnoreSpec.from_lines([glob])), tuple(resolve(codes))
