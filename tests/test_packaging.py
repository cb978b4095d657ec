"""Packaging metadata: licence, classifiers, project URLs, the GPU extras, and what a built wheel says."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import zipfile

import pytest

from cudalint.findings import REPOSITORY_URL
from workflow_helpers import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_license_file_matches_the_declared_license():
    assert PROJECT["license"] == {"text": "Apache-2.0"}
    text = (REPO / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "License :: OSI Approved :: Apache Software License" in PROJECT["classifiers"]


def test_classifiers_are_known_to_pypi():
    trove = pytest.importorskip("trove_classifiers")
    unknown = [c for c in PROJECT["classifiers"] if c not in trove.classifiers]
    assert not unknown
    versions = {c.rsplit(" ", 1)[1] for c in PROJECT["classifiers"] if c.startswith("Programming Language :: Python :: 3.")}
    assert min(versions, key=lambda v: tuple(map(int, v.split(".")))) == PROJECT["requires-python"].removeprefix(">=")


def test_project_urls_point_at_the_repository():
    urls = PROJECT["urls"]
    assert {"Homepage", "Repository", "Issues"} <= set(urls)
    assert all(u.startswith(REPOSITORY_URL) for u in urls.values())
    assert urls["Repository"] == REPOSITORY_URL  # the same URL SARIF's informationUri and helpUri use


def test_gpu_extras_for_cuda_12_and_13():
    extras = PROJECT["optional-dependencies"]
    assert extras["gpu-cuda12"] == ["cupy-cuda12x"]
    assert extras["gpu-cuda13"] == ["cupy-cuda13x"]
    assert extras["gpu"] == extras["gpu-cuda13"]


@pytest.mark.slow
def test_built_wheel_metadata(tmp_path):
    """Build a wheel from the tracked and untracked (not ignored) files, as a release would."""
    src = tmp_path / "src"
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout.split("\0")
    for rel in filter(None, listed):
        if (REPO / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, src / rel)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                            str(src)], capture_output=True, text=True, timeout=600)
    if build.returncode != 0 and "setuptools" in build.stderr and "No matching distribution" in build.stderr:
        pytest.skip(f"cannot fetch setuptools to build: {build.stderr[-500:]}")
    assert build.returncode == 0, build.stderr
    [wheel] = (tmp_path / "dist").glob("cudalint-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        [meta_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(zf.read(meta_name).decode())
        assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert meta.get_all("Classifier") == PROJECT["classifiers"]
    assert sorted(meta.get_all("Project-URL")) == sorted(f"{k}, {v}" for k, v in PROJECT["urls"].items())
    assert {"gpu", "gpu-cuda12", "gpu-cuda13", "test"} <= set(meta.get_all("Provides-Extra"))
    assert 'cupy-cuda12x; extra == "gpu-cuda12"' in meta.get_all("Requires-Dist")
    assert "cudalint/rules/shared_memory_race.py" in names and "cudalint/shim/cuda_runtime.h" in names
