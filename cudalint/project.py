"""The project root: what outputs read by other machines (SARIF's `uriBaseId` `%SRCROOT%`,
GitHub annotations, JUnit, baselines) name files relative to (`cudalint.findings.project_path`).
It is the nearest directory at or above the first path on the command line (or
the current directory) that holds `.git` — what GitHub resolves paths against — else the
directory of the config file in use, else the current directory.
"""

from __future__ import annotations

import os
from pathlib import Path


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
