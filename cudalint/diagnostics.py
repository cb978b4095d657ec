"""Problems with the input itself, apart from the model: a cached run rebuilds them without
importing the model's many classes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """A problem with the input itself (not a finding): parse errors, unreadable files."""
    path: str
    line: int
    column: int
    severity: str  # error | warning
    message: str
    kind: str = "parse"  # parse | input | budget | limit | crash | depth (cudalint.outcomes says what each costs)
