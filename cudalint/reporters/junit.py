"""JUnit XML: one `<testsuite>` per file with findings, one failing `<testcase>` per finding, and
a `<testcase>` with an `<error>` for a file that was not fully checked; a clean run is one passing
test case (CI dashboards show a green run rather than an empty one). Paths are relative to the
project root (cudalint.project), as test-report actions resolve them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby

from cudalint.findings import project_path


def render(findings, run) -> str:
    def rel_path(path: str) -> str:
        return project_path(path, run.root)

    gaps = {rel_path(g.path): g for g in run.gaps}
    root = ET.Element("testsuites", name="cudalint", tests=str(max(len(findings) + len(gaps), 1)),
                      failures=str(len(findings)), errors=str(len(gaps)))
    if not findings and not gaps:
        suite = ET.SubElement(root, "testsuite", name="cudalint", tests="1", failures="0", errors="0",
                              skipped="0")
        ET.SubElement(suite, "testcase", name="No findings", classname="cudalint")
    by_path = sorted(findings, key=lambda f: rel_path(f.path))
    grouped = {path: list(group) for path, group in groupby(by_path, key=lambda f: rel_path(f.path))}
    for path in sorted(set(grouped) | set(gaps)):
        group = grouped.get(path, [])
        gap = gaps.get(path)
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(group) + bool(gap)),
                              failures=str(len(group)), errors=str(int(bool(gap))), skipped="0")
        if gap:
            case = ET.SubElement(suite, "testcase", name="cudalint: file not fully checked", classname=path,
                                 file=path, line=str(max(gap.line, 1)))
            err = ET.SubElement(case, "error", message=_xml_safe(gap.reason()), type=gap.code)
            err.text = _xml_safe(f"{path}:{max(gap.line, 1)}:{max(gap.column, 1)}: {gap.code} {gap.reason()}")
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
