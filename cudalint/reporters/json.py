"""JSON: an array of findings, each exactly as DESIGN.md's contract lists. A file that was not
fully checked is one more entry of the same shape, category `not-checked` (cudalint.outcomes)."""

from __future__ import annotations

import json


def render(findings, run) -> str:
    entries = list(findings) + [g.as_finding() for g in run.gaps]
    return json.dumps([f.to_dict() for f in entries], indent=2) + "\n"
