"""Whether each file was fully checked, and how a file that was not shows in every output.

A file is *not fully checked* when any error-level diagnostic came with it: parse errors (code
the parser could not read is code no rule saw), an unreadable file, a file over its time budget,
a walker that found a function nested too deeply, a rule or a worker that crashed. Such a file is
never reported clean: each one becomes a `Gap`, which the reporters turn into a finding-shaped
JSON entry, a SARIF notification (with `executionSuccessful: false`), a GitHub `::error`, a JUnit
`<error>`, and a line in the text summary; the exit status is 2 unless `--exit-zero`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cudalint.findings import Finding

CATEGORY = "not-checked"
# kind of the first error -> (code, name) of the finding-shaped entry that stands for the file
_CODES = {"parse": ("CUDA001", "parse-error"), "input": ("CUDA003", "unreadable-file")}
_OTHER = ("CUDA002", "not-fully-checked")
_MISSING_HEADER = "file not found"


@dataclass(frozen=True)
class Gap:
    """One file that was not fully checked: the first reason, and how many errors there were."""
    path: str
    kind: str  # the Diagnostic kind of the first error (parse | input | budget | limit | crash | depth)
    line: int
    column: int
    message: str
    errors: int
    missing_header: bool  # a parse error said an #include was not found

    @property
    def code(self) -> str:
        return _CODES.get(self.kind, _OTHER)[0]

    @property
    def name(self) -> str:
        return _CODES.get(self.kind, _OTHER)[1]

    def reason(self) -> str:
        more = f" (and {self.errors - 1} more error{'s' if self.errors != 2 else ''})" if self.errors > 1 else ""
        return f"not fully checked: {self.message}{more}"

    def as_finding(self) -> Finding:
        """The gap in the shape of a finding, for JSON (the contract's array of findings)."""
        return Finding(self.code, self.name, CATEGORY, "error", self.path, max(self.line, 1), max(self.column, 1),
                       max(self.line, 1), max(self.column, 1), self.reason())


def gaps(results) -> list[Gap]:
    """A Gap for every result with an error-level diagnostic, in the order of `results`."""
    out = []
    for r in results:
        errors = [d for d in r.diagnostics if d.severity == "error"]
        if not errors:
            continue
        first = min(errors, key=lambda d: (d.kind == "parse", d.line == 0, d.line, d.column))
        missing = any(d.kind == "parse" and _MISSING_HEADER in d.message for d in errors)
        out.append(Gap(r.path, first.kind, first.line, first.column, first.message, _error_count(errors), missing))
    return out


def _error_count(errors) -> int:
    """parse.py keeps 20 errors and adds '... and N more errors': count those N as well."""
    n = 0
    for d in errors:
        words = d.message.split()
        n += int(words[2]) if d.message.startswith("... and ") and len(words) > 2 and words[2].isdigit() else 1
    return n


def summary_line(found: list[Gap]) -> str:
    """'3 files not fully checked: 2 with parse errors, 1 over the time budget; ...' or ''."""
    if not found:
        return ""
    labels = {"parse": "with parse errors", "input": "unreadable", "budget": "over the time budget",
              "crash": "where an analysis failed", "depth": "nested too deeply",
              "limit": "over a work limit"}
    kinds = Counter(g.kind for g in found)
    parts = ", ".join(f"{n} {labels.get(k, k)}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    n = len(found)
    line = f"{n} file{'s' if n != 1 else ''} not fully checked ({parts}); their findings may be incomplete."
    if any(g.missing_header for g in found):
        line += " Headers were not found: pass -I DIR, or -p BUILD_DIR for compile_commands.json."
    return line
