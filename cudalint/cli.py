"""The `cudalint` command: check paths, print a rule's documentation, list the rules."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field

from cudalint import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
_SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cudalint",
        description="Static race, barrier, alignment, bank-conflict and leak linter for CUDA sources.",
        epilog="Other commands: `cudalint rules` lists the rules, `cudalint rule CODE` explains one.")
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
    sel = p.add_argument_group("rules")
    sel.add_argument("--select", action="append", default=[], metavar="CODES",
                     help="only these rule codes, prefixes or names (comma-separated)")
    sel.add_argument("--ignore", action="append", default=[], metavar="CODES", help="skip these rules")
    sel.add_argument("--block-dim", action="append", default=[], metavar="KERNEL=X[,Y[,Z]]",
                     help="pin a kernel's blockDim when launch sites do not say it")
    sel.add_argument("--min-bank-conflict-degree", type=int, default=None, metavar="N")
    sel.add_argument("--solver-timeout", type=int, default=None, metavar="MS", help="per z3 query (default 2000)")
    sel.add_argument("--file-budget", type=float, default=None, metavar="SECONDS",
                     help="analysis time per file before checks are skipped (default 20)")
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
    fe.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (default: cores, at most 8)")
    return p


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


def _block_dims(values: list[str]) -> dict:
    dims = {}
    for v in values:
        name, _, rest = v.partition("=")
        try:
            nums = tuple(int(x) for x in rest.split(",") if x.strip())
        except ValueError:
            nums = ()
        if not name or not 1 <= len(nums) <= 3 or any(n <= 0 for n in nums):
            raise ValueError(f"--block-dim {v!r}: expected KERNEL=X[,Y[,Z]] with positive integers")
        dims[name] = (nums + (1, 1))[:3]
    return dims


def settings_from_args(args):
    from cudalint.settings import Settings
    s = Settings()
    changes = dict(
        cuda_mode=args.cuda_mode or s.cuda_mode, cuda_path=args.cuda_path,
        include_dirs=tuple(args.include), defines=tuple(args.define), std=args.std or s.std,
        compile_commands_dir=args.build_dir, select=_split(args.select), ignore=_split(args.ignore),
        block_dims=_block_dims(args.block_dim), verbose=args.verbose)
    if args.solver_timeout is not None:
        changes["solver_timeout_ms"] = args.solver_timeout
    if args.file_budget is not None:
        changes["file_budget_s"] = args.file_budget
    if args.min_bank_conflict_degree is not None:
        changes["min_bank_conflict_degree"] = args.min_bank_conflict_degree
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
    _sources: dict = field(default_factory=dict)

    def source(self, path: str) -> list[str]:
        if path not in self._sources:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    self._sources[path] = fh.read().splitlines()
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
    args = _parser().parse_args(argv)
    return check(args)


def check(args) -> int:
    from cudalint.discover import discover
    from cudalint.engine import analyze_all
    from cudalint.registry import selected
    from cudalint.reporters import reporter
    from cudalint.reporters.text import summary

    try:
        settings = settings_from_args(args)
        selected(settings.select, settings.ignore)  # validates codes before any work
        from cudalint.frontend.flags import resolve_mode
        resolve_mode(settings)
        if settings.compile_commands_dir:
            from cudalint.frontend.flags import compile_database
            compile_database(settings.compile_commands_dir)
    except ValueError as exc:
        return _error(str(exc))
    files, problems = discover(args.paths or ["."], settings.extensions)
    missing = [p for p in problems if p.endswith("no such file or directory")]
    for p in problems:
        print(f"cudalint: {p}", file=sys.stderr)
    results = analyze_all(files, settings, args.jobs)
    findings = [f for r in results for f in r.findings]
    if args.confirm and findings:
        from cudalint.gpu.runner import confirm
        findings = confirm(findings, settings, timeout=args.confirm_timeout)
    diagnostics = [d for r in results for d in r.diagnostics]
    for d in diagnostics:
        where = f"{d.path}:{d.line}:{d.column}" if d.line else d.path
        print(f"{where}: {d.severity}: {d.message}", file=sys.stderr)
    if args.verbose:
        for r in results:
            for note in r.notes:
                print(f"{r.path}: skipped: {note}", file=sys.stderr)
    out_stream = sys.stdout
    run = RunInfo(color=_use_color(out_stream, bool(args.output)), quiet=args.quiet,
                  files_checked=len(files), diagnostics=diagnostics)
    if args.statistics:
        text = _statistics(findings) + summary(findings, run) + "\n"
    else:
        text = reporter(args.output_format)(findings, run)
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
    failing = [f for f in findings if _SEVERITY_RANK[f.severity] >= _SEVERITY_RANK[args.fail_on]]
    return EXIT_FINDINGS if failing and not args.exit_zero else EXIT_OK


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
