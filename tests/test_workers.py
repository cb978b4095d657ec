"""Worker processes: a file over its hard budget, a worker that dies, a rule that raises, Ctrl-C."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import signal
import subprocess
import sys
import time

import cudalint.engine as engine
from workflow_helpers import BUGGY, run, work  # noqa: F401

_real_analyze = engine.analyze_file


def _misbehave_on(name: str, action):
    """analyze_file that runs `action` for the file called `name` (workers are forked, so they
    see this patch) and analyses the others for real."""
    def analyze(path, settings, **options):
        if os.path.basename(path) == name:
            action()
        return _real_analyze(path, settings, **options)
    return analyze


def test_file_over_its_hard_budget_is_killed_and_the_run_goes_on(work, capsys, monkeypatch):
    (work / "bug.cu").write_text(BUGGY)
    (work / "hang.cu").write_text(BUGGY)
    monkeypatch.setattr(engine, "analyze_file", _misbehave_on("hang.cu", lambda: time.sleep(3600)))
    code, out, err = run(capsys, "-q", "-j1", "--file-budget", "0.5", "hang.cu", "bug.cu")
    assert err == "hang.cu: error: file time budget of 0.5 s spent (analysis stopped; raise it with --file-budget)\n"
    assert "bug.cu:2:14: CUDA101" in out
    assert out.endswith("1 file not fully checked (1 over the time budget); their findings may be incomplete.\n")
    assert code == 2


def test_worker_that_dies_costs_its_file_only(work, capsys, monkeypatch):
    (work / "bug.cu").write_text(BUGGY)
    (work / "segv.cu").write_text(BUGGY)
    monkeypatch.setattr(engine, "analyze_file", _misbehave_on("segv.cu", lambda: os.kill(os.getpid(), signal.SIGSEGV)))
    code, out, err = run(capsys, "-q", "-j2", "segv.cu", "bug.cu")
    assert err == "segv.cu: error: internal error: the analysis process died (signal SIGSEGV)\n"
    assert "bug.cu:2:14: CUDA101" in out
    assert code == 2


def test_rule_that_raises_leaves_the_file_not_clean(work, capsys, monkeypatch):
    (work / "bug.cu").write_text(BUGGY)
    real = engine.selected

    def broken(*args):
        def boom(ctx):
            raise ValueError("boom")
            yield
        return [dataclasses.replace(r, check=boom) if r.code == "CUDA301" else r for r in real(*args)]
    monkeypatch.setattr(engine, "selected", broken)
    code, out, err = run(capsys, "--output-format", "json", "bug.cu")
    entries = json.loads(out)
    assert [e["rule"] for e in entries] == ["CUDA101", "CUDA002"]  # the other rules still ran
    assert entries[1] == {
        "rule": "CUDA002", "name": "not-fully-checked", "category": "not-checked", "severity": "error",
        "path": "bug.cu", "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "message": "not fully checked: internal error in rule CUDA301: ValueError('boom')",
        "kernel": None, "related": [], "confirmation": None}
    assert code == 2


_HANGING_RUN = """
import os, sys, time
import cudalint.engine as engine
real = engine.analyze_file
def analyze(path, settings, **options):
    result = real(path, settings, **options)
    if path.endswith("hang.cu"):
        open(path + ".started", "w").close()
        time.sleep(3600)
    return result
engine.analyze_file = analyze
from cudalint.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _children(pid: int) -> set[int]:
    kids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.add(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def _wait_for(condition, limit_s: float = 60.0) -> None:
    end = time.monotonic() + limit_s  # a safety limit, not a timing assertion
    while not condition():
        assert time.monotonic() < end, "condition never became true"
        time.sleep(0.05)


def test_ctrl_c_stops_a_parallel_run_kills_workers_and_keeps_the_cache(tmp_path):
    (tmp_path / "bug.cu").write_text(BUGGY)
    (tmp_path / "hang.cu").write_text(BUGGY)
    (tmp_path / "cudalint.toml").write_text("")
    cache = tmp_path / "cache"
    argv = [sys.executable, "-c", _HANGING_RUN, "--cuda-mode", "shim", "--cache-dir", str(cache), "-j2",
            "--file-budget", "3600", "-q", "bug.cu", "hang.cu"]
    proc = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # the installed cudalint (rules/ maps to cudalint.rules)
    def hanging_with_bug_cached() -> bool:
        assert proc.poll() is None, proc.communicate()[1].decode()  # it died: say why, do not wait
        return (tmp_path / "hang.cu.started").exists() and bool(list(cache.rglob("*.json")))
    _wait_for(hanging_with_bug_cached)
    workers = _children(proc.pid)
    assert workers
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C does: the whole foreground group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode() == "cudalint: interrupted\n"  # no traceback
    _wait_for(lambda: not any(os.path.exists(f"/proc/{w}") and _state(w) != "Z" for w in workers))
    assert len(list(cache.rglob("*.json"))) == 1  # bug.cu's result was kept


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_a_worker_collects_young_objects_less_often_and_never_scans_what_it_inherited():
    from cudalint import workers
    settings = engine.Settings()
    got = {}
    probe = (lambda job, s: None, lambda job, s: (gc.get_threshold()[0], gc.get_freeze_count() > 0))
    workers.run([(0, "a job")], settings, 1, probe, lambda i, r: got.update({i: r}), lambda *a: None)
    assert got == {0: (workers.YOUNG_THRESHOLD, True)}
    assert gc.get_threshold()[0] != workers.YOUNG_THRESHOLD  # the main process keeps its own
