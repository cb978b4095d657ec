"""SARIF 2.1.0, as GitHub code scanning reads it (research/style-and-ecosystem.md, Part 2 (a)).

- `tool.driver.rules` lists every registered rule, with `help.text`/`help.markdown` from the rule's
  documentation; results point into it with `ruleId` and `ruleIndex`.
- Artifact URIs are relative to the project root (cudalint.project: the repository holding the
  first path), with `uriBaseId` `%SRCROOT%`, which `run.originalUriBaseIds` maps to the root's
  absolute `file:` URI; a file outside the root (a system header) gets its absolute `file:` URI.
  No URI starts with `../`, wherever cudalint ran.
- `partialFingerprints["cudalint/v1"]` is a hash of rule + path + the normalised text of the flagged
  line, plus `:n` for the n-th such finding: it survives code moving up or down the file.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from collections import Counter
from urllib.parse import quote

from cudalint.baseline import fingerprint
from cudalint.project import project_path, relative

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/cudalint/cudalint"
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


SRCROOT = "%SRCROOT%"


def artifact_location(path: str, root) -> dict:
    rel = relative(path, root)
    if rel is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(rel, safe="/._-~"), "uriBaseId": SRCROOT}


def _directory_uri(path) -> str:
    return Path(path).as_uri().rstrip("/") + "/"


def _section(doc: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\s*\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return m.group(1).strip() if m else ""


def rule_descriptor(r) -> dict:
    full = _section(r.doc, "What it does") or r.summary
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": full[:1024]},
        "help": {"text": r.doc or r.summary, "markdown": r.doc or r.summary},
        "defaultConfiguration": {"level": r.severity},
        "properties": {
            "precision": r.precision,
            "tags": list(dict.fromkeys((*r.tags, r.category)))[:20],
            "problem.severity": _PROBLEM_SEVERITY.get(r.severity, "warning"),
            "category": r.category,
        },
    }


def _region(line, column, end_line=None, end_column=None) -> dict:
    reg = {"startLine": max(line, 1)}
    if column:
        reg["startColumn"] = max(column, 1)
    if end_line and end_line >= reg["startLine"]:
        reg["endLine"] = end_line
        if end_column and (end_line > reg["startLine"] or end_column > reg.get("startColumn", 1)):
            reg["endColumn"] = end_column
    return reg


def render(findings, run) -> str:
    from cudalint.registry import all_rules
    rules = list(all_rules().values())
    index = {r.code: i for i, r in enumerate(rules)}
    occurrences: Counter = Counter()
    results = []
    for f in findings:
        lines = run.source(f.path)
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        fp = fingerprint(f.rule, project_path(f.path, run.root), text)
        occ = occurrences[fp]
        occurrences[fp] += 1
        res = {
            "ruleId": f.rule,
            "level": f.severity,
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(f.path, run.root),
                                                "region": _region(f.line, f.column, f.end_line, f.end_column)}}],
            "partialFingerprints": {"cudalint/v1": f"{fp}:{occ}"},
            "properties": {
                "name": f.name,
                "category": f.category,
                "kernel": f.kernel,
                "confirmation": ({"status": f.confirmation.status, "method": f.confirmation.method,
                                  "detail": f.confirmation.detail} if f.confirmation else None),
            },
        }
        if f.rule in index:
            res["ruleIndex"] = index[f.rule]
        if f.related:
            res["relatedLocations"] = [
                {"id": i, "message": {"text": r.message},
                 "physicalLocation": {"artifactLocation": artifact_location(r.path, run.root), "region": _region(r.line, r.column)}}
                for i, r in enumerate(f.related, 1)]
        if f.confirmation:
            res["properties"]["confirmed"] = f.confirmation.status == "confirmed"
        results.append(res)
    notifications = [{
        "level": "error" if d.severity == "error" else "warning",
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(d.path, run.root),
                                            **({"region": _region(d.line, d.column)} if d.line else {})}}],
    } for d in run.diagnostics]
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cudalint",
                "semanticVersion": run.version,
                "version": run.version,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(r) for r in rules],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(run.root)}},
            # false when a file was not fully checked: GitHub then shows the run as incomplete
            "invocations": [{"executionSuccessful": not run.gaps, "toolExecutionNotifications": notifications,
                             "workingDirectory": {"uri": _directory_uri(os.getcwd())}}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
