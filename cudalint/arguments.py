"""The command line of `cudalint [paths]`: its options, and the settings they give with a config file."""

from __future__ import annotations

import argparse
from pathlib import Path

from cudalint import __version__


def parser() -> argparse.ArgumentParser:
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
    out.add_argument("--profile", action="store_true",
                     help="print where the time went on stderr: parse, model and each rule, summed over files")
    fix = p.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true",
                     help="apply the fixes findings propose where they are safe (CUDA301's row padding)")
    fix.add_argument("--diff", action="store_true",
                     help="print those fixes as a unified diff and write nothing (exit 1 when there are any)")
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
    p.add_argument("--confirm-args", metavar="ARGS",
                   help="command-line arguments for the host programs --confirm builds and runs "
                        "(config: confirm-args, per file glob)")
    p.add_argument("--confirm-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit per confirmation run (default 60)")
    fe.add_argument("--no-pch", action="store_true",
                    help="parse without the precompiled prelude of CUDA/C++ headers (kept in ~/.cache/cudalint)")
    fe.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: cores, at most 8)")
    return p


def comma_list(values: list[str]) -> tuple[str, ...]:
    """The items of repeated, comma-separated options (`--select A,B --select C`)."""
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
    select = comma_list(args.select) or tuple(c.get("select", ()))
    ignore = tuple(c.get("ignore", ())) + comma_list(args.ignore)
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
        host_leaks_at_exit=c.get("host-leaks-at-exit", s.host_leaks_at_exit),
        confirm_args=tuple((str(config.root), glob, argv) for glob, argv in c.get("confirm-args", ()))
        + ((("", "*", args.confirm_args),) if args.confirm_args is not None else ()))
    for attr, flag, key in (("solver_timeout_ms", "solver_timeout", "solver-timeout-ms"),
                            ("file_budget_s", "file_budget", "file-budget-s"),
                            ("min_bank_conflict_degree", "min_bank_conflict_degree", "min-bank-conflict-degree")):
        value = getattr(args, flag)
        if value is None:
            value = c.get(key)
        if value is not None:
            changes[attr] = value
    return Settings(**{**s.__dict__, **changes})


_CHECKED_FLAGS = (("--file-budget", "file_budget", "file-budget-s"), ("--solver-timeout", "solver_timeout", "solver-timeout-ms"),
                  ("--min-bank-conflict-degree", "min_bank_conflict_degree", "min-bank-conflict-degree"),
                  ("--cuda-path", "cuda_path", "cuda-path"), ("--jobs", "jobs", "jobs"))


def check_flags(args) -> None:
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
