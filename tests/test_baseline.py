"""Baselines: --write-baseline, --baseline, line-independent matching, stale entries."""

from __future__ import annotations

import json

from workflow_helpers import BUGGY, FIXED, KERNEL_LINE, kernel, run, work  # noqa: F401


def test_write_then_check(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "--write-baseline", "base.json", "bug.cu")
    assert (code, out) == (0, "")
    assert err == "cudalint: wrote 1 finding to baseline base.json\n"
    data = json.loads((work / "base.json").read_text())
    assert data["version"] == 1 and data["tool"] == "cudalint"
    [e] = data["entries"]
    assert (e["rule"], e["path"], e["occurrence"], e["line"]) == ("CUDA101", "bug.cu", 0, 2)
    code, out, err = run(capsys, "--baseline", "base.json", "bug.cu")
    assert (code, err) == (0, "")
    assert out == "No findings in 1 file.\nNot shown: 1 in the baseline.\n"


def test_survives_code_moving(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    run(capsys, "--write-baseline", "base.json", "bug.cu")
    (work / "bug.cu").write_text("// header comment\n\n\n" + BUGGY.replace("{\n", "{\n\n", 1))
    assert run(capsys, "--baseline", "base.json", "bug.cu")[0] == 0


def test_new_finding_is_reported(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    run(capsys, "--write-baseline", "base.json", "bug.cu")
    second = KERNEL_LINE.replace("v =", "w =").replace("threadIdx.x)", "threadIdx.x + 2)")
    (work / "bug.cu").write_text(kernel([KERNEL_LINE, second, "  out[threadIdx.x] = v.x + w.x;"]))
    code, out, _ = run(capsys, "-q", "--baseline", "base.json", "bug.cu")
    assert code == 1
    assert out.splitlines()[0].startswith("bug.cu:3:14: CUDA101 [error] misaligned float4 load "
                                          "`*reinterpret_cast<const float4*>(in + threadIdx.x + 2)`")
    assert out.splitlines()[-1] == "Not shown: 1 in the baseline."


def test_duplicate_lines_count_as_a_multiset(work, capsys):
    block = ["  {", "  " + KERNEL_LINE, "    out[threadIdx.x] = v.x;", "  }"]
    (work / "bug.cu").write_text(kernel(block))
    run(capsys, "--write-baseline", "base.json", "bug.cu")
    (work / "bug.cu").write_text(kernel(block + block))  # a second identical occurrence is new
    code, out, _ = run(capsys, "-q", "--baseline", "base.json", "bug.cu")
    assert code == 1 and out.count("CUDA101") == 1


def test_stale_entries(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    (work / "other.cu").write_text(BUGGY)
    run(capsys, "--write-baseline", "base.json", "bug.cu", "other.cu")
    (work / "bug.cu").write_text(FIXED)
    code, out, err = run(capsys, "--baseline", "base.json", "bug.cu", "other.cu")
    assert code == 0
    assert err == ("cudalint: 1 baseline entry in base.json no longer match any finding (fixed or changed); "
                   "shrink the baseline with --write-baseline\n")
    assert out == "No findings in 2 files.\nNot shown: 1 in the baseline, 1 stale baseline entry.\n"
    # a run over some files only (as pre-commit makes) does not call the others' entries stale
    code, out, err = run(capsys, "--baseline", "base.json", "other.cu")
    assert (code, err) == (0, "")


def test_bad_baseline_exits_2(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    (work / "base.json").write_text("[]")
    code, _, err = run(capsys, "--baseline", "base.json", "bug.cu")
    assert code == 2 and "base.json: not a cudalint baseline" in err
    code, _, err = run(capsys, "--baseline", "missing.json", "bug.cu")
    assert code == 2 and "missing.json: cannot read baseline" in err


def test_baseline_used_from_a_subdirectory(work, capsys, monkeypatch):
    """Paths in a baseline are relative to the project root (here the config file's directory),
    so the baseline written at the top matches a run in a subdirectory, and the other way round."""
    (work / "src").mkdir()
    (work / "src" / "bug.cu").write_text(BUGGY)
    run(capsys, "--write-baseline", "base.json", "src")
    [e] = json.loads((work / "base.json").read_text())["entries"]
    assert e["path"] == "src/bug.cu"
    monkeypatch.chdir(work / "src")
    code, out, err = run(capsys, "--baseline", "../base.json", "bug.cu")
    assert (code, out, err) == (0, "No findings in 1 file.\nNot shown: 1 in the baseline.\n", "")
    run(capsys, "--write-baseline", "../sub.json", ".")
    assert json.loads((work / "sub.json").read_text())["entries"][0]["path"] == "src/bug.cu"


def test_baseline_paths_are_relative_to_the_repository(work, capsys, monkeypatch):
    repo = work / "repo"
    (repo / ".git").mkdir(parents=True)  # the config file stays above, in work/
    (repo / "kernels").mkdir()
    (repo / "kernels" / "bug.cu").write_text(BUGGY)
    monkeypatch.chdir(repo / "kernels")
    run(capsys, "--write-baseline", str(repo / "base.json"), "bug.cu")
    [e] = json.loads((repo / "base.json").read_text())["entries"]
    assert e["path"] == "kernels/bug.cu"
    monkeypatch.chdir(repo)
    assert run(capsys, "--baseline", "base.json", "kernels")[0] == 0
