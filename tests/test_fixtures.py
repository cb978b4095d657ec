"""Every fixture's findings match its markers, line for line (DESIGN.md, "Fixtures")."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from pathlib import Path

from cudalint.engine import analyze_file
from cudalint.registry import all_rules
from cudalint.settings import Settings
from markers import FIXTURE_BUDGET_S, FIXTURE_SOLVER_TIMEOUT_MS, FIXTURES, fixture_files, markers

FILES = fixture_files()
_cache: dict = {}


def findings_for(path, mode="shim"):
    key = (path, mode)
    if key not in _cache:
        result = analyze_file(str(path), Settings(cuda_mode=mode, file_budget_s=FIXTURE_BUDGET_S,
                                                  solver_timeout_ms=FIXTURE_SOLVER_TIMEOUT_MS))
        _cache[key] = result
    return _cache[key]


def findings_in(path) -> list:
    """Findings located in `path`, from checking every fixture: a helper in a header is reported
    at the header's line when a file that includes it is checked."""
    return [f for p in FILES for f in findings_for(p).findings if Path(f.path).resolve() == path.resolve()]


def _id(p):
    return str(p.relative_to(FIXTURES))


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_fixture_markers(path):
    marks = markers(path)
    codes = {m.code for m in marks}
    missing_rules = sorted(codes - set(all_rules()))
    result = findings_for(path)
    parse_errors = [d for d in result.diagnostics if d.severity == "error"]
    assert not parse_errors, f"fixture does not parse cleanly: {parse_errors}"
    got = {(f.line, f.rule): f for f in findings_in(path)}
    problems = []
    for m in marks:
        if m.code in missing_rules:
            continue
        f = got.get((m.line, m.code))
        if m.kind == "expect" and f is None:
            problems.append(f"line {m.line}: expected {m.code}, got nothing")
        elif m.kind == "expect" and m.text and m.text not in f.message:
            problems.append(f"line {m.line}: {m.code} message lacks {m.text!r}: {f.message}")
        elif m.kind == "ok" and f is not None:
            problems.append(f"line {m.line}: must stay clean of {m.code}, got: {f.message}")
    expected = {(m.line, m.code) for m in marks if m.kind == "expect"}
    for (line, code), f in sorted(got.items()):
        if (line, code) not in expected:
            problems.append(f"line {line}: unexpected {code}: {f.message}")
    assert not problems, "\n".join(problems)
    if missing_rules:
        pytest.skip(f"markers for rules not implemented yet: {', '.join(missing_rules)}")


def test_every_rule_has_both_kinds_of_fixture():
    kinds = {}
    for path in FILES:
        for m in markers(path):
            kinds.setdefault(m.code, set()).add(m.kind)
    for code in all_rules():
        if code.startswith("CUDA9"):  # meta rules (suppressions) are tested in their own tests
            continue
        assert kinds.get(code) == {"expect", "ok"}, f"{code} needs fixtures that fire and that stay clean"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", FILES, ids=_id)
def test_fixture_compiles_with_nvcc(path, tmp_path):
    cmd = ["nvcc", "-c", "-std=c++17", "-arch=sm_90", "-x", "cu", str(path), "-o", str(tmp_path / "out.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_no_exit_note_where_skipping_threads_wait_at_a_later_barrier():
    """partial_barrier.cu's skipping threads wait at the next barrier (synccheck reports it):
    the message must not say that they exit."""
    found = [f for f in findings_for(FIXTURES / "barriers" / "partial_barrier.cu").findings if f.rule == "CUDA204"]
    assert found
    assert all("exit" not in f.message and "skipping_threads" not in dict(f.properties) for f in found)
