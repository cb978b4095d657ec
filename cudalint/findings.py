"""What rules produce: plain frozen records, independent of how they are reported; and how the
reports name them for other machines.

SARIF, GitHub annotations, JUnit and baselines name files relative to the project root
(cudalint.project finds it), not to wherever cudalint ran; text and JSON output keep paths as
given on the command line. A finding's fingerprint (baselines, SARIF `partialFingerprints`) is
its rule, that project-relative path and the normalised text of the flagged line, so it survives
code moving up or down the file.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath

SEVERITIES = ("error", "warning", "note")  # the one order, most severe first
REPOSITORY_URL = "https://github.com/cudalint/cudalint"  # where the rules' documentation lives
DOCS_BRANCH = "main"


@dataclass(frozen=True)
class Related:
    path: str
    line: int
    column: int
    message: str


VIA_NOTE = "reached through this call"  # a related location on each call a finding was inlined through


def calls_through(event) -> list[Related]:
    """The call sites an access, barrier or warp call was inlined through (its `via`, outermost
    first), as a finding's related locations; --confirm builds the kernel from the first one's file."""
    return [Related(v.path, v.line, v.column, VIA_NOTE) for v in event.via]


@dataclass(frozen=True)
class Confirmation:
    status: str  # confirmed | not-reproduced | unsupported | error
    method: str
    detail: str


@dataclass(frozen=True)
class Finding:
    rule: str
    name: str
    category: str
    severity: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    kernel: str | None = None
    related: tuple[Related, ...] = ()
    confirmation: Confirmation | None = None
    properties: tuple = field(default=(), compare=False)  # extra (key, value) pairs, e.g. witness

    def to_dict(self) -> dict:
        d = asdict(self)
        d["related"] = [asdict(r) for r in self.related]
        d["confirmation"] = asdict(self.confirmation) if self.confirmation else None
        d.pop("properties")
        return d

    def with_(self, **changes) -> "Finding":
        return replace(self, **changes)

    def sort_key(self):
        return (self.path, self.line, self.column, self.rule, self.message)


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


def _normalise(line_text: str) -> str:
    return re.sub(r"\s+", " ", line_text).strip()


def fingerprint(rule: str, path: str, line_text: str) -> str:
    """A stable hash of rule + project-relative POSIX path + the normalised source line text."""
    h = hashlib.sha256(f"{rule}\0{path}\0{_normalise(line_text)}".encode("utf-8"))
    return h.hexdigest()[:32]
