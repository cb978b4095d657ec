"""The `cudalint` command: check paths (options: cudalint.arguments; the run: cudalint.engine.check)
and report them on stdout and stderr, print a rule's documentation, list the rules."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cudalint import __version__
from cudalint.arguments import check_flags, comma_list, parser, settings_from_args
from cudalint.columns import source_lines

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_NOT_CHECKED = 2  # a file could not be fully checked (see cudalint.outcomes)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
PARSE_ERRORS_SHOWN = 3  # per file on stderr; -v shows all that were kept, -q none
_SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}


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
    args = parser().parse_args(argv)
    try:
        return check(args)
    except KeyboardInterrupt:  # workers are already killed (cudalint.workers); results so far are cached
        print("cudalint: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def check(args) -> int:
    from cudalint import engine
    from cudalint.config import resolve_config
    from cudalint.discover import discover, drop_excluded, without_cuda
    from cudalint.outcomes import gaps
    from cudalint.project import find_root
    from cudalint.registry import all_rules, selected
    from cudalint.reporters import reporter
    from cudalint.reporters.text import summary

    paths = args.paths or ["."]
    try:
        config = resolve_config(paths, args.config, args.isolated)
        check_flags(args)
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
    files = drop_excluded(files, paths, config, comma_list(args.exclude), args.force_exclude)
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
    run = RunInfo(color=False, quiet=args.quiet, files_checked=len(files), root=root,
                  rules=tuple(all_rules().values()))
    with _Progress(len(files), enabled=not args.no_progress) as progress:
        checked = engine.check(files, settings, rules, config, run.source, root, jobs, cache=cache,
                               progress=progress.update, suppressions=not args.no_suppressions,
                               baseline=None if args.write_baseline else baseline_entries)
    results, findings = checked.results, checked.findings
    run.suppressed, run.baselined, run.stale_baseline = checked.suppressed, checked.baselined, len(checked.stale)
    if args.write_baseline:
        from cudalint import baseline
        try:
            n = baseline.write(args.write_baseline, findings, run.source, run.root)
        except OSError as exc:
            return _error(f"cannot write {args.write_baseline}: {exc.strerror}")
        print(f"cudalint: wrote {n} finding{'s' if n != 1 else ''} to baseline {args.write_baseline}",
              file=sys.stderr)
        return EXIT_USAGE if missing else EXIT_OK
    stale = checked.stale
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
    if args.diff or args.fix:
        from cudalint import fix
        edits = fix.changes(findings)
        if args.diff:
            sys.stdout.write("".join(fix.unified_diff(path, old, new) for path, old, new in edits))
            return EXIT_FINDINGS if edits else EXIT_OK
        findings = _apply_fixes(findings, edits)
    diagnostics = [d for r in results for d in r.diagnostics]
    _print_diagnostics(results, args)
    if args.profile:
        from cudalint.profile import render
        sys.stderr.write(render(results))
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


def _apply_fixes(findings, edits) -> list:
    """Write the fixed files; the findings left are those no edit fixed."""
    written = set()
    for path, _old, new in edits:
        try:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(new)
            written.add(path)
        except OSError as exc:
            print(f"cudalint: cannot fix {path}: {exc.strerror}", file=sys.stderr)
    left = [f for f in findings if (dict(f.properties).get("pad") or ("",))[0] not in written]
    n = len(findings) - len(left)
    if n:
        print(f"cudalint: fixed {n} finding{'s' if n != 1 else ''} in {len(written)} file{'s' if len(written) != 1 else ''}",
              file=sys.stderr)
    return left


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


class _Progress:
    """A rich progress bar on stderr for runs of more than 10 files that take more than a second,
    with the time left and the file that finished last; never when stderr is not a terminal
    (piped, CI logs, pre-commit)."""

    def __init__(self, total: int, enabled: bool = True, stream=None):
        import time
        self.stream = stream or sys.stderr
        self.total = total
        self.enabled = enabled and total > 10 and self.stream.isatty() and os.environ.get("TERM") != "dumb"
        self.start = time.monotonic()
        self.bar = None
        self.task = None

    def __enter__(self):
        return self

    def update(self, done: int, total: int, path: str = "") -> None:
        import time
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 1.0 or done >= total:
                return
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)
            self.bar = Progress(TextColumn("cudalint"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("left"), TimeRemainingColumn(), TextColumn("{task.fields[last]}"),
                                console=Console(file=self.stream), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("files", total=total, last="")
        self.bar.update(self.task, completed=done, last=_short(path))

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def _short(path: str, width: int = 40) -> str:
    """The path's tail that fits `width` characters (the bar shares its line)."""
    return path if len(path) <= width else "…" + path[-(width - 1):]


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
