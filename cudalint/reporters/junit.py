"""JUnit XML: one `<testsuite>` per file with findings, one failing `<testcase>` per finding;
a clean run is one passing test case (CI dashboards show a green run rather than an empty one)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby

from cudalint.baseline import rel_path


def render(findings, run) -> str:
    root = ET.Element("testsuites", name="cudalint", tests=str(max(len(findings), 1)),
                      failures=str(len(findings)), errors="0")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="cudalint", tests="1", failures="0", errors="0",
                              skipped="0")
        ET.SubElement(suite, "testcase", name="No findings", classname="cudalint")
    by_path = sorted(findings, key=lambda f: rel_path(f.path))
    for path, group in groupby(by_path, key=lambda f: rel_path(f.path)):
        group = list(group)
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(group)), failures=str(len(group)),
                              errors="0", skipped="0")
        for f in group:
            case = ET.SubElement(suite, "testcase", name=f"{f.rule} {f.name}", classname=path,
                                 file=path, line=str(f.line))
            fail = ET.SubElement(case, "failure", message=f.message, type=f.rule)
            lines = [f"{path}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}"]
            lines += [f"  note: {rel_path(r.path)}:{r.line}:{r.column}: {r.message}" for r in f.related]
            fail.text = _xml_safe("\n".join(lines))
            fail.set("message", _xml_safe(f.message))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _xml_safe(s: str) -> str:
    """Drop characters XML 1.0 cannot hold (control characters from odd sources)."""
    return "".join(ch for ch in s if ch in "\t\n\r" or (" " <= ch <= "\ud7ff") or ("\ue000" <= ch <= "\ufffd")
                   or ch >= "\U00010000")
