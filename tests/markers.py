"""Fixture expectation markers: `// expect: CODE ["text"], ...` and `// ok: CODE, ...`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Findings must not depend on how loaded the test machine is: the per-file time budget (20 s by
# default) is raised far above any fixture's time, as a safety limit only.
FIXTURE_BUDGET_S = 600.0
FIXTURE_SOLVER_TIMEOUT_MS = 60_000  # likewise each z3 query's (2 s by default): a timeout drops a finding
_MARKER = re.compile(r"//\s*(expect|ok):\s*(.*)$")
_ITEM = re.compile(r'(CUDA\d{3})(?:\s+"([^"]*)")?')


@dataclass(frozen=True)
class Marker:
    line: int
    kind: str  # expect | ok
    code: str
    text: str | None


def markers(path: Path) -> list[Marker]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _MARKER.search(line)
        if m:
            out += [Marker(n, m.group(1), code, text or None) for code, text in _ITEM.findall(m.group(2))]
    return out


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".cu", ".cuh"))
