"""The real pre-commit framework runs the hook from .pre-commit-hooks.yaml on a throwaway repo.

pre-commit clones the hook repository at a rev and `pip install`s it into its own virtualenv, so
the hook file must be in a commit: the test copies this checkout's working tree (tracked and
untracked, not ignored files) into a temporary clone, commits it, and points the config there.
Needs network access to PyPI for cudalint's dependencies (it skips with a reason without it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workflow_helpers import BUGGY, FIXED, FIXED_LINE, KERNEL_LINE, REPO

HEADER_KERNEL = BUGGY.split("\nint main")[0] + "\n"



def test_hook_definition():
    """What pre-commit passes to the hook (identify's tags against types_or), without installing it."""
    import yaml
    from identify import identify
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "cudalint" and hook["language"] == "python"
    assert hook["entry"].split() == ["cudalint", "--force-exclude"]  # in the entry: user args cannot drop it
    passed = {name for name in ("k.cu", "k.cuh", "k.h", "k.hpp", "k.hh", "k.hxx", "k.cpp", "k.c", "notes.txt")
              if identify.tags_from_filename(name) & set(hook["types_or"])}
    assert passed == {"k.cu", "k.cuh", "k.h", "k.hpp", "k.hh", "k.hxx"}


GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd, *args) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def pre_commit_exe() -> str:
    exe = Path(sys.executable).with_name("pre-commit")
    if exe.exists():
        return str(exe)
    found = shutil.which("pre-commit")
    if not found:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    return found


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """A commit holding this checkout's working tree, hook file included."""
    if not (REPO / ".pre-commit-hooks.yaml").is_file():
        pytest.fail(".pre-commit-hooks.yaml is missing at the repository root")
    src = tmp_path_factory.mktemp("hookrepo") / "cudalint"
    git(REPO.parent, "clone", "-q", "--no-hardlinks", str(REPO), str(src))
    listed = git(REPO, "ls-files", "-z", "-co", "--exclude-standard").split("\0")
    for rel in filter(None, listed):
        source = REPO / rel
        if source.is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, src / rel)
        elif not source.exists() and (src / rel).exists():
            (src / rel).unlink()  # deleted in the working tree
    git(src, "add", "-A")
    git(src, "commit", "-q", "--allow-empty", "-m", "working tree for the pre-commit test")
    return src, git(src, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_hook_fails_on_bug_and_passes_when_fixed(hook_repo, tmp_path):
    src, sha = hook_repo
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    (proj / "kernels").mkdir()
    (proj / "kernels" / "scale.cu").write_text(BUGGY)
    (proj / "notes.txt").write_text("not CUDA\n")
    (proj / "host.cpp").write_text("int main() { return undeclared(); }\n")  # not CUDA: never passed
    (proj / "cudalint.toml").write_text('exclude = ["vendor/"]\n')
    (proj / "vendor").mkdir()
    (proj / "vendor" / "theirs.cu").write_text(BUGGY)  # excluded by the config, though pre-commit names it
    (proj / "include").mkdir()
    (proj / "include" / "tile.hpp").write_text("#pragma once\n" + HEADER_KERNEL)
    (proj / "include" / "plain.h").write_text("#pragma once\nFoo* make_foo(Bar b);\n")  # no CUDA, not self-contained
    (proj / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"-   repo: {src}\n"
        f"    rev: {sha}\n"
        "    hooks:\n"
        "    -   id: cudalint\n"
        "        args: [--cuda-mode, shim]\n")
    git(proj, "add", "-A")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "NO_COLOR": "1"}
    env.pop("CUDALINT_CACHE_DIR", None)
    cmd = [pre_commit_exe(), "run", "--all-files", "--color", "never"]
    first = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=900)
    out = first.stdout + first.stderr
    if first.returncode != 0 and ("CUDA101" not in out) and ("pip" in out or "network" in out.lower()):
        pytest.skip(f"pre-commit could not install the hook (no PyPI access?):\n{out[-2000:]}")
    assert first.returncode == 1, out
    assert "cudalint" in out and "Failed" in out
    assert "kernels/scale.cu:2:14: CUDA101 [error] misaligned float4 load" in out
    assert "include/tile.hpp:3:14: CUDA101 [error] misaligned float4 load" in out  # a header with a kernel
    assert "Found 2 findings (2 errors) in 2 files; 2 files checked." in out  # not plain.h, not vendor/
    for name in ("notes.txt", "host.cpp", "vendor/theirs.cu", "plain.h"):
        assert name not in out

    (proj / "kernels" / "scale.cu").write_text(FIXED)
    (proj / "include" / "tile.hpp").write_text("#pragma once\n" + HEADER_KERNEL.replace(KERNEL_LINE, FIXED_LINE))
    second = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=900)
    out = second.stdout + second.stderr
    assert second.returncode == 0, out
    assert "cudalint" in out and "Passed" in out
