"""SARIF 2.1.0, as GitHub code scanning reads it (research/style-and-ecosystem.md, Part 2 (a)).

- `tool.driver.rules` lists every registered rule (`run.rules`), with `help.text`/`help.markdown` from the rule's
  documentation and `helpUri` pointing at the rule module (whose docstring is that documentation)
  in the repository; results point into it with `ruleId` and `ruleIndex`.
- Artifact URIs are relative to the project root (cudalint.project: the repository holding the
  first path), with `uriBaseId` `%SRCROOT%`, which `run.originalUriBaseIds` maps to the root's
  absolute `file:` URI; a file outside the root (a system header) gets its absolute `file:` URI.
  No URI starts with `../`, wherever cudalint ran. Columns count code points (cudalint.columns).
- The message links every related location (`[text](id)`, SARIF §3.11.6; GitHub shows related
  locations only when the message links them). Square brackets and backslashes in message text
  are escaped with a backslash in every message, as the CodeQL CLI does, so `s[4]` never reads as
  a link.
- A race's witness (two threads, two accesses) is also a `codeFlow`: one `threadFlow` per thread.
- `partialFingerprints`: `primaryLocationLineHash` (the key GitHub matches alerts on across runs)
  and `cudalint/v1` (the same as baselines use), both from rule + project-relative path + the
  normalised text of the flagged line, plus the occurrence of that triple in the file: they
  survive code moving up or down the file.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from cudalint.findings import REPOSITORY_URL, fingerprint, project_path, relative

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = REPOSITORY_URL
SRCROOT = "%SRCROOT%"
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}
_RESERVED = ("name", "category", "kernel", "confirmation", "confirmed")  # result properties of our own


def artifact_location(path: str, root) -> dict:
    rel = relative(path, root)
    if rel is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(rel, safe="/._-~"), "uriBaseId": SRCROOT}


def _directory_uri(path) -> str:
    return Path(path).as_uri().rstrip("/") + "/"


def escape_text(s: str) -> str:
    """Plain message text with `\\`, `[` and `]` escaped, so only our links read as links."""
    return s.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _msg(text: str) -> dict:
    return {"text": escape_text(text)}


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
        "helpUri": r.doc_url,
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


def _message(f) -> str:
    text = escape_text(f.message)
    if f.related:
        links = "; ".join(f"[{escape_text(r.message)}]({i})" for i, r in enumerate(f.related, 1))
        text += f". Related locations: {links}."
    return text


def _snippet(f, run) -> str:
    lines = run.source(f.path)
    if f.end_line != f.line or not 0 < f.line <= len(lines) or f.end_column <= f.column:
        return ""
    return lines[f.line - 1][f.column - 1:f.end_column - 1]


def code_flows(f, primary: dict, run) -> list | None:
    """A race's two threads, each at its access: the flagged one (the result's location) and the
    one it races with (the first related location, as cudalint.analysis.race_report orders them)."""
    props = dict(f.properties)
    first, second = props.get("first_thread"), props.get("second_thread")
    if not (first and second and f.related):
        return None
    other = f.related[0]
    snippet = _snippet(f, run)
    here = f"{second}: this access" + (f" (`{snippet}`)" if snippet else "")
    return [{
        "message": _msg(f"{first} and {second} touch the same address; nothing orders the two accesses"),
        "threadFlows": [
            {"message": _msg(first), "locations": [{
                "location": {"physicalLocation": {"artifactLocation": artifact_location(other.path, run.root),
                                                  "region": _region(other.line, other.column)},
                             "message": _msg(f"{first}: {other.message}")},
                "importance": "essential"}]},
            {"message": _msg(second), "locations": [{
                "location": {"physicalLocation": primary, "message": _msg(here)},
                "importance": "essential"}]},
        ],
    }]


def _fingerprint(f, run) -> str:
    lines = run.source(f.path)
    return fingerprint(f.rule, project_path(f.path, run.root), lines[f.line - 1] if 0 < f.line <= len(lines) else "")


def _result(f, run, index, fp: str, occurrence: int) -> dict:
    primary = {"artifactLocation": artifact_location(f.path, run.root),
               "region": _region(f.line, f.column, f.end_line, f.end_column)}
    res = {
        "ruleId": f.rule,
        "level": f.severity,
        "message": {"text": _message(f)},
        "locations": [{"physicalLocation": primary}],
        "partialFingerprints": {"primaryLocationLineHash": f"{fp[:16]}:{occurrence + 1}",
                                "cudalint/v1": f"{fp}:{occurrence}"},
        "properties": {
            "name": f.name,
            "category": f.category,
            "kernel": f.kernel,
            "confirmation": ({"status": f.confirmation.status, "method": f.confirmation.method,
                              "detail": f.confirmation.detail} if f.confirmation else None),
            **{k: v for k, v in f.properties if k not in _RESERVED},
        },
    }
    if f.rule in index:
        res["ruleIndex"] = index[f.rule]
    if f.related:
        res["relatedLocations"] = [
            {"id": i, "message": _msg(r.message),
             "physicalLocation": {"artifactLocation": artifact_location(r.path, run.root),
                                  "region": _region(r.line, r.column)}}
            for i, r in enumerate(f.related, 1)]
    flows = code_flows(f, primary, run)
    if flows:
        res["codeFlows"] = flows
    if f.confirmation:
        res["properties"]["confirmed"] = f.confirmation.status == "confirmed"
    return res


def render(findings, run) -> str:
    rules = list(run.rules)
    index = {r.code: i for i, r in enumerate(rules)}
    occurrences: Counter = Counter()
    results = []
    for f in findings:
        fp = _fingerprint(f, run)
        results.append(_result(f, run, index, fp, occurrences[fp]))
        occurrences[fp] += 1
    notifications = [{
        "level": "error" if d.severity == "error" else "warning",
        "message": _msg(d.message),
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
