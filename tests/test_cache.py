"""The content-keyed result cache: hits on unchanged input, misses on any change that matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from workflow_helpers import BUGGY, FIXED, run, work  # noqa: F401


def cached_run(capsys, *args):
    code, out, err = run(capsys, "-v", "-q", "--cache-dir", "cache", *args)
    line = [ln for ln in err.splitlines() if ln.startswith("cudalint: cache: ")]
    return code, out, line[0].split(":")[2].strip().split(" (")[0]


def test_hit_on_second_run_with_same_output(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    first = cached_run(capsys, "bug.cu")
    second = cached_run(capsys, "bug.cu")
    assert first[2] == "0 hits, 1 analysed"
    assert second[2] == "1 hit, 0 analysed"
    assert first[:2] == second[:2] and first[0] == 1
    assert (work / "cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (work / "cache" / ".gitignore").read_text().endswith("*\n")
    entry = next((work / "cache").rglob("*.json"))
    data = json.loads(entry.read_text())
    assert any(dep.endswith("cudalint_shim.h") for dep, _ in data["deps"])  # headers are dependencies


def test_json_identical_from_cache(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    a = run(capsys, "--cache-dir", "cache", "--output-format", "json", "bug.cu")
    b = run(capsys, "--cache-dir", "cache", "--output-format", "json", "bug.cu")
    assert a == b


def test_content_change_misses(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    cached_run(capsys, "bug.cu")
    (work / "bug.cu").write_text(FIXED)
    code, out, stats = cached_run(capsys, "bug.cu")
    assert (code, stats) == (0, "0 hits, 1 analysed")


def test_header_change_misses(work, capsys):
    (work / "k.cuh").write_text("#define OFFSET 0\n")
    src = '#include "k.cuh"\n' + BUGGY.replace("in + threadIdx.x", "in + OFFSET + 4 * threadIdx.x")
    (work / "bug.cu").write_text(src)
    assert cached_run(capsys, "bug.cu")[0] == 0
    assert cached_run(capsys, "bug.cu")[2] == "1 hit, 0 analysed"
    (work / "k.cuh").write_text("#define OFFSET 1\n")
    code, out, stats = cached_run(capsys, "bug.cu")
    assert stats == "0 hits, 1 analysed" and code == 1


def test_settings_change_misses(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    cached_run(capsys, "bug.cu")
    assert cached_run(capsys, "-DEXTRA=1", "bug.cu")[2] == "0 hits, 1 analysed"
    assert cached_run(capsys, "--solver-timeout", "999", "bug.cu")[2] == "0 hits, 1 analysed"
    assert cached_run(capsys, "bug.cu")[2] == "1 hit, 0 analysed"


def test_suppressions_apply_to_cached_results(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    cached_run(capsys, "bug.cu")
    assert cached_run(capsys, "--select", "CUDA101", "bug.cu")[0] == 1


def test_no_cache_and_env_dir(work, capsys, monkeypatch):
    (work / "bug.cu").write_text(BUGGY)
    run(capsys, "bug.cu")  # run() passes --no-cache
    assert not (work / ".cudalint_cache").exists()
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(work / "envcache"))
    run(capsys, "--cache", "bug.cu")
    assert (work / "envcache" / "CACHEDIR.TAG").is_file()
    monkeypatch.delenv("CUDALINT_CACHE_DIR")
    run(capsys, "--cache", "bug.cu")
    assert (work / ".cudalint_cache" / "CACHEDIR.TAG").is_file()


def test_corrupt_entry_is_a_miss(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    cached_run(capsys, "bug.cu")
    for p in (work / "cache").rglob("*.json"):
        p.write_text("{not json")
    code, out, stats = cached_run(capsys, "bug.cu")
    assert (code, stats) == (1, "0 hits, 1 analysed")


def test_unwritable_cache_dir_still_lints(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    (work / "cache").write_text("a file, not a directory")
    code, out, _ = run(capsys, "-q", "--cache-dir", "cache", "bug.cu")
    assert code == 1 and "CUDA101" in out
    assert os.path.isfile(work / "cache")


def test_new_file_times_with_the_same_content_still_hit(work, capsys):
    """A CI job restores the cache into a fresh checkout and a fresh install: every file has a new
    mtime and the same content. The cache must hit (it keyed on mtimes and never did)."""
    from cudalint import cache as cache_mod
    (work / "k.cuh").write_text("#define OFFSET 0\n")
    (work / "bug.cu").write_text('#include "k.cuh"\n' + BUGGY.replace("in + threadIdx.x", "in + OFFSET + 4 * threadIdx.x"))
    assert cached_run(capsys, "bug.cu")[2] == "0 hits, 1 analysed"
    for p in (work / "k.cuh", work / "bug.cu"):
        os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 3_600 * 10**9))
    assert cached_run(capsys, "bug.cu")[2] == "1 hit, 0 analysed"

    rules_init = next(iter(__import__("cudalint.rules").rules.__path__)) + "/__init__.py"
    st = os.stat(rules_init)
    before = cache_mod.code_stamp.__wrapped__()
    try:
        os.utime(rules_init, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        assert cache_mod.code_stamp.__wrapped__() == before
    finally:
        os.utime(rules_init, ns=(st.st_atime_ns, st.st_mtime_ns))


HEAVY = ("z3", "cudalint.model", "cudalint.analysis", "cudalint.frontend.tu", "cudalint.frontend.parse",
         "cudalint.workers", "pathspec", "importlib.metadata")


def test_a_cache_hit_imports_no_analysis(work):
    """A run served from the cache (pre-commit's usual case) reads the rules' metadata only: z3,
    the model, the analyses and the parser stay unimported, their imports were most of its time."""
    (work / "bug.cu").write_text(BUGGY)
    code = ("import sys; from cudalint.cli import main; "
            "main(['--cuda-mode', 'shim', '-v', '-q', '--cache-dir', 'cache', 'bug.cu']); "
            "print('MODULES', *sorted(sys.modules))")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True)
            for _ in range(2)]
    assert "cudalint: cache: 1 hit" in runs[1].stderr
    loaded = runs[1].stdout.split("MODULES")[1].split()
    assert [m for m in loaded if m.startswith(HEAVY)] == []
    assert "z3" in runs[0].stdout.split("MODULES")[1].split()  # the check can see an import
