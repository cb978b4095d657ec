"""The `cudalint` command: check paths, print a rule's documentation, list the rules."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cudalint import __version__
from cudalint.columns import source_lines, to_code_points

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_NOT_CHECKED = 2  # a file could not be fully checked (see cudalint.outcomes)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
PARSE_ERRORS_SHOWN = 3  # per file on stderr; -v shows all that were kept, -q none
_SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cudalint",
        description="Static race, barrier, alignment, bank-conflict and leak linter for CUDA sources.",
        epilog="Other commands: `cudalint rules` lists the rules, `cudalint rule CODE` explains one, "
               "`cudalint server` is a Language Server for editors (LSP over stdio).")
    p.add_argument("paths", nargs="*", help="files and directories to check (default: .)")
    p.add_argument("--version", action="version", version=f"cudalint {__version__}")
    out = p.add_argument_group("output")
    out.add_argument("--output-format", default="text", choices=("text", "json", "sarif", "github", "junit"))
    out.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    out.add_argument("-q", "--quiet", action="store_true", help="findings only: no code frames or notes")
    out.add_argument("-v", "--verbose", action="store_true", help="say what was skipped and why")
    out.add_argument("--statistics", action="store_true", help="print a count per rule instead of findings")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    out.add_argument("--fail-on", choices=("note", "warning", "error"), default="note",
                     help="lowest severity that makes the exit code 1 (default: note)")
    out.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    cfg = p.add_argument_group("configuration")
    cfg.add_argument("--config", metavar="FILE",
                     help="use this config file (pyproject.toml or cudalint.toml) instead of searching")
    cfg.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    cfg.add_argument("--show-settings", action="store_true",
                     help="print the resolved settings, each with where it came from, and exit")
    cfg.add_argument("--exclude", action="append", default=[], metavar="GLOBS",
                     help="skip files matching these gitignore-style globs (comma-separated; adds to config)")
    cfg.add_argument("--force-exclude", action="store_true",
                     help="apply exclusions to files named on the command line too (as pre-commit passes them)")
    cfg.add_argument("--no-suppressions", action="store_true",
                     help="ignore every suppression comment (for audits)")
    cfg.add_argument("--baseline", metavar="FILE", help="report only findings not in this baseline")
    cfg.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline and exit 0")
    cfg.add_argument("-n", "--no-cache", action="store_true", help="neither read nor write the result cache")
    cfg.add_argument("--cache-dir", metavar="DIR",
                     help="result cache directory (default: $CUDALINT_CACHE_DIR or .cudalint_cache)")
    sel = p.add_argument_group("rules")
    sel.add_argument("--select", action="append", default=[], metavar="CODES",
                     help="only these rule codes, prefixes or names (comma-separated)")
    sel.add_argument("--ignore", action="append", default=[], metavar="CODES", help="skip these rules")
    sel.add_argument("--block-dim", action="append", default=[], metavar="[KERNEL=]X[,Y[,Z]]",
                     help="pin blockDim (of one kernel, or of every kernel) where launch sites do not say it")
    sel.add_argument("--grid-dim", action="append", default=[], metavar="[KERNEL=]X[,Y[,Z]]",
                     help="pin gridDim (of one kernel, or of every kernel) where launch sites do not say it")
    sel.add_argument("--min-bank-conflict-degree", type=int, default=None, metavar="N")
    sel.add_argument("--solver-timeout", type=int, default=None, metavar="MS", help="per z3 query (default 2000)")
    sel.add_argument("--file-budget", type=float, default=None, metavar="SECONDS",
                     help="wall time per file: checks stop at it, and its worker is killed soon after "
                          "(the file is then reported as not fully checked; default 20)")
    fe = p.add_argument_group("parsing")
    fe.add_argument("--cuda-mode", choices=("auto", "shim", "toolkit"), default=None,
                    help="toolkit headers, or cudalint's shim (auto: toolkit when one is found)")
    fe.add_argument("--cuda-path", default=None, help="CUDA toolkit root")
    fe.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    fe.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]")
    fe.add_argument("--std", default=None, help="C++ standard (default c++17)")
    fe.add_argument("-p", dest="build_dir", default=None, metavar="BUILD_DIR",
                    help="directory holding compile_commands.json")
    p.add_argument("--confirm", action="store_true",
                   help="run flagged kernels on a CUDA GPU (CuPy) to confirm findings; executes your code")
    p.add_argument("--confirm-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit per confirmation run (default 60)")
    fe.add_argument("--no-pch", action="store_true",
                    help="parse without the precompiled prelude of CUDA/C++ headers (kept in ~/.cache/cudalint)")
    fe.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: cores, at most 8)")
    return p


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


def _dims(flag: str, values: list[str]) -> dict:
    """KERNEL=X[,Y[,Z]] pins one kernel; a bare X[,Y[,Z]] every kernel (key "*")."""
    dims = {}
    for v in values:
        name, eq, rest = v.rpartition("=")
        name = name.strip() if eq else "*"
        try:
            nums = tuple(int(x) for x in rest.split(",") if x.strip())
        except ValueError:
            nums = ()
        if not name or not 1 <= len(nums) <= 3 or any(n <= 0 for n in nums):
            raise ValueError(f"{flag} {v!r}: expected [KERNEL=]X[,Y[,Z]] with positive integers")
        dims[name] = (nums + (1, 1))[:3]
    return dims


def settings_from_args(args, config=None):
    """Settings from defaults, then the config file, then the command line (which wins).
    --select replaces the config's select; --ignore, -I, -D, --block-dim, --grid-dim add to the
    config's."""
    from cudalint.settings import Settings
    s = Settings()
    c = config.values if config is not None else {}
    select = _split(args.select) or tuple(c.get("select", ()))
    ignore = tuple(c.get("ignore", ())) + _split(args.ignore)
    block_dims = {**c.get("block-dim", {}), **_dims("--block-dim", args.block_dim)}
    grid_dims = {**c.get("grid-dim", {}), **_dims("--grid-dim", args.grid_dim)}
    changes = dict(
        cuda_mode=args.cuda_mode or c.get("cuda-mode") or s.cuda_mode,
        cuda_path=args.cuda_path or c.get("cuda-path"),
        include_dirs=tuple(c.get("include-dirs", ())) + tuple(args.include),
        defines=tuple(c.get("defines", ())) + tuple(args.define),
        std=args.std or c.get("std") or s.std,
        compile_commands_dir=args.build_dir or c.get("compile-commands-dir"),
        extensions=tuple(c.get("extensions", s.extensions)),
        select=select, ignore=ignore, block_dims=block_dims, grid_dims=grid_dims,
        severities=dict(c.get("severity", {})), verbose=args.verbose, pch=not args.no_pch,
        host_leaks_at_exit=c.get("host-leaks-at-exit", s.host_leaks_at_exit))
    for attr, flag, key in (("solver_timeout_ms", "solver_timeout", "solver-timeout-ms"),
                            ("file_budget_s", "file_budget", "file-budget-s"),
                            ("min_bank_conflict_degree", "min_bank_conflict_degree", "min-bank-conflict-degree")):
        value = getattr(args, flag)
        if value is None:
            value = c.get(key)
        if value is not None:
            changes[attr] = value
    return Settings(**{**s.__dict__, **changes})


@dataclass
class RunInfo:
    """What reporters may want to know about the run besides the findings."""
    color: bool
    quiet: bool
    files_checked: int
    width: int = 100
    version: str = __version__
    diagnostics: list = field(default_factory=list)
    gaps: list = field(default_factory=list)  # cudalint.outcomes.Gap: files not fully checked
    suppressed: int = 0  # findings hidden by suppression comments
    baselined: int = 0  # findings matched by the baseline
    stale_baseline: int = 0  # baseline entries that matched nothing
    root: Path = field(default_factory=Path.cwd)  # the project root (cudalint.project)
    rules: tuple = ()  # every registered rule (cudalint.registry), for the formats that list them
    _sources: dict = field(default_factory=dict)

    def source(self, path: str) -> list[str]:
        if path not in self._sources:
            try:
                with open(path, encoding="utf-8", errors="replace", newline="") as fh:
                    self._sources[path] = source_lines(fh.read())
            except OSError:
                self._sources[path] = []
        return self._sources[path]


def _use_color(stream, to_file: bool) -> bool:
    if to_file or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


_CHECKED_FLAGS = (("--file-budget", "file_budget", "file-budget-s"), ("--solver-timeout", "solver_timeout", "solver-timeout-ms"),
                  ("--min-bank-conflict-degree", "min_bank_conflict_degree", "min-bank-conflict-degree"),
                  ("--cuda-path", "cuda_path", "cuda-path"), ("--jobs", "jobs", "jobs"))


def _check_flags(args) -> None:
    """The command line is held to the same limits as the config file (cudalint.config)."""
    from cudalint.config import check_value
    for flag, attr, key in _CHECKED_FLAGS:
        value = getattr(args, attr)
        if value is None:
            continue
        try:
            check_value(key, value, Path.cwd())
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{flag} {value:g}: {exc}" if isinstance(value, (int, float))
                             else f"{flag} {value}: {exc}") from None


def _error(msg: str) -> int:
    print(f"cudalint: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["rules"]:
        return _cmd_rules()
    if argv[:1] == ["rule"]:
        return _cmd_rule(argv[1:])
    if argv[:1] == ["server"]:
        from cudalint.server import main as serve
        return serve(argv[1:])
    args = _parser().parse_args(argv)
    try:
        return check(args)
    except KeyboardInterrupt:  # workers are already killed (cudalint.workers); results so far are cached
        print("cudalint: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def check(args) -> int:
    from cudalint.config import resolve_config
    from cudalint.discover import discover, without_cuda
    from cudalint.engine import analyze_all
    from cudalint.outcomes import gaps
    from cudalint.registry import all_rules, selected
    from cudalint.reporters import reporter
    from cudalint.reporters.text import summary

    from cudalint.project import find_root
    paths = args.paths or ["."]
    try:
        config = resolve_config(paths, args.config, args.isolated)
        _check_flags(args)
        settings = settings_from_args(args, config)
        rules = selected(settings.select, settings.ignore)  # validates codes before any work
        from cudalint.frontend.flags import resolve_mode
        resolve_mode(settings)
        if settings.compile_commands_dir:
            from cudalint.frontend.flags import compile_database
            compile_database(settings.compile_commands_dir)
        baseline_entries = None
        if args.baseline:
            from cudalint import baseline
            baseline_entries = baseline.load(args.baseline)
        jobs = args.jobs if args.jobs is not None else config.get("jobs", 0)
    except ValueError as exc:
        return _error(str(exc))
    root = find_root(paths[0], config)
    if args.show_settings:
        from cudalint.show_settings import render
        sys.stdout.write(render(args, config, settings, root, jobs))
        return EXIT_OK
    if args.verbose:
        print(f"cudalint: config: {_config_line(config, args)}", file=sys.stderr)
        print(f"cudalint: project root: {root}", file=sys.stderr)
        print(f"cudalint: {_mode_line(settings)}", file=sys.stderr)
    files, problems = discover(paths, settings.extensions)
    files = _exclude(files, paths, config, _split(args.exclude), args.force_exclude)
    files, no_cuda = without_cuda(files, paths, settings.extensions)
    if args.verbose:
        for f in no_cuda:
            print(f"{f}: skipped: no CUDA code in it (not a {'/'.join(settings.extensions)} file)", file=sys.stderr)
    missing = [p for p in problems if p.endswith("no such file or directory")]
    for p in problems:
        print(f"cudalint: {p}", file=sys.stderr)

    cache = None
    if not args.no_cache:
        from cudalint.cache import Cache
        cache = Cache(args.cache_dir)
    with _Progress(len(files), enabled=not args.no_progress) as progress:
        results = analyze_all(files, settings, jobs, cache=cache, progress=progress.update)
    results = to_code_points(results)

    run = RunInfo(color=False, quiet=args.quiet, files_checked=len(files), root=root,
                  rules=tuple(all_rules().values()))
    findings = _post_filter(results, rules, settings, config, args, run)
    if args.write_baseline:
        from cudalint import baseline
        try:
            n = baseline.write(args.write_baseline, findings, run.source, run.root)
        except OSError as exc:
            return _error(f"cannot write {args.write_baseline}: {exc.strerror}")
        print(f"cudalint: wrote {n} finding{'s' if n != 1 else ''} to baseline {args.write_baseline}",
              file=sys.stderr)
        return EXIT_USAGE if missing else EXIT_OK
    if baseline_entries is not None:
        from cudalint import baseline
        findings, run.baselined, stale = baseline.apply(baseline_entries, findings, run.source, run.root, files)
        run.stale_baseline = len(stale)
        if stale:
            print(f"cudalint: {len(stale)} baseline entr{'ies' if len(stale) != 1 else 'y'} in {args.baseline} "
                  "no longer match any finding (fixed or changed); shrink the baseline with --write-baseline",
                  file=sys.stderr)
            if args.verbose:
                for e in stale:
                    print(f"  stale: {e['path']}: {e['rule']} (was line {e.get('line', '?')})", file=sys.stderr)

    if args.confirm and findings:
        from cudalint.gpu.runner import confirm
        findings = confirm(findings, settings, timeout=args.confirm_timeout)
    diagnostics = [d for r in results for d in r.diagnostics]
    _print_diagnostics(results, args)
    if args.verbose:
        for r in results:
            for note in r.notes:
                print(f"{r.path}: skipped: {note}", file=sys.stderr)
        if cache is not None:
            print(f"cudalint: cache: {cache.hits} hit{'s' if cache.hits != 1 else ''}, "
                  f"{len(files) - cache.hits} analysed ({cache.dir})", file=sys.stderr)
    out_stream = sys.stdout
    run.color = _use_color(out_stream, bool(args.output))
    run.diagnostics = diagnostics
    run.gaps = gaps(results)
    if args.statistics:
        text = _statistics(findings) + summary(findings, run) + "\n" + _extra_summary(run)
    else:
        text = reporter(args.output_format)(findings, run)
        if args.output_format == "text":
            text += _extra_summary(run)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            return _error(f"cannot write {args.output}: {exc.strerror}")
    else:
        out_stream.write(text)
    if missing:
        return EXIT_USAGE
    if args.exit_zero:
        return EXIT_OK
    if run.gaps:
        return EXIT_NOT_CHECKED
    failing = [f for f in findings if _SEVERITY_RANK[f.severity] >= _SEVERITY_RANK[args.fail_on]]
    return EXIT_FINDINGS if failing else EXIT_OK


def _print_diagnostics(results, args) -> None:
    """Problems with the input on stderr. Parse errors can run to thousands of lines on a tree
    whose headers were not found: a few per file (all kept with -v, none with -q); the summary
    counts the files either way."""
    for r in results:
        shown = 0
        for d in r.diagnostics:
            if d.kind == "parse" and d.severity == "error":
                shown += 1
                if args.quiet or (shown > PARSE_ERRORS_SHOWN and not args.verbose):
                    continue
            where = f"{d.path}:{d.line}:{d.column}" if d.line else d.path
            print(f"{where}: {d.severity}: {d.message}", file=sys.stderr)
        hidden = shown - PARSE_ERRORS_SHOWN
        if hidden > 0 and not args.quiet and not args.verbose:
            print(f"{r.path}: ... {hidden} more parse error{'s' if hidden != 1 else ''} (-v shows them)",
                  file=sys.stderr)


def _config_line(config, args) -> str:
    if args.isolated:
        return "none (--isolated)"
    if config.path is None:
        return "none found (defaults)"
    return f"{config.path}{' (--config)' if args.config else ''}"


def _mode_line(settings) -> str:
    from cudalint.frontend.flags import resolve_mode, toolkit_version
    mode, root = resolve_mode(settings)
    if mode == "shim":
        why = "" if settings.cuda_mode == "shim" else ", no toolkit found"
        return f"cuda-mode {settings.cuda_mode}: CUDA headers from cudalint's shim{why}"
    return f"cuda-mode {settings.cuda_mode}: CUDA headers from toolkit {toolkit_version(root) or '(version unknown)'} at {root}"


def _extra_summary(run) -> str:
    """Lines after the summary: what was hidden, and which files were not fully checked."""
    from cudalint.outcomes import summary_line
    lines = [summary_line(run.gaps)] if run.gaps else []
    parts = []
    if run.suppressed:
        parts.append(f"{run.suppressed} suppressed by comments")
    if run.baselined:
        parts.append(f"{run.baselined} in the baseline")
    if run.stale_baseline:
        parts.append(f"{run.stale_baseline} stale baseline entr{'ies' if run.stale_baseline != 1 else 'y'}")
    if parts:
        lines.append("Not shown: " + ", ".join(parts) + ".")
    return "".join(line + "\n" for line in lines)


def _exclude(files, paths, config, extra, force) -> list[str]:
    """Drop files matching the config's `exclude` (relative to its directory) or --exclude (relative
    to the current directory). Files named on the command line stay unless --force-exclude."""
    import pathspec
    specs = []
    if config.get("exclude"):
        specs.append((str(config.root), pathspec.GitIgnoreSpec.from_lines(config.get("exclude"))))
    if extra:
        specs.append((os.getcwd(), pathspec.GitIgnoreSpec.from_lines(extra)))
    if not specs:
        return files
    explicit = {os.path.realpath(p) for p in paths if os.path.isfile(p)}
    out = []
    for f in files:
        real = os.path.realpath(f)
        if real in explicit and not force:
            out.append(f)
            continue
        if any(_match(spec, root, f) for root, spec in specs):
            continue
        out.append(f)
    return out


def _match(spec, root: str, path: str) -> bool:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return spec.match_file(os.path.basename(path))
    return spec.match_file(rel.replace(os.sep, "/"))


def _post_filter(results, rules, settings, config, args, run) -> list:
    """Per-file ignores from config, then suppression comments (with CUDA901 for unused ones)."""
    from cudalint import suppress
    from cudalint.registry import all_rules
    pfi = [(root_spec, set(codes)) for root_spec, codes in _per_file_specs(config)]
    ran = {r.code for r in rules}
    unused_rule = all_rules().get(suppress.UNUSED_CODE) if suppress.UNUSED_CODE in ran else None
    codes = {c: r.name for c, r in all_rules().items()}
    findings, seen = [], set()
    for r in results:
        fs = list(r.findings)
        if not args.no_suppressions:
            own = [f for f in fs if f.path == r.path]
            fs, n = suppress.apply(r.path, run.source(r.path), own, ran, codes, unused_rule)
            run.suppressed += n
            for path in sorted({f.path for f in r.findings} - {r.path}):  # in headers the file includes
                kept, n = suppress.apply(path, run.source(path), [f for f in r.findings if f.path == path],
                                         ran, codes, None)
                fs += kept
                run.suppressed += n
            sev = settings.severities.get(suppress.UNUSED_CODE)
            if sev:
                fs = [f.with_(severity=sev) if f.rule == suppress.UNUSED_CODE else f for f in fs]
        if pfi:
            fs = [f for f in fs if not any(_match(spec, root, f.path) and any(f.rule.startswith(c) for c in cs)
                                           for (root, spec), cs in pfi)]
        # a header's finding once, however many files of the run include it
        findings += [f for f in fs if f.sort_key() not in seen and not seen.add(f.sort_key())]
    return findings


def _per_file_specs(config):
    import pathspec
    for glob, codes in config.get("per-file-ignores", ()):
        from cudalint.registry import resolve
        yield (str(config.root), pathspec.GitIgnoreSpec.from_lines([glob])), tuple(resolve(codes))


class _Progress:
    """A rich progress bar on stderr for runs of more than 10 files that take more than a second;
    never when stderr is not a terminal (piped, CI logs, pre-commit)."""

    def __init__(self, total: int, enabled: bool = True):
        import time
        self.total = total
        self.enabled = enabled and total > 10 and sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
        self.start = time.monotonic()
        self.bar = None
        self.task = None

    def __enter__(self):
        return self

    def update(self, done: int, total: int) -> None:
        import time
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 1.0 or done >= total:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            self.bar = Progress(TextColumn("cudalint"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=Console(file=sys.stderr), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("files", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def _statistics(findings) -> str:
    from collections import Counter
    counts = Counter((f.rule, f.name) for f in findings)
    return "".join(f"{n:5d}  {code}  {name}\n" for (code, name), n in sorted(counts.items()))


def _cmd_rules() -> int:
    from cudalint.registry import all_rules
    for r in all_rules().values():
        print(f"{r.code}  {r.name:32s} {r.category:28s} {r.severity:8s} {r.summary}")
    return EXIT_OK


def _cmd_rule(rest: list[str]) -> int:
    from cudalint.registry import all_rules, resolve
    if len(rest) != 1:
        return _error("usage: cudalint rule CODE")
    try:
        codes = sorted(resolve([rest[0]]))
    except ValueError as exc:
        return _error(str(exc))
    for code in codes:
        r = all_rules()[code]
        print(f"# {r.code} {r.name}\n\ncategory: {r.category} · default severity: {r.severity}\n\n{r.doc}\n")
    return EXIT_OK
