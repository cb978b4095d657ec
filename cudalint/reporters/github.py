"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding.

GitHub shows at most 10 error and 10 warning annotations per step (the rest are dropped silently),
so past that cudalint prints a `::notice` saying how many there are, and when
`$GITHUB_STEP_SUMMARY` is set it appends a Markdown table of every finding to the job summary.
Escaping follows actions/toolkit: data `%`, `\\r`, `\\n`; properties also `:` and `,`.
"""

from __future__ import annotations

import os
from collections import Counter

from cudalint.findings import SEVERITIES, project_path

SHOWN_PER_LEVEL = 10
SUMMARY_LIMIT = 1024 * 1024 - 4096  # GitHub rejects step summaries over 1 MiB
_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def annotation(f, root) -> str:
    """One workflow command; `file` relative to the project root, as GitHub resolves it."""
    props = [("file", project_path(f.path, root)), ("line", str(f.line)), ("col", str(f.column))]
    if f.end_line:
        props.append(("endLine", str(f.end_line)))
    if f.end_column:
        props.append(("endColumn", str(f.end_column)))
    props.append(("title", f"{f.rule} {f.name}"))
    body = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{_COMMAND.get(f.severity, 'warning')} {body}::{escape_data(f.message)}"


def render(findings, run) -> str:
    out = [annotation(f, run.root) for f in findings] + [annotation(g.as_finding(), run.root) for g in run.gaps]
    levels = Counter(_COMMAND.get(f.severity, "warning") for f in findings)
    over = {lvl: n for lvl, n in levels.items() if lvl in ("error", "warning") and n > SHOWN_PER_LEVEL}
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if over:
        counts = " and ".join(f"{n} {lvl}s" for lvl, n in sorted(over.items()))
        where = "the job summary" if summary_path else "the log above"
        msg = (f"cudalint found {counts}; GitHub shows only {SHOWN_PER_LEVEL} annotations of each level per step. "
               f"Every finding is listed in {where} (upload SARIF for code scanning to see all of them).")
        out.append(f"::notice title=cudalint::{escape_data(msg)}")
    if summary_path and findings:
        _write_summary(summary_path, findings, run)
    return "".join(line + "\n" for line in out)


def _cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def summary_markdown(findings, run) -> str:
    sev = Counter(f.severity for f in findings)
    head = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s in SEVERITIES if (n := sev[s]))
    rows = ["## cudalint", "", f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({head}) "
            f"in {run.files_checked} file{'s' if run.files_checked != 1 else ''} checked.", "",
            "| Location | Rule | Severity | Message |", "|---|---|---|---|"]
    size = sum(len(r) + 1 for r in rows)
    for i, f in enumerate(findings):
        row = (f"| `{_cell(project_path(f.path, run.root))}:{f.line}:{f.column}` | {f.rule} {f.name} | {f.severity} "
               f"| {_cell(f.message)} |")
        if size + len(row) + 200 > SUMMARY_LIMIT:
            rows.append(f"\n… and {len(findings) - i} more (the step summary is limited to 1 MiB).")
            break
        rows.append(row)
        size += len(row) + 1
    return "\n".join(rows) + "\n"


def _write_summary(path: str, findings, run) -> None:
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(summary_markdown(findings, run))
    except OSError:
        pass
