"""A file that was not fully checked shows in every output format and in the exit status."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from workflow_helpers import BUGGY, SARIF_SCHEMA, run, work  # noqa: F401

NEEDS_MACRO = '#include "cfg.h"\n' + BUGGY


@pytest.fixture
def broken(work):
    """A file whose include stops the build (`#error`), as a kernel tree without its config has."""
    (work / "cfg.h").write_text('#ifndef VEC\n#error "VEC must be defined by the build"\n#endif\n')
    (work / "k.cu").write_text(NEEDS_MACRO)
    return work


def test_text_counts_the_file_and_exits_2(broken, capsys):
    code, out, err = run(capsys, "-q", "k.cu")
    assert err == ""  # -q hides the parse errors themselves...
    assert out.endswith("1 file not fully checked (1 with parse errors); their findings may be incomplete.\n")
    assert code == 2  # ...but not the count, and pre-commit does not say "Passed"


def test_exit_zero_still_exits_0(broken, capsys):
    assert run(capsys, "-q", "--exit-zero", "k.cu")[0] == 0


def test_json_has_a_finding_shaped_entry(broken, capsys):
    code, out, err = run(capsys, "--output-format", "json", "k.cu")
    entry = json.loads(out)[-1]
    assert {k: entry[k] for k in ("rule", "name", "category", "severity", "path", "line")} == {
        "rule": "CUDA001", "name": "parse-error", "category": "not-checked", "severity": "error",
        "path": "k.cu", "line": 1}
    assert entry["message"] == 'not fully checked: "VEC must be defined by the build" (in ./cfg.h:2)'
    assert code == 2


def test_sarif_notification_and_execution_unsuccessful(broken, capsys):
    code, out, err = run(capsys, "--output-format", "sarif", "k.cu")
    log = json.loads(out)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["message"]["text"] for n in invocation["toolExecutionNotifications"]] == [
        '"VEC must be defined by the build" (in ./cfg.h:2)']
    if SARIF_SCHEMA.is_file():
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))


def test_github_error_annotation(broken, capsys):
    code, out, err = run(capsys, "--output-format", "github", "k.cu")
    assert out.splitlines()[-1] == ("::error file=k.cu,line=1,col=1,endLine=1,endColumn=1,title=CUDA001 parse-error::"
                                    'not fully checked: "VEC must be defined by the build" (in ./cfg.h:2)')


def test_junit_error(broken, capsys):
    code, out, err = run(capsys, "--output-format", "junit", "k.cu")
    root = ET.fromstring(out.encode())
    assert root.get("errors") == "1"
    error = root.find("testsuite/testcase/error")
    assert error.get("type") == "CUDA001"
    assert error.get("message") == 'not fully checked: "VEC must be defined by the build" (in ./cfg.h:2)'


def test_parse_errors_are_capped_per_file_with_a_hint(work, capsys):
    (work / "many.cu").write_text("".join(f'#include "missing_{i}.h"\n' for i in range(6)) + BUGGY)
    code, out, err = run(capsys, "many.cu")
    assert err.splitlines() == [f"many.cu:{i + 1}:10: error: 'missing_{i}.h' file not found" for i in range(3)] + [
        "many.cu: ... 3 more parse errors (-v shows them)"]
    assert out.endswith("1 file not fully checked (1 with parse errors); their findings may be incomplete. "
                        "Headers were not found: pass -I DIR, or -p BUILD_DIR for compile_commands.json.\n")
    code, out, err = run(capsys, "-v", "many.cu")
    assert sum("file not found" in line for line in err.splitlines()) == 6


def test_command_line_limits_match_the_config(work, capsys):
    for flag, value in (("--file-budget", "-1"), ("--solver-timeout", "0"), ("--min-bank-conflict-degree", "1")):
        code, out, err = run(capsys, flag, value, ".")
        assert code == 2 and f"cudalint: error: {flag} " in err
