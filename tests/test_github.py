"""GitHub workflow-command annotations and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from cudalint.cli import RunInfo
from cudalint.findings import Finding
from cudalint.reporters import github, junit
from workflow_helpers import BUGGY, KERNEL_LINE, MSG, kernel, run, work  # noqa: F401


def test_annotation_exact(work, capsys):
    (work / "src").mkdir()
    (work / "src" / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "--output-format", "github", "src/bug.cu")
    assert code == 1
    assert out == ("::error file=src/bug.cu,line=2,col=14,endLine=2,endColumn=64,"
                   f"title=CUDA101 misaligned-vector-access::{MSG.format(launch=8)}\n")


def test_paths_relative_to_the_project_root(work, capsys, monkeypatch):
    """Run in a subdirectory of the repository (a `working-directory:` step): GitHub and test
    reporters resolve paths against the repository, not the step's directory."""
    (work / "repo" / ".git").mkdir(parents=True)
    (work / "repo" / "cuda").mkdir()
    (work / "repo" / "cuda" / "bug.cu").write_text(BUGGY)
    monkeypatch.chdir(work / "repo" / "cuda")
    _, out, _ = run(capsys, "--output-format", "github", "bug.cu")
    assert out.startswith("::error file=cuda/bug.cu,line=2,col=14,")
    _, out, _ = run(capsys, "--output-format", "junit", "bug.cu")
    suite = ET.fromstring(out).find("testsuite")
    assert (suite.get("name"), suite.find("testcase").get("file")) == ("cuda/bug.cu", "cuda/bug.cu")
    assert suite.find("testcase/failure").text.startswith("cuda/bug.cu:2:14: CUDA101")


def test_escaping():
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%d\n") == "a%3Ab%2Cc%25d%0A"
    f = Finding("CUDA101", "misaligned-vector-access", "misaligned-access", "warning", "a,b:c.cu", 3, 1, 3, 9,
                "100% bad\nreally")
    assert github.annotation(f, Path.cwd()) == ("::warning file=a%2Cb%3Ac.cu,line=3,col=1,endLine=3,endColumn=9,"
                                    "title=CUDA101 misaligned-vector-access::100%25 bad%0Areally")
    note = f.with_(severity="note")
    assert github.annotation(note, Path.cwd()).startswith("::notice file=")


def _many(work, n):
    lines = [KERNEL_LINE.replace("v =", f"v{i} =") for i in range(n)] + ["  out[threadIdx.x] = v0.x;"]
    (work / "many.cu").write_text(kernel(lines))


def test_cap_notice_and_step_summary(work, capsys, monkeypatch):
    _many(work, 12)
    summary = work / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = run(capsys, "--output-format", "github", "many.cu")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 13
    assert all(line.startswith("::error file=many.cu,line=") for line in lines[:12])
    assert lines[12] == ("::notice title=cudalint::cudalint found 12 errors; GitHub shows only 10 annotations of "
                         "each level per step. Every finding is listed in the job summary (upload SARIF for code "
                         "scanning to see all of them).")
    md = summary.read_text().splitlines()
    assert md[0] == "## cudalint"
    assert md[2] == "12 findings (12 errors) in 1 file checked."
    assert md[4:6] == ["| Location | Rule | Severity | Message |", "|---|---|---|---|"]
    assert len(md) == 6 + 12
    assert md[6].startswith("| `many.cu:2:15` | CUDA101 misaligned-vector-access | error | misaligned float4 load")


def test_no_notice_at_or_below_cap(work, capsys):
    _many(work, 10)
    _, out, _ = run(capsys, "--output-format", "github", "many.cu")
    assert len(out.splitlines()) == 10
    assert "::notice" not in out


def test_cap_without_step_summary_points_to_log(work, capsys):
    _many(work, 11)
    _, out, _ = run(capsys, "--output-format", "github", "many.cu")
    assert out.splitlines()[-1].startswith("::notice title=cudalint::cudalint found 11 errors;")
    assert "listed in the log above" in out


def test_summary_cells_escape_pipes():
    f = Finding("CUDA101", "n", "c", "error", "x.cu", 1, 1, 1, 2, "a | b\nc")
    run_info = RunInfo(color=False, quiet=False, files_checked=1)
    md = github.summary_markdown([f], run_info)
    assert "| a \\| b c |" in md


def test_junit(work, capsys):
    (work / "a.cu").write_text(BUGGY)
    (work / "b.cu").write_text(BUGGY)
    code, out, _ = run(capsys, "--output-format", "junit", "a.cu", "b.cu")
    assert code == 1
    root = ET.fromstring(out.encode())
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "2"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["a.cu", "b.cu"]
    case = suites[0].find("testcase")
    assert case.get("name") == "CUDA101 misaligned-vector-access"
    assert case.get("classname") == "a.cu" and case.get("line") == "2"
    fail = case.find("failure")
    assert fail.get("type") == "CUDA101"
    assert fail.get("message") == MSG.format(launch=8)
    assert fail.text == f"a.cu:2:14: CUDA101 [error] {MSG.format(launch=8)}\n  note: a.cu:1:19: `in` declared here"


def test_junit_clean_and_odd_characters():
    run_info = RunInfo(color=False, quiet=False, files_checked=1)
    root = ET.fromstring(junit.render([], run_info).encode())
    assert root.find("testsuite/testcase").get("name") == "No findings"
    f = Finding("CUDA101", "n", "c", "error", "x<&>.cu", 1, 1, 1, 2, "ctl\x01 <tag> & \"q\"")
    root = ET.fromstring(junit.render([f], run_info).encode())
    assert root.find("testsuite").get("name") == "x<&>.cu"
    assert root.find("testsuite/testcase/failure").get("message") == "ctl <tag> & \"q\""
