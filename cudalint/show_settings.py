"""`--show-settings`: the settings a run would use, each with where it came from.

The output is TOML with the config file's keys: a line per key, `key = value  # source`, the
source being `default`, the config file's path, `command line`, or both (`ignore`, `exclude`,
`include-dirs`, `defines`, `block-dim` and `grid-dim` add the command line's to the file's).
Keys without a value are comment lines; paths are absolute. Pasted into a cudalint.toml it
configures the same run.
"""

from __future__ import annotations

import json
import os
import re

from cudalint.config import KNOWN_KEYS

# config key -> (Settings attribute or None, argparse attribute or None, adds to the config's)
_SOURCES = {
    "select": ("select", "select", False),
    "ignore": ("ignore", "ignore", True),
    "per-file-ignores": (None, None, False),
    "exclude": (None, "exclude", True),
    "extensions": ("extensions", None, False),
    "cuda-mode": ("cuda_mode", "cuda_mode", False),
    "cuda-path": ("cuda_path", "cuda_path", False),
    "include-dirs": ("include_dirs", "include", True),
    "defines": ("defines", "define", True),
    "std": ("std", "std", False),
    "compile-commands-dir": ("compile_commands_dir", "build_dir", False),
    "block-dim": ("block_dims", "block_dim", True),
    "grid-dim": ("grid_dims", "grid_dim", True),
    "severity": ("severities", None, False),
    "solver-timeout-ms": ("solver_timeout_ms", "solver_timeout", False),
    "file-budget-s": ("file_budget_s", "file_budget", False),
    "min-bank-conflict-degree": ("min_bank_conflict_degree", "min_bank_conflict_degree", False),
    "jobs": (None, "jobs", False),
    "host-leaks-at-exit": ("host_leaks_at_exit", None, False),
    "confirm-args": ("confirm_args", "confirm_args", True),
}
assert set(_SOURCES) == set(KNOWN_KEYS), "every config key is shown"
_PATHS = ("cuda-path", "include-dirs", "compile-commands-dir")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        items = ", ".join(f"{k if _BARE_KEY.match(k) else json.dumps(k)} = {toml_value(x)}" for k, x in v.items())
        return "{ " + items + " }" if items else "{}"
    return "[" + ", ".join(toml_value(x) for x in v) + "]"


def _value(key, config, settings, args, jobs):
    attr = _SOURCES[key][0]
    if key == "per-file-ignores":
        return {glob: list(codes) for glob, codes in config.get(key, ())}
    if key == "confirm-args":
        return {glob: argv for _, glob, argv in settings.confirm_args}
    if key == "exclude":
        from cudalint.arguments import comma_list
        return list(config.get(key, ())) + list(comma_list(args.exclude))
    if key == "jobs":
        return jobs
    value = getattr(settings, attr)
    if key in _PATHS and value is not None:  # the command line's are relative to the current directory
        return [os.path.abspath(v) for v in value] if isinstance(value, tuple) else os.path.abspath(value)
    if isinstance(value, dict):
        return {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}
    return list(value) if isinstance(value, tuple) else value


def _source(key, config, args) -> str:
    _, flag, adds = _SOURCES[key]
    from_cli = flag is not None and getattr(args, flag) not in (None, [], ())
    from_file = key in config.values
    if from_cli and from_file and adds:
        return f"{config.path} + command line"
    if from_cli:
        return "command line"
    return str(config.path) if from_file else "default"


def render(args, config, settings, root, jobs) -> str:
    from cudalint.cli import _config_line, _mode_line
    lines = [f"# config file: {_config_line(config, args)}", f"# project root: {root}",
             f"# {_mode_line(settings)}"]
    for key in _SOURCES:
        value = _value(key, config, settings, args, jobs)
        source = _source(key, config, args)
        if value is None:
            lines.append(f"# {key}: not set  # {source}")
        else:
            lines.append(f"{key} = {toml_value(value)}  # {source}")
    return "\n".join(lines) + "\n"
