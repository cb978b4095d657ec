"""A precompiled prelude: the CUDA headers and the common C++ headers parsed once into a PCH and
reused by every file parsed with the same flags (a parse drops from ~150-450 ms to ~40-70 ms).

The PCH lives in the user's cache directory, keyed by libclang and cudalint versions, the flags
and the shim's contents; a sidecar lists the headers it read with their mtimes and sizes, and a
changed header means a rebuild. Files that `#define` something before their first declaration
and then include a header are parsed without it, since a PCH is included before the file's own
text (a `#define TILE 16` after the includes is harmless; `#define _USE_MATH_DEFINES` before
`<cmath>` is not).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import clang.cindex as ci

from cudalint import __version__
from cudalint.frontend import clang as cx
from cudalint.frontend.flags import COMPAT_DIR, SHIM_DIR

PRELUDE = "".join(f"#include <{h}>\n" for h in (
    "cstdio", "cstdlib", "cstdint", "cstring", "cmath", "climits", "cfloat", "cassert", "vector",
    "algorithm", "memory", "utility", "type_traits", "cuda_runtime.h", "cuda_fp16.h")) + "".join(
    # what real CUDA programs include beside those (HeCBench's mains: timing, I/O, containers); each
    # only where the system has it, so that a missing one costs the prelude nothing
    f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in (
        "iostream", "string", "chrono", "random", "map", "iomanip", "fstream", "sstream", "numeric",
        "functional", "unordered_map", "set", "limits", "ctime", "sys/time.h"))
_MACRO = re.compile(r"^\s*#\s*(define|undef)\b")
_INCLUDE = re.compile(r"^\s*#\s*include\b")


def cache_dir() -> Path:
    base = os.environ.get("CUDALINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudalint")
    return Path(base) / "pch"


def usable_for(text: str) -> bool:
    """False when the file defines a macro and includes a header after it: the macro could
    change what the prelude's headers declare."""
    defined = False
    for line in text.splitlines():
        if _MACRO.match(line):
            defined = True
        elif defined and _INCLUDE.match(line):
            return False
    return True


def pch_args(args: list[str]) -> list[str]:
    """['-include-pch', PATH] for these flags, building the PCH first if needed; [] on failure."""
    path = _pch_for(tuple(args))
    return ["-include-pch", path] if path else []


@lru_cache(maxsize=None)
def _pch_for(args: tuple) -> str | None:
    key = hashlib.sha256("\0".join((cx.version(), __version__, _shim_stamp(), PRELUDE, *args)).encode()).hexdigest()[:24]
    folder = cache_dir()
    pch, sidecar = folder / f"prelude-{key}.pch", folder / f"prelude-{key}.json"
    if pch.is_file() and _fresh(sidecar):
        return str(pch)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return _build(list(args), pch, sidecar)
    except (OSError, ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        return None


def _build(args, pch: Path, sidecar: Path) -> str | None:
    # The PCH refers to its header, which must stay unchanged: one per prelude text, written once.
    header = pch.parent / f"cudalint_prelude-{hashlib.sha256(PRELUDE.encode()).hexdigest()[:12]}.cuh"
    with tempfile.TemporaryDirectory(dir=pch.parent) as tmp:
        if not header.is_file():
            (Path(tmp) / "h").write_text(PRELUDE)
            os.replace(Path(tmp) / "h", header)
        tu = cx.new_index().parse(str(header), args=args, options=cx.KEEP_GOING)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return None  # a header the toolkit lacks: parse without a prelude
        out = Path(tmp) / "prelude.pch"
        tu.save(str(out))
        deps = sorted({inc.include.name for inc in tu.get_includes()})
        stamps = [(d, *_stat(d)) for d in deps]
        os.replace(out, pch)
        sidecar.write_text(json.dumps(stamps))
    return str(pch)


def headers_of(pch: str) -> list[str]:
    """The headers a prelude PCH was built from (its sidecar), for cache dependency checks."""
    try:
        return [row[0] for row in json.loads(Path(pch).with_suffix(".json").read_text())]
    except (OSError, ValueError, TypeError, IndexError):
        return []


def _stat(path):
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


def _fresh(sidecar: Path) -> bool:
    try:
        for path, mtime, size in json.loads(sidecar.read_text()):
            if _stat(path) != (mtime, size):
                return False
        return True
    except (OSError, ValueError, TypeError):
        return False


@lru_cache(maxsize=1)
def _shim_stamp() -> str:
    h = hashlib.sha256()
    for folder in (SHIM_DIR, COMPAT_DIR):
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                h.update(p.relative_to(folder.parent).as_posix().encode())
                h.update(p.read_bytes())
    return h.hexdigest()
