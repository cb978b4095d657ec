"""Suppression comments (cudalint: ignore/disable/enable/file-ignore, NOLINT family) and CUDA901."""

from __future__ import annotations

import pytest

from workflow_helpers import KERNEL_LINE, kernel, run, run_json, work  # noqa: F401

USE = "  out[threadIdx.x] = v.x;"
CLEAN = "  out[threadIdx.x] = in[threadIdx.x];"


def findings(capsys, work, body, *args):
    (work / "s.cu").write_text(kernel(body))
    code, data = run_json(capsys, *args, "s.cu")
    return code, [(f["rule"], f["line"], f["message"]) for f in data]


@pytest.mark.parametrize("body", [
    [KERNEL_LINE + "  // cudalint: ignore[CUDA101] reviewed: inputs are padded", USE],
    ["  // cudalint: ignore[CUDA101] reviewed", KERNEL_LINE, USE],
    ["  // cudalint: ignore[CUDA1]", "", "  // another comment", KERNEL_LINE, USE],
    ["  // cudalint: ignore[misaligned-vector-access]", KERNEL_LINE, USE],
    [KERNEL_LINE + "  // cudalint: ignore", USE],
    [KERNEL_LINE + "  /* cudalint: ignore[CUDA101] */", USE],
    ["  // cudalint: disable[CUDA1]", KERNEL_LINE, "  // cudalint: enable[CUDA1]", USE],
    ["  // cudalint: disable[CUDA101]", KERNEL_LINE, USE],
    ["  // cudalint: file-ignore[CUDA1] generated code", KERNEL_LINE, USE],
    [KERNEL_LINE + "  // NOLINT", USE],
    [KERNEL_LINE + "  // NOLINT(cudalint-misaligned-vector-access)", USE],
    [KERNEL_LINE + "  // NOLINT(cudalint-CUDA101)", USE],
    [KERNEL_LINE + "  // NOLINT(bugprone-*, cudalint-*)", USE],
    [KERNEL_LINE + "  // NOLINT(cudalint-misaligned-*): reason", USE],
    ["  // NOLINTNEXTLINE(cudalint-misaligned-vector-access)", KERNEL_LINE, USE],
    ["  // NOLINTBEGIN(cudalint-*)", KERNEL_LINE, "  // NOLINTEND(cudalint-*)", USE],
])
def test_suppressed(work, capsys, body):
    code, got = findings(capsys, work, body)
    assert (code, got) == (0, [])


@pytest.mark.parametrize("body, line", [
    ([KERNEL_LINE + "  // NOLINT(bugprone-branch-clone)", USE], 2),   # clang-tidy's check, not ours
    ([KERNEL_LINE + "  // cudalint: ignore[CUDA3]", USE], 2),       # another rule (reported unused too)
    (["  // NOLINTNEXTLINE(cudalint-misaligned-vector-access)", "", KERNEL_LINE, USE], 4),  # next line only
    (["  // cudalint: disable[CUDA1]", "  // cudalint: enable[CUDA1]", KERNEL_LINE, USE], 4),
    ([KERNEL_LINE + ' const char* s = "// cudalint: ignore[CUDA101]";', USE], 2),  # inside a string
])
def test_not_suppressed(work, capsys, body, line):
    code, got = findings(capsys, work, body, "--ignore", "CUDA901")
    assert code == 1
    assert [(r, ln) for r, ln, _ in got] == [("CUDA101", line)]


def test_unused_suppressions_are_reported(work, capsys):
    body = [CLEAN + "  // cudalint: ignore[CUDA101] old",
            "  // NOLINTNEXTLINE(cudalint-misaligned-vector-access)",
            CLEAN,
            "  // cudalint: disable[CUDA101]",
            CLEAN,
            "  // cudalint: enable[CUDA101]",
            "  // cudalint: enable[CUDA1]",
            CLEAN + "  // NOLINT",                       # bare NOLINT: may be clang-tidy's, never reported
            CLEAN + "  // NOLINT(readability-magic)",    # clang-tidy's own check
            CLEAN + "  // cudalint: ignore[CUDA777]"]
    code, got = findings(capsys, work, body)
    assert code == 1
    assert got == [
        ("CUDA901", 2, "unused suppression `cudalint: ignore[CUDA101]`: no finding of CUDA101 to suppress"),
        ("CUDA901", 3, "unused suppression `NOLINTNEXTLINE(cudalint-misaligned-vector-access)`: no finding of "
                       "cudalint-misaligned-vector-access to suppress"),
        ("CUDA901", 5, "unused suppression `cudalint: disable[CUDA101]`: no finding of CUDA101 to suppress"),
        ("CUDA901", 8, "`cudalint: enable[CUDA1]` closes no open range for CUDA1"),
        ("CUDA901", 11, "unused suppression `cudalint: ignore[CUDA777]`: no finding of CUDA777 (no such rule) "
                        "to suppress"),
    ]
    (work / "s.cu").write_text(kernel(body))
    code, out, _ = run(capsys, "-q", "s.cu")
    assert out.splitlines()[0] == ("s.cu:2:40: CUDA901 [warning] unused suppression `cudalint: ignore[CUDA101]`: "
                                   "no finding of CUDA101 to suppress")


def test_unused_only_when_the_rule_ran(work, capsys):
    body = [CLEAN + "  // cudalint: ignore[CUDA101]"]
    assert findings(capsys, work, body, "--select", "CUDA9")[1] == []  # CUDA101 did not run: cannot tell
    assert findings(capsys, work, body, "--ignore", "CUDA901") == (0, [])


def test_partly_used_suppression(work, capsys):
    code, got = findings(capsys, work, [KERNEL_LINE + "  // cudalint: ignore[CUDA101, CUDA9]", USE])
    assert got == [("CUDA901", 2, "unused suppression `cudalint: ignore[CUDA101, CUDA9]`: no finding of CUDA9 "
                                  "to suppress")]


def test_no_suppressions_flag(work, capsys):
    code, got = findings(capsys, work, [KERNEL_LINE + "  // cudalint: ignore[CUDA101]", USE], "--no-suppressions")
    assert code == 1 and [(r, ln) for r, ln, _ in got] == [("CUDA101", 2)]


def test_summary_counts_suppressed(work, capsys):
    (work / "s.cu").write_text(kernel([KERNEL_LINE + "  // NOLINT", USE]))
    code, out, _ = run(capsys, "s.cu")
    assert code == 0
    assert out == "No findings in 1 file.\nNot shown: 1 suppressed by comments.\n"


def test_cuda901_severity_from_config(work, capsys):
    (work / "cudalint.toml").write_text('[severity]\nCUDA901 = "note"\n')
    code, got = findings(capsys, work, [CLEAN + "  // cudalint: ignore[CUDA101]"], "--fail-on", "warning")
    assert code == 0 and got[0][0] == "CUDA901"


def test_cuda901_rule_documented():
    from cudalint.registry import DOC_SECTIONS, all_rules
    r = all_rules()["CUDA901"]
    assert (r.name, r.category, r.severity) == ("unused-suppression", "suppression", "warning")
    for section in DOC_SECTIONS:
        assert f"## {section}" in r.doc
    assert list(r.check(None)) == []
