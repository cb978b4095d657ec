"""Which files to analyse: explicit files as given, directories walked with .gitignore honoured."""

from __future__ import annotations

import os
import re
from pathlib import Path

# pathspec is imported where patterns are compiled: files named on the command line (pre-commit)
# with no exclude patterns need none.


def gitignore_spec(lines):
    """A pathspec.PathSpec with .gitignore semantics (named `gitignore` in newer pathspec releases)."""
    import pathspec
    try:
        return pathspec.PathSpec.from_lines("gitignore", lines)
    except (KeyError, LookupError):
        return pathspec.PathSpec.from_lines("gitwildmatch", lines)


def discover(paths: list[str], extensions: tuple[str, ...], exclude: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(files, problems). Explicit files are taken whatever their extension (pre-commit passes
    them one by one); directories contribute files with one of `extensions`, and C++ sources
    (HOST_EXTENSIONS) that call the CUDA runtime."""
    files, problems, seen = [], [], set()
    excluded = gitignore_spec(exclude) if exclude else None

    def add(p: str):
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            files.append(p)

    for raw in paths:
        p = Path(raw)
        if not p.exists():
            problems.append(f"{raw}: no such file or directory")
        elif p.is_file():
            add(raw)
        elif p.is_dir():
            found = [f for f in _walk(p, extensions) if not (excluded and excluded.match_file(os.path.relpath(f, raw)))]
            if not found:
                problems.append(f"{raw}: no CUDA files ({', '.join(extensions)}) found")
            for f in found:
                add(f)
        else:
            problems.append(f"{raw}: not a regular file or directory")
    return files, problems


def _walk(root: Path, extensions) -> list[str]:
    out = []
    specs = []  # (directory, its .gitignore as a PathSpec)
    for dirpath, dirnames, filenames in os.walk(root):
        gi = os.path.join(dirpath, ".gitignore")
        if os.path.isfile(gi):
            try:
                with open(gi, encoding="utf-8", errors="replace") as fh:
                    specs.append((dirpath, gitignore_spec(fh)))
            except OSError:
                pass

        def ignored(path, is_dir=False):
            for base, spec in specs:
                if path.startswith(base):
                    rel = os.path.relpath(path, base) + ("/" if is_dir else "")
                    if spec.match_file(rel):
                        return True
            return False

        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "node_modules")
                             and not ignored(os.path.join(dirpath, d), True))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if ignored(full):
                continue
            if name.endswith(extensions) or name.endswith(HOST_EXTENSIONS) and _calls_cuda(full):
                out.append(full)
    return out


# C++ sources whose host code may own CUDA memory (SobolQRNG frees its `new[]` in sobol.cpp): a
# directory contributes those that call the runtime API; the device rules find nothing in them.
HOST_EXTENSIONS = (".cpp", ".cc", ".cxx")
_RUNTIME_CALL = rb"\bcuda[A-Z]\w*\s*\("
_CALLS_RUNTIME = re.compile(_RUNTIME_CALL)


def _calls_cuda(path: str) -> bool:
    return bool(_mentions(path, _CALLS_RUNTIME))


def _mentions(path: str, pattern) -> bool | None:
    """Whether the file's bytes match `pattern`; None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return bool(pattern.search(fh.read()))
    except OSError:
        return None


# What only CUDA code (device code, launches or the runtime API) has; a header without any of it
# holds nothing any rule looks at.
_CUDA_MARK = re.compile(rb"__global__|__device__|__shared__|__constant__|__managed__|<<<|" + _RUNTIME_CALL)


def without_cuda(files: list[str], paths: list[str], extensions: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(files to check, files skipped): a file named on the command line without a CUDA extension
    (a `.h`/`.hpp` pre-commit passes) is checked only when it holds CUDA code. Plain C/C++
    headers are often not self-contained, and parsed alone they would only give parse errors."""
    explicit = {os.path.realpath(p) for p in paths if os.path.isfile(p)}
    keep, skipped = [], []
    for f in files:
        if f.endswith(extensions) or os.path.realpath(f) not in explicit:
            keep.append(f)
            continue
        found = _mentions(f, _CUDA_MARK)
        (keep if found is not False else skipped).append(f)  # unreadable: reported as such by the run
    return keep, skipped


def drop_excluded(files, paths, config, extra, force) -> list[str]:
    """Drop files matching the config's `exclude` (relative to its directory) or --exclude (relative
    to the current directory). Files named on the command line stay unless --force-exclude."""
    patterns = []  # (the directory they are relative to, globs)
    if config.get("exclude"):
        patterns.append((str(config.root), config.get("exclude")))
    if extra:
        patterns.append((os.getcwd(), extra))
    if not patterns:
        return files
    import pathspec
    specs = [(root, pathspec.GitIgnoreSpec.from_lines(globs)) for root, globs in patterns]
    explicit = {os.path.realpath(p) for p in paths if os.path.isfile(p)}
    out = []
    for f in files:
        real = os.path.realpath(f)
        if real in explicit and not force:
            out.append(f)
            continue
        if any(matches(spec, root, f) for root, spec in specs):
            continue
        out.append(f)
    return out


def matches(spec, root: str, path: str) -> bool:
    """Whether `spec` (globs relative to `root`) matches `path`; a path outside `root` by its name."""
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return spec.match_file(os.path.basename(path))
    return spec.match_file(rel.replace(os.sep, "/"))
