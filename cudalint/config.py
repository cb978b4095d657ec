"""Configuration files: `[tool.cudalint]` in pyproject.toml, or top-level keys in cudalint.toml.

The file is found by walking up from the first path on the command line (or the current
directory): in each directory `cudalint.toml`, then `.cudalint.toml`, then a `pyproject.toml` that
has a `[tool.cudalint]` table (a pyproject.toml that mentions `tool.cudalint` but is not valid TOML
is an error, not skipped). `--config FILE` names one; `--isolated` ignores them all. Paths in
the file (include-dirs, cuda-path, compile-commands-dir) are relative to its directory, and so are
the globs of `exclude` and `per-file-ignores`. Command-line flags override the file.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cudalint.findings import SEVERITIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG_NAMES = ("cudalint.toml", ".cudalint.toml", "pyproject.toml")
_MENTIONS_US = re.compile(r"^\s*\[+\s*tool\s*\.\s*[\"']?cudalint\b|^\s*tool\s*\.\s*[\"']?cudalint\b", re.M)


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the key."""


@dataclass
class Config:
    path: Path | None = None  # None: no file
    root: Path = field(default_factory=Path.cwd)  # the directory globs and paths are relative to
    values: dict = field(default_factory=dict)  # key (as in the file) -> validated value

    def get(self, key, default=None):
        return self.values.get(key, default)


def find_config(start: str | os.PathLike | None) -> Path | None:
    """The nearest config file at or above `start` (a file or directory), or None."""
    here = Path(start or ".").resolve()
    if not here.is_dir():
        here = here.parent
    for d in (here, *here.parents):
        for name in CONFIG_NAMES:
            p = d / name
            if not p.is_file():
                continue
            if name != "pyproject.toml":
                return p
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                if _MENTIONS_US.search(text):
                    return p  # ours, and broken: load_config says where
                continue  # someone else's broken pyproject is not ours to judge
            if isinstance(data.get("tool"), dict) and "cudalint" in data["tool"]:
                return p
    return None


def load_config(path: str | os.PathLike) -> Config:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read config file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: config file is not valid UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_error(p, text, exc)) from None
    prefix = ""
    if p.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "cudalint" not in tool:
            raise ConfigError(f"{p}: no [tool.cudalint] table (cudalint's settings go there)")
        data = tool["cudalint"]
        prefix = "tool.cudalint."
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: [{prefix.rstrip('.')}] must be a table")
    root = p.resolve().parent
    values = {}
    for key, value in data.items():
        check = _KEYS.get(key)
        if check is None:
            close = [k for k in _KEYS if k.replace("-", "_") == key.replace("-", "_").lower()]
            hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(sorted(_KEYS))})"
            raise ConfigError(f"{p}: unknown key {prefix + key!r}{hint}")
        try:
            values[key] = check(value, root)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{p}: key {prefix + key!r}: {exc}") from None
    return Config(p, root, values)


def _syntax_error(p: Path, text: str, exc) -> str:
    """`FILE:LINE:COLUMN: invalid TOML: what` (tomllib says where only inside its message before
    Python 3.14)."""
    msg = str(exc)
    line, col = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    if m:
        line, col = line or int(m.group(1)), col or int(m.group(2))
    elif msg.endswith("(at end of document)"):
        line, col = text.count("\n") + 1, len(text) - text.rfind("\n")
    what = getattr(exc, "msg", None) or (msg[:m.start()] if m else msg.replace(" (at end of document)", ""))
    return f"{p}:{line}:{col}: invalid TOML: {what}" if line else f"{p}: invalid TOML: {what}"


def check_value(key: str, value, root: Path):
    """A setting as the config file would hold it, validated the same way (the command line uses
    this too, so both reject the same values); raises TypeError or ValueError."""
    return _KEYS[key](value, root)


def resolve_config(paths: list[str], explicit: str | None = None, isolated: bool = False) -> Config:
    if isolated:
        return Config()
    if explicit:
        return load_config(explicit)
    found = find_config(paths[0] if paths else None)
    return load_config(found) if found else Config()


# ---------------------------------------------------------------------------- value checks


def _str(v, root):
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {_kind(v)}")
    return v


def _path(v, root):
    return str((root / _str(v, root)).resolve())


def _str_list(v, root):
    if isinstance(v, str):
        raise TypeError(f"expected a list of strings, got a string (write [{v!r}])")
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TypeError(f"expected a list of strings, got {_kind(v)}")
    return [x.strip() for x in v]


def _bool(v, root):
    if not isinstance(v, bool):
        raise TypeError(f"expected a boolean, got {_kind(v)}")
    return v


def _codes(v, root):
    from cudalint.registry import resolve
    items = _str_list(v, root)
    resolve(items)  # unknown codes raise ValueError with a clear message
    return items


def _path_list(v, root):
    return [str((root / x).resolve()) for x in _str_list(v, root)]


def _extensions(v, root):
    out = []
    for x in _str_list(v, root):
        if not x or "/" in x:
            raise ValueError(f"{x!r} is not a file extension")
        out.append(x if x.startswith(".") else "." + x)
    return tuple(out)


def _choice(*options):
    def check(v, root):
        if v not in options:
            raise ValueError(f"expected one of {', '.join(map(repr, options))}, got {v!r}")
        return v
    return check


def _int(minimum):
    def check(v, root):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"expected an integer, got {_kind(v)}")
        if v < minimum:
            raise ValueError(f"must be at least {minimum}, got {v}")
        return v
    return check


def _positive_number(v, root):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"expected a number, got {_kind(v)}")
    if not v > 0:  # nan too
        raise ValueError(f"must be positive, got {v:g}")
    return float(v)


def _cuda_path(v, root):
    """A toolkit root: where clang and cudalint look for include/cuda_runtime.h. A path without
    one would be passed over silently for the next candidate (CUDA_PATH, nvcc, /usr/local/cuda)."""
    path = _path(v, root)
    if not (Path(path) / "include" / "cuda_runtime.h").is_file():
        why = "it does not exist" if not Path(path).exists() else "no include/cuda_runtime.h there"
        raise ValueError(f"no CUDA toolkit at {path} ({why})")
    return path


def _table(v):
    if not isinstance(v, dict):
        raise TypeError(f"expected a table, got {_kind(v)}")
    return v


def _per_file_ignores(v, root):
    out = []
    for glob, codes in _table(v).items():
        try:
            out.append((glob, tuple(_codes(codes, root))))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{glob!r}: {exc}") from None
    return tuple(out)


def _confirm_args(v, root):
    """`confirm-args`: a glob of host programs' files -> the arguments `--confirm` runs them with."""
    out = []
    for glob, argv in _table(v).items():
        if not isinstance(argv, str):
            raise ValueError(f"{glob!r}: expected the arguments as one string, got {_kind(argv)}")
        out.append((glob, argv))
    return tuple(out)


def _dims(v, root):
    """`block-dim` / `grid-dim`: kernel name (or "*" for every kernel) -> [x, y, z]."""
    out = {}
    for kernel, dims in _table(v).items():
        if (not isinstance(dims, list) or not 1 <= len(dims) <= 3
                or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims)):
            raise ValueError(f"{kernel!r}: expected [x, y, z] (1 to 3 positive integers), got {dims!r}")
        out[kernel] = tuple(dims + [1, 1])[:3]
    return out


def _severity(v, root):
    from cudalint.registry import resolve
    out = {}
    for code, level in _table(v).items():
        if level not in SEVERITIES:
            raise ValueError(f"{code!r}: expected one of {', '.join(SEVERITIES)}, got {level!r}")
        for c in sorted(resolve([code])):
            out[c] = level
    return out


def _kind(v) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(v), type(v).__name__)


_KEYS = {
    "select": _codes,
    "ignore": _codes,
    "per-file-ignores": _per_file_ignores,
    "exclude": _str_list,
    "extensions": _extensions,
    "cuda-mode": _choice("auto", "shim", "toolkit"),
    "cuda-path": _cuda_path,
    "include-dirs": _path_list,
    "defines": _str_list,
    "std": _str,
    "compile-commands-dir": _path,
    "block-dim": _dims,
    "grid-dim": _dims,
    "severity": _severity,
    "solver-timeout-ms": _int(1),
    "file-budget-s": _positive_number,
    "min-bank-conflict-degree": _int(2),
    "jobs": _int(0),
    "host-leaks-at-exit": _bool,
    "confirm-args": _confirm_args,
}
KNOWN_KEYS = tuple(_KEYS)
