"""The GitHub workflow users copy (docs/workflows/cudalint.yml): it installs from the repository,
caches under a key that changes on every run, and uploads the SARIF its cudalint step writes."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from workflow_helpers import BUGGY, REPO, run, work  # noqa: F401

yaml = pytest.importorskip("yaml")  # PyYAML comes with pre-commit
WORKFLOW = REPO / "docs" / "workflows" / "cudalint.yml"


@pytest.fixture(scope="module")
def workflow():
    return yaml.safe_load(WORKFLOW.read_text())


def _steps(workflow):
    [job] = workflow["jobs"].values()
    return job["steps"]


def _step(workflow, uses=None, run_prefix=None):
    for s in _steps(workflow):
        if uses and s.get("uses", "").startswith(uses):
            return s
        if run_prefix and s.get("run", "").startswith(run_prefix):
            return s
    raise AssertionError(f"no step {uses or run_prefix}")


def test_permissions_and_install_from_the_repository(workflow):
    assert workflow["permissions"]["security-events"] == "write"
    install = _step(workflow, run_prefix="python -m pip install")["run"]
    assert install == 'python -m pip install "cudalint @ git+https://github.com/cudalint/cudalint@${CUDALINT_REF}"'
    assert workflow["env"]["CUDALINT_REF"]
    assert not [s for s in _steps(workflow) if re.search(r"pip install\s+cudalint\b", s.get("run", ""))]


def test_cache_key_is_new_each_run_and_restores_by_prefix(workflow):
    cache = _step(workflow, uses="actions/cache@")["with"]
    assert cache["path"] == ".cudalint_cache"
    assert "${{ github.sha }}" in cache["key"]
    assert "hashFiles" not in cache["key"]
    assert cache["key"].startswith(cache["restore-keys"])
    steps = _steps(workflow)
    assert steps.index(_step(workflow, uses="actions/cache@")) < steps.index(_step(workflow, run_prefix="cudalint "))


def test_the_cudalint_step_writes_the_sarif_the_upload_reads(workflow, work, capsys, monkeypatch):
    step = _step(workflow, run_prefix="cudalint ")
    upload = _step(workflow, uses="github/codeql-action/upload-sarif@")
    assert upload["if"] == "always()" and upload["with"]["category"] == "cudalint"
    argv = shlex.split(step["run"].replace("$CUDALINT_PATHS", workflow["env"]["CUDALINT_PATHS"]))
    assert argv[0] == "cudalint"
    (work / "src").mkdir()
    (work / "src" / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, *argv[1:])
    assert (code, out) == (0, "")  # --exit-zero: the upload step still runs
    sarif_file = work / upload["with"]["sarif_file"]
    log = json.loads(sarif_file.read_text())
    [res] = log["runs"][0]["results"]
    assert res["ruleId"] == "CUDA101"
    assert res["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/bug.cu",
                                                                           "uriBaseId": "%SRCROOT%"}


def test_docs_point_to_the_workflow_file():
    doc = (REPO / "docs" / "github-actions.md").read_text()
    assert "](workflows/cudalint.yml)" in doc
    cache_block = re.search(r"```yaml\n(\s+- uses: actions/cache@v4\n.*?)```", doc, re.S).group(1)
    [documented] = yaml.safe_load(cache_block)
    [wf] = [s for s in yaml.safe_load(WORKFLOW.read_text())["jobs"]["cudalint"]["steps"]
            if s.get("uses", "").startswith("actions/cache@")]
    assert documented == wf  # the page shows the workflow's own cache step
    assert "pip install cudalint\n" not in doc
