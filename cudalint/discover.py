"""Which files to analyse: explicit files as given, directories walked with .gitignore honoured."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec


def gitignore_spec(lines) -> pathspec.PathSpec:
    """A PathSpec with .gitignore semantics (named `gitignore` in newer pathspec releases)."""
    try:
        return pathspec.PathSpec.from_lines("gitignore", lines)
    except (KeyError, LookupError):
        return pathspec.PathSpec.from_lines("gitwildmatch", lines)


def discover(paths: list[str], extensions: tuple[str, ...], exclude: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(files, problems). Explicit files are taken whatever their extension (pre-commit passes
    them one by one); directories contribute files with one of `extensions`."""
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
    specs: list[tuple[str, pathspec.PathSpec]] = []
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
            if name.endswith(extensions) and not ignored(full):
                out.append(full)
    return out
