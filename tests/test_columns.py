"""Columns are code points and lines are the compiler's, in every output format.

libclang counts columns in bytes: a non-ASCII character earlier on the line moved the region right
and cut the quoted snippet (`nterpret_cast<...>(...);`); in toolkit mode the cut text even hid the
finding. A form feed (a line break to Python's splitlines, not to a compiler) shifted code frames
and suppression comments by a line.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from cudalint.columns import code_point_column, source_lines
from cudalint.frontend.flags import find_toolkit
from workflow_helpers import BUGGY, KERNEL_LINE, MSG, run, work  # noqa: F401

SNIPPET = "*reinterpret_cast<const float4*>(in + threadIdx.x)"
WIDE_LINE = "  /* größe → 4 · 漢字 */" + KERNEL_LINE[1:]
WIDE = BUGGY.replace(KERNEL_LINE, WIDE_LINE)
COLUMN = WIDE_LINE.index(SNIPPET) + 1  # in code points
END_COLUMN = COLUMN + len(SNIPPET)


def test_code_point_column():
    line = "a ü 漢 x".encode()
    assert [code_point_column(line, line.index(b"x") + 1), code_point_column(line, 1)] == [7, 1]
    assert code_point_column(b"\xff\xfe x", 4) == 4  # each invalid byte one character
    assert code_point_column("é".encode(), 4) == 3  # past the end of the line: one per byte
    assert source_lines("a\r\nb\x0cc\rd\u2028e\n") == ["a", "b\x0cc", "d\u2028e"]


@pytest.mark.parametrize("mode", ["shim", "toolkit"])
def test_non_ascii_before_the_finding_in_every_format(work, capsys, mode):
    if mode == "toolkit" and find_toolkit(None) is None:
        pytest.skip("no CUDA toolkit on this machine")
    (work / "wide.cu").write_text(WIDE, encoding="utf-8")
    message = MSG.format(launch=8)
    assert SNIPPET in message

    code, out, _ = run(capsys, "--cuda-mode", mode, "wide.cu")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"wide.cu:2:{COLUMN}: CUDA101 [error] {message}"
    assert lines[2] == f"2 | {WIDE_LINE}"
    # the carets sit under the snippet, counted in terminal cells (漢字 take two each)
    assert lines[3] == "  | " + " " * (COLUMN - 1 + 2) + "^" * len(SNIPPET)

    _, out, _ = run(capsys, "--cuda-mode", mode, "--output-format", "json", "wide.cu")
    [f] = json.loads(out)
    assert (f["line"], f["column"], f["end_line"], f["end_column"], f["message"]) == (2, COLUMN, 2, END_COLUMN, message)
    assert WIDE_LINE[f["column"] - 1:f["end_column"] - 1] == SNIPPET

    _, out, _ = run(capsys, "--cuda-mode", mode, "--output-format", "sarif", "wide.cu")
    log = json.loads(out)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    [res] = log["runs"][0]["results"]
    assert res["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2, "startColumn": COLUMN, "endLine": 2, "endColumn": END_COLUMN}

    _, out, _ = run(capsys, "--cuda-mode", mode, "--output-format", "github", "wide.cu")
    assert out.startswith(f"::error file=wide.cu,line=2,col={COLUMN},endLine=2,endColumn={END_COLUMN},")

    _, out, _ = run(capsys, "--cuda-mode", mode, "--output-format", "junit", "wide.cu")
    failure = ET.fromstring(out).find(".//failure")
    assert failure.text.startswith(f"wide.cu:2:{COLUMN}: CUDA101 [error] {message}")


def test_related_and_header_columns_are_code_points(work, capsys):
    (work / "k.cuh").write_text(WIDE.split("\nint main")[0] + "\n", encoding="utf-8")
    (work / "main.cu").write_text('#include "k.cuh"\n\nint main() {\n  float *a = nullptr, *b = nullptr;\n'
                                  "  k<<<1, 64>>>(a, b);\n  return 0;\n}\n")
    decl = "/* ü */ const float* in"
    (work / "k.cuh").write_text((work / "k.cuh").read_text(encoding="utf-8").replace("const float* in", decl),
                                encoding="utf-8")
    _, out, _ = run(capsys, "--output-format", "json", "main.cu", "k.cuh")
    [f] = json.loads(out)
    assert (f["path"], f["line"], f["column"]) == ("k.cuh", 2, COLUMN)
    header = (work / "k.cuh").read_text(encoding="utf-8").splitlines()[0]
    assert f["related"][0]["column"] == header.index("const float* in") + 1  # the declaration


def test_form_feed_is_no_line_break(work, capsys):
    text = "// page one\n\x0c\n" + BUGGY.replace(KERNEL_LINE, KERNEL_LINE + "  // cudalint: ignore[CUDA101] known")
    (work / "ff.cu").write_text(text)
    code, out, _ = run(capsys, "ff.cu")
    assert (code, out) == (0, "No findings in 1 file.\nNot shown: 1 suppressed by comments.\n")
    (work / "ff.cu").write_text(text.replace("  // cudalint: ignore[CUDA101] known", ""))
    code, out, _ = run(capsys, "ff.cu")
    assert code == 1
    assert out.splitlines()[2] == f"4 | {KERNEL_LINE}"
