"""JSON: an array of findings, each exactly as DESIGN.md's contract lists."""

from __future__ import annotations

import json


def render(findings, run) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"
