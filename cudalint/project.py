"""The project root, and paths relative to it.

Outputs read by other machines name files relative to the project, not to wherever cudalint ran:
SARIF (`uriBaseId` `%SRCROOT%`), GitHub annotations, JUnit and baselines. The root is the
nearest directory at or above the first path on the command line (or the current directory)
that holds `.git` — what GitHub resolves paths against — else the directory of the config file in
use, else the current directory. Text and JSON output keep paths as given on the command line.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

REPOSITORY_URL = "https://github.com/cudalint/cudalint"
DOCS_BRANCH = "main"


def find_root(start: str | os.PathLike | None, config=None) -> Path:
    here = Path(start or ".").resolve()
    if not here.is_dir():
        here = here.parent
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    if config is not None and getattr(config, "path", None) is not None:
        return Path(config.root).resolve()
    return Path.cwd().resolve()


def relative(path: str, root: Path) -> str | None:
    """The POSIX path of `path` relative to `root`, or None when it lies outside."""
    full = Path(os.path.abspath(path))
    try:
        rel = full.relative_to(root)
    except ValueError:
        try:  # the root itself may be reached through a symlink
            rel = Path(os.path.realpath(full)).relative_to(root)
        except ValueError:
            return None
    return PurePosixPath(*rel.parts).as_posix() if rel.parts else "."


def project_path(path: str, root: Path) -> str:
    """Relative to the root when inside it, else absolute (POSIX-style either way)."""
    rel = relative(path, root)
    return rel if rel is not None else Path(os.path.abspath(path)).as_posix()


def rule_doc_url(rule) -> str:
    """Where a rule's documentation lives: the docstring of its module, in the repository."""
    module = rule.check.__module__.rpartition(".")[2]
    return f"{REPOSITORY_URL}/blob/{DOCS_BRANCH}/rules/{module}.py"
