"""Rule metadata: stable codes, kebab names, contract categories, documented sections, and the
README's rules table kept in sync with the registry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudalint.cli import main
from cudalint.registry import CATEGORIES, DOC_SECTIONS, all_rules

README = Path(__file__).resolve().parent.parent / "README.md"
RULES = list(all_rules().values())


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_metadata(rule):
    assert re.fullmatch(r"CUDA\d{3}", rule.code)
    assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", rule.name)
    assert rule.category in CATEGORIES
    assert rule.severity in ("error", "warning", "note")
    for section in DOC_SECTIONS:
        assert re.search(rf"^## {re.escape(section)}$", rule.doc, re.M), f"{rule.code} lacks '## {section}'"


def test_readme_rules_table_matches_registry():
    rows = re.findall(r"^\| `(CUDA\d{3})` \| `([a-z0-9-]+)` \| `([a-z-]+)` \| (\w+) \|", README.read_text(), re.M)
    assert rows == [(r.code, r.name, r.category, r.severity) for r in RULES]


def test_rule_command_prints_the_doc(capsys):
    assert main(["rule", "CUDA101"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# CUDA101 misaligned-vector-access\n")
    assert "## Why is this bad?" in out and "## GPU confirmation" in out


def test_rules_command_lists_every_rule(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [r.code for r in RULES]


def test_rule_command_unknown_code(capsys):
    assert main(["rule", "CUDA999"]) == 2
    assert "unknown rule code or prefix" in capsys.readouterr().err
