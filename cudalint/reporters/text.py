"""Human output: `path:line:col: CODE message`, a code frame with carets, a summary line."""

from __future__ import annotations

import io
from collections import Counter

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from cudalint.findings import SEVERITIES

_STYLE = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan"}


def render(findings, run) -> str:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=run.color, no_color=not run.color, width=run.width,
                  highlight=False, soft_wrap=True)
    for f in findings:
        head = Text()
        head.append(f"{f.path}:{f.line}:{f.column}: ", style="bold")
        head.append(f.rule, style=_STYLE.get(f.severity, "bold"))
        head.append(f" [{f.severity}] ", style=_STYLE.get(f.severity, ""))
        head.append(f.message)
        con.print(head)
        if not run.quiet:
            _frame(con, f, run.source(f.path))
            for r in f.related:
                con.print(Text(f"   = note: {r.path}:{r.line}:{r.column}: {r.message}", style="dim"))
            if f.confirmation:
                c = f.confirmation
                con.print(Text(f"   = gpu: {c.status} ({c.method}): {c.detail}",
                               style="green" if c.status == "confirmed" else "dim"))
            con.print()
    con.print(Text(summary(findings, run), style="bold"))
    return buf.getvalue()


def _frame(con, f, lines):
    if not lines or not (0 < f.line <= len(lines)):
        return
    src = lines[f.line - 1].rstrip("\n").expandtabs(1)
    gutter = " " * len(str(f.line))
    start = max(f.column, 1)
    end = f.end_column if f.end_line == f.line and f.end_column > start else len(src) + 1
    con.print(Text(f"{gutter} |", style="blue"))
    row = Text(f"{f.line} | ", style="blue")
    row.append(src)
    con.print(row)
    caret = Text(f"{gutter} | ", style="blue")
    # columns count characters; wide ones (CJK) take two terminal cells
    pad, width = cell_len(src[:start - 1]) + max(0, start - 1 - len(src)), cell_len(src[start - 1:end - 1])
    caret.append(" " * pad + "^" * max(1, width), style=_STYLE.get(f.severity, "bold"))
    con.print(caret)


def summary(findings, run) -> str:
    if not findings:
        return f"No findings in {_files(run.files_checked)}."
    sev = Counter(f.severity for f in findings)
    parts = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s in SEVERITIES if (n := sev[s]))
    n = len(findings)
    files = len({f.path for f in findings})
    return f"Found {n} finding{'s' if n != 1 else ''} ({parts}) in {_files(files)}; {_files(run.files_checked)} checked."


def _files(n):
    return f"{n} file{'s' if n != 1 else ''}"
