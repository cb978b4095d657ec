"""A precompiled prelude: the CUDA headers and the common C++ headers parsed once into a PCH and
reused by every file parsed with the same flags (a parse drops from ~150-450 ms to ~40-70 ms);
files that reach CUB, Thrust or libcu++ (`<cuda/atomic>`) get a second one that holds those too
(2-3 s to ~0.3 s; 0.5 s to 0.1 s for `<cuda/atomic>`).

The prelude holds its headers' declarations, not their function bodies: the rules walk the
user's kernels and host functions, and call into the CUDA runtime, the C++ library, CUB and
Thrust without walking them. A file's calls into those templates then instantiate declarations
only (a file that calls Thrust parses in 0.13 s, not 0.45 s), and the PCH loads in 23 ms, not 28.

The PCH lives in the user's cache directory, keyed by libclang and cudalint versions, the flags
and the shim's contents; a sidecar lists the headers it read with their mtimes and sizes, and a
changed header means a rebuild. A PCH is included before the file's own text, so a file that
`#define`s a macro and then includes a header is parsed without it where the macro could change
what the prelude declares: where the prelude's headers name it (their identifiers are kept beside
the PCH, `.names`). `#define nx 680` before `#include "kernel.h"` keeps the prelude;
`#define N 4` before `#include <vector>` does not (libstdc++ names template parameters `N`).
A file that starts with such macros (`#define CUB_STDERR`, then its includes) gets a variant of
the prelude built with those macros first, as its own text would have them (rle: 2.7 s to 0.1 s).
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
from cudalint.frontend.depth import COMMENT_OR_LITERAL
from cudalint.frontend.flags import COMPAT_DIR, SHIM_DIR

PRELUDE = "".join(f"#include <{h}>\n" for h in (
    "cstdio", "cstdlib", "cstdint", "cstring", "cmath", "climits", "cfloat", "cassert", "vector",
    "algorithm", "memory", "utility", "type_traits", "cuda_runtime.h", "cuda_fp16.h")) + "".join(
    # what real CUDA programs include beside those (HeCBench's mains: timing, I/O, containers); each
    # only where the system has it, so that a missing one costs the prelude nothing
    f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in (
        "iostream", "string", "chrono", "random", "map", "iomanip", "fstream", "sstream", "numeric",
        "functional", "unordered_map", "set", "limits", "ctime", "sys/time.h"))
# CUB, Thrust and libcu++: a few hundred headers that take a parse 2-3 s; files that reach them
# (directly or through their own headers) get a prelude that holds them too
CCCL_PRELUDE = PRELUDE + "".join(f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in (
    "cub/cub.cuh", "thrust/device_vector.h", "thrust/host_vector.h", "thrust/device_ptr.h",
    "thrust/execution_policy.h", "thrust/functional.h", "thrust/sort.h", "thrust/reduce.h",
    "thrust/transform_reduce.h", "thrust/transform.h", "thrust/scan.h", "thrust/sequence.h",
    "thrust/copy.h", "thrust/fill.h", "thrust/count.h", "thrust/extrema.h", "thrust/unique.h",
    "thrust/binary_search.h", "thrust/gather.h", "thrust/scatter.h", "thrust/for_each.h",
    "thrust/inner_product.h", "thrust/iterator/counting_iterator.h", "thrust/iterator/zip_iterator.h",
    # libcu++, CCCL's C++ library for the device, a few hundred headers too
    "cuda/atomic", "cuda/barrier", "cuda/pipeline"))
BODIES = "declarations only"  # part of the PCH's key: those built with bodies are rebuilt
_CCCL_INCLUDE = re.compile(r'^\s*#\s*include\s*<(cub|thrust|cuda)/', re.M)
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
MAX_SCANNED = 64  # own headers read to see whether a file reaches CUB, Thrust or libcu++
_MACRO = re.compile(r"^\s*#\s*(define|undef)\s+(\w+)")
_INCLUDE = re.compile(r"^\s*#\s*include\b")
_IFNDEF = re.compile(r"^\s*#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(?P<n>\w+))")


def cache_dir() -> Path:
    base = os.environ.get("CUDALINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudalint")
    return Path(base) / "pch"


def usable_for(text: str, names: frozenset | None = None) -> bool:
    """False when the file defines (or undefines) a macro and includes a header after it, where
    the macro could change what the prelude's headers declare: with `names`, the identifiers
    those headers hold, only a macro of such a name can (a macro changes only the text that
    names it); without, any macro. An include guard (`#ifndef X` then `#define X`) changes nothing."""
    defined, guard = set(), None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _MACRO.match(line)
        if m and not (guard and re.match(rf"^\s*#\s*define\s+{re.escape(guard)}\s*$", line)):
            defined.add(m.group(2))
        elif defined and _INCLUDE.match(line) and (names is None or not defined.isdisjoint(names)):
            return False
        m = _IFNDEF.match(line)
        guard = (m.group(1) or m.group("n")) if m else None
    return True


def reaches_cccl(path: str, text: str, include_dirs) -> bool:
    """Whether the file includes CUB, Thrust or libcu++, itself or through its own `#include "…"` headers
    (found beside the including file or in `include_dirs`), each of which may take the prelude
    (usable_for): a header that defines a macro before an include is parsed as it is."""
    seen, todo = set(), [(os.path.dirname(os.path.abspath(path)), text)]
    while todo and len(seen) < MAX_SCANNED:
        here, body = todo.pop()
        if _CCCL_INCLUDE.search(body):
            return True
        for name in _LOCAL_INCLUDE.findall(body):
            for d in (here, *include_dirs):
                cand = os.path.normpath(os.path.join(d, name))
                if cand in seen or not os.path.isfile(cand):
                    continue
                seen.add(cand)
                try:
                    with open(cand, encoding="utf-8", errors="replace") as fh:
                        inner = fh.read()
                except OSError:
                    break
                if not usable_for(inner):
                    return False
                todo.append((os.path.dirname(cand), inner))
                break
    return False


def pch_args_for(path: str, text: str, args: list[str], include_dirs) -> list[str]:
    """['-include-pch', PATH] for a file, building the PCH first if needed: the prelude with CUB and
    Thrust where the file reaches them, else (or where that one cannot be built) the plain one,
    each only where no macro the file defines before an include names something in its headers
    (usable_for); [] for none."""
    preludes = ([CCCL_PRELUDE] if reaches_cccl(path, text, include_dirs) else []) + [PRELUDE]
    for prelude_text in preludes:
        pch = _pch_for(tuple(args), prelude_text)
        if not pch:
            continue
        names = names_of(pch)
        if usable_for(text, names):
            return ["-include-pch", pch]
        head = leading_macros(text, names)
        variant = _pch_for(tuple(args), head + prelude_text, VARIANT) if head else None
        if variant:
            return ["-include-pch", variant]
    return []


def leading_macros(text: str, names: frozenset | None) -> str | None:
    """The lines of a prelude variant for a file that starts by configuring a header the prelude
    holds (`#define CUB_STDERR` before `#include <cub/cub.cuh>`): the `#define` and `#undef` lines
    before its first `#include` whose macros the prelude's headers name. None where there are none,
    where the start holds anything else (code, a conditional, a continued line, a kept macro
    whose value names another of the file's macros), or where the file defines such a macro again
    before a later include (usable_for)."""
    if names is None:
        return None
    lines, head = text.splitlines(), []
    for n, code in enumerate(COMMENT_OR_LITERAL.sub(_comment_blanked, text).splitlines()):
        if not code.strip():
            continue
        if _INCLUDE.match(code):
            break
        m = _MACRO.match(code)
        if not m or code.rstrip().endswith("\\"):
            return None
        head.append((m.group(2), code.strip()))
    else:
        return None
    kept = [line for name, line in head if name in names]
    others = {name for name, _ in head if name not in names}
    if not kept or any(others & set(_IDENTIFIER.findall(line)[2:]) for line in kept) or \
            not usable_for("\n".join(lines[n:]), names):
        return None
    return "".join(line + "\n" for line in kept)


def _comment_blanked(m) -> str:
    """A comment as blank space that keeps its line breaks; a literal as it is."""
    text = m.group(0)
    return text if text[0] in "\"'" else "\n" * text.count("\n") or " "


VARIANT = "variant"  # a prelude with a file's leading macros (leading_macros)
MAX_VARIANTS = 16  # kept in the cache at most: each is 15-50 MB; past that, such files parse without one


@lru_cache(maxsize=None)
def _pch_for(args: tuple, text: str = PRELUDE, kind: str = "prelude") -> str | None:
    parts = (cx.version(), __version__, _shim_stamp(), text, BODIES, *args)
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    folder = cache_dir()
    pch, sidecar = folder / f"{kind}-{key}.pch", folder / f"{kind}-{key}.json"
    if pch.is_file() and _fresh(sidecar):
        return str(pch)
    if kind == VARIANT and not pch.is_file() and len(list(folder.glob(f"{VARIANT}-*.pch"))) >= MAX_VARIANTS:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return _build(list(args), pch, sidecar, text)
    except (OSError, ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        return None


def _build(args, pch: Path, sidecar: Path, text: str = PRELUDE) -> str | None:
    # The PCH refers to its header, which must stay unchanged: one per prelude text, written once.
    header = pch.parent / f"cudalint_prelude-{hashlib.sha256(text.encode()).hexdigest()[:12]}.cuh"
    with tempfile.TemporaryDirectory(dir=pch.parent) as tmp:
        if not header.is_file():
            (Path(tmp) / "h").write_text(text)
            os.replace(Path(tmp) / "h", header)
        tu = cx.new_index().parse(str(header), args=args, options=cx.KEEP_GOING | cx.SKIP_FUNCTION_BODIES)
        deps = sorted({inc.include.name for inc in tu.get_includes()})
        if _own_headers(deps, args):  # a project's own copy of CUB (`-I third_party`): its code, walked
            tu = cx.new_index().parse(str(header), args=args, options=cx.KEEP_GOING)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return None  # a header the toolkit lacks: parse without a prelude
        out = Path(tmp) / "prelude.pch"
        tu.save(str(out))
        stamps = [(d, *_stat(d)) for d in deps]
        os.replace(out, pch)
        sidecar.write_text(json.dumps(stamps))
    return str(pch)


def _own_headers(deps: list[str], args) -> bool:
    """Whether a header of the prelude was found in a directory of the project's `-I` flags
    rather than the toolkit's or the system's (whose headers the rules never walk into)."""
    dirs = [a[2:] or b for a, b in zip(args, [*args[1:], ""]) if a.startswith("-I")]
    dirs = [os.path.realpath(d) + os.sep for d in dirs if d]
    return any(os.path.realpath(dep).startswith(d) for dep in deps for d in dirs)


@lru_cache(maxsize=None)
def names_of(pch: str) -> frozenset | None:
    """The identifiers of the headers a prelude PCH was built from (kept beside it: a few hundred
    headers take a few tenths of a second to read); None when they cannot be read."""
    kept = Path(pch).with_suffix(".names")
    try:
        return frozenset(kept.read_text().split())
    except OSError:
        pass
    names = set()
    try:
        for header in headers_of(pch) or [None]:
            with open(header, encoding="utf-8", errors="replace") as fh:
                names.update(_IDENTIFIER.findall(fh.read()))
    except (OSError, TypeError):
        return None  # no sidecar, or a header gone: every macro counts (usable_for)
    try:
        with tempfile.NamedTemporaryFile("w", dir=kept.parent, delete=False, suffix=".tmp") as fh:
            fh.write("\n".join(sorted(names)))
        os.replace(fh.name, kept)
    except OSError:
        pass  # a read-only cache: read them again next time
    return frozenset(names)


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@lru_cache(maxsize=None)
def headers_of(pch: str) -> tuple[str, ...]:
    """The headers a prelude PCH was built from (its sidecar), resolved (os.path.realpath), for
    cache dependency checks: read once per process, not for each file parsed with it."""
    try:
        return resolved(row[0] for row in json.loads(Path(pch).with_suffix(".json").read_text()))
    except (OSError, ValueError, TypeError, IndexError):
        return ()


def resolved(paths) -> tuple[str, ...]:
    """os.path.realpath of each path, each directory resolved once: realpath takes an lstat per
    component of each path (the prelude's 1,800 headers in a few dozen directories: 0.06-0.09 s
    in every worker of every pass, now 0.01 s)."""
    dirs: dict = {}
    out = []
    for path in paths:
        head, name = os.path.split(path)  # not normalised: ".." follows the links before it
        if head not in dirs:
            dirs[head] = os.path.realpath(head)
        if name in ("", ".", "..") or os.path.islink(path):
            out.append(os.path.realpath(path))
        else:
            out.append(os.path.join(dirs[head], name))
    return tuple(out)


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
