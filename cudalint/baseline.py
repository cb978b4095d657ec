"""Baselines: accept today's findings, report only new ones.

An entry is keyed by rule + path (relative to the project root, cudalint.project, so a baseline
written at the top of a repository matches when cudalint runs in a subdirectory) + a fingerprint of the flagged line's normalised text + an
occurrence index (the n-th finding with that rule, path and fingerprint), not by line number, so
entries survive code moving up or down the file. Entries that no longer match anything are stale:
cudalint says so on stderr, so the baseline only shrinks.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from cudalint.findings import Finding, fingerprint, project_path

FORMAT_VERSION = 1


def keyed(findings: list[Finding], source, root: Path) -> list[tuple[tuple, Finding]]:
    """((rule, path, fingerprint, occurrence), finding) for each finding, in order, `path`
    relative to `root`. `source(path)` returns the file's lines."""
    seen: Counter = Counter()
    out = []
    for f in findings:
        lines = source(f.path)
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        path = project_path(f.path, root)
        base = (f.rule, path, fingerprint(f.rule, path, text))
        occ = seen[base]
        seen[base] += 1
        out.append(((*base, occ), f))
    return out


def write(path: str, findings: list[Finding], source, root: Path) -> int:
    entries = [{"rule": k[0], "path": k[1], "fingerprint": k[2], "occurrence": k[3],
                "line": f.line, "message": f.message} for k, f in keyed(findings, source, root)]
    data = {"tool": "cudalint", "version": FORMAT_VERSION, "entries": entries}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, path)
    return len(entries)


def load(path: str) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{path}: baseline is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION or not isinstance(data.get("entries"), list):
        raise ValueError(f"{path}: not a cudalint baseline (version {FORMAT_VERSION}); "
                         "write one with --write-baseline")
    for e in data["entries"]:
        if not isinstance(e, dict) or not all(k in e for k in ("rule", "path", "fingerprint", "occurrence")):
            raise ValueError(f"{path}: malformed baseline entry: {e!r}")
    return data["entries"]


def apply(entries: list[dict], findings: list[Finding], source, root: Path,
          checked: list[str] | None = None) -> tuple[list[Finding], int, list[dict]]:
    """(new findings, number matched by the baseline, stale entries). Only entries for files in
    `checked` (when given) can be stale: a pre-commit run sees a few files, not the baseline's all."""
    remaining = {(e["rule"], e["path"], e["fingerprint"], e["occurrence"]): e for e in entries}
    new, matched = [], 0
    for key, f in keyed(findings, source, root):
        if key in remaining:
            del remaining[key]
            matched += 1
        else:
            new.append(f)
    stale = list(remaining.values())
    if checked is not None:
        seen = {project_path(p, root) for p in checked}
        stale = [e for e in stale if e["path"] in seen]
    return new, matched, stale
