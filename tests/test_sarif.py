"""SARIF 2.1.0 output, validated against the official schema (../shared/data relative to the repo)."""

from __future__ import annotations

import json

import pytest

from cudalint.baseline import fingerprint
from cudalint.registry import all_rules
from workflow_helpers import BUGGY, KERNEL_LINE, MSG, SARIF_SCHEMA, kernel, run, work  # noqa: F401

jsonschema = pytest.importorskip("jsonschema")


@pytest.fixture(scope="module")
def validator():
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"SARIF schema not found at {SARIF_SCHEMA} (CI provides shared/ next to the checkout)")
    schema = json.loads(SARIF_SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif(capsys, *args):
    code, out, err = run(capsys, "--output-format", "sarif", *args)
    return code, json.loads(out)


def valid(validator, log):
    errors = sorted(validator.iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_one_finding(work, capsys, validator):
    (work / "src").mkdir()
    (work / "src" / "bug.cu").write_text(BUGGY)
    code, log = sarif(capsys, "src/bug.cu")
    assert code == 1
    valid(validator, log)
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "cudalint"
    assert driver["semanticVersion"] == __import__("cudalint").__version__
    assert driver["informationUri"].startswith("https://")
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(all_rules())
    [res] = run_["results"]
    assert res == {
        "ruleId": "CUDA101",
        "ruleIndex": ids.index("CUDA101"),
        "level": "error",
        "message": {"text": MSG.format(launch=8)},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "src/bug.cu", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 2, "startColumn": 14, "endLine": 2, "endColumn": 64}}}],
        "partialFingerprints": {"cudalint/v1": fingerprint("CUDA101", "src/bug.cu", KERNEL_LINE) + ":0"},
        "properties": {"name": "misaligned-vector-access", "category": "misaligned-access", "kernel": "k",
                       "confirmation": None},
        "relatedLocations": [{"id": 1, "message": {"text": "`in` declared here"},
                              "physicalLocation": {"artifactLocation": {"uri": "src/bug.cu", "uriBaseId": "%SRCROOT%"},
                                                   "region": {"startLine": 1, "startColumn": 19}}}],
    }


def test_rule_descriptor(work, capsys, validator):
    (work / "ok.cu").write_text(BUGGY)
    _, log = sarif(capsys, "ok.cu")
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    r = rules["CUDA101"]
    doc = all_rules()["CUDA101"].doc
    assert r["name"] == "misaligned-vector-access"
    assert r["shortDescription"]["text"] == all_rules()["CUDA101"].summary
    assert r["fullDescription"]["text"].startswith("Flags loads and stores through")
    assert r["help"] == {"text": doc, "markdown": doc}
    assert r["defaultConfiguration"] == {"level": "error"}
    assert r["properties"]["precision"] == "high"
    assert r["properties"]["problem.severity"] == "error"
    assert "misaligned-access" in r["properties"]["tags"]
    u = rules["CUDA901"]
    assert u["defaultConfiguration"] == {"level": "warning"}
    assert u["properties"]["problem.severity"] == "warning"
    for rule in rules.values():
        assert len(rule["shortDescription"]["text"]) <= 1024
        assert len(rule["properties"]["tags"]) <= 20


def test_clean_run_is_valid(work, capsys, validator):
    (work / "ok.cu").write_text(BUGGY.replace(KERNEL_LINE, "  float4 v = make_float4(0, 0, 0, 0);"))
    code, log = sarif(capsys, "ok.cu")
    assert code == 0
    valid(validator, log)
    assert log["runs"][0]["results"] == []


def test_fingerprint_survives_moving_code(work, capsys, validator):
    (work / "bug.cu").write_text(BUGGY)
    _, a = sarif(capsys, "bug.cu")
    (work / "bug.cu").write_text("// a new comment\n\n#include <cuda_runtime.h>\n" + BUGGY)
    _, b = sarif(capsys, "bug.cu")
    valid(validator, b)
    ra, rb = a["runs"][0]["results"][0], b["runs"][0]["results"][0]
    assert ra["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert rb["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert ra["partialFingerprints"] == rb["partialFingerprints"]


def test_identical_lines_get_distinct_fingerprints(work, capsys, validator):
    block = ["  {", "  " + KERNEL_LINE, "    out[threadIdx.x] = v.x;", "  }"]
    (work / "two.cu").write_text(kernel(block + block))
    _, log = sarif(capsys, "two.cu")
    valid(validator, log)
    fps = [r["partialFingerprints"]["cudalint/v1"] for r in log["runs"][0]["results"]]
    assert len(fps) == 2 and len(set(fps)) == 2
    assert fps[0].split(":")[0] == fps[1].split(":")[0]
    assert [fp.split(":")[1] for fp in fps] == ["0", "1"]


def test_paths_are_relative_posix_and_escaped(work, capsys, validator):
    d = work / "dir with space" / "sub"
    d.mkdir(parents=True)
    (d / "bug.cu").write_text(BUGGY)
    _, log = sarif(capsys, str(d / "bug.cu"))  # given as an absolute path
    valid(validator, log)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "dir%20with%20space/sub/bug.cu", "uriBaseId": "%SRCROOT%"}


def _uris(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "uri":
                yield v
            else:
                yield from _uris(v)
    elif isinstance(node, list):
        for v in node:
            yield from _uris(v)


@pytest.mark.parametrize("git", [False, True])
def test_uris_are_relative_to_the_project_root_from_a_subdirectory(work, capsys, validator, monkeypatch, git):
    root = work / "repo" if git else work  # the repository, else the config file's directory
    if git:
        (root / ".git").mkdir(parents=True)
    (root / "src" / "k").mkdir(parents=True)
    (root / "src" / "k" / "bug.cu").write_text(BUGGY)
    monkeypatch.chdir(root / "src")
    _, log = sarif(capsys, "k/bug.cu")
    valid(validator, log)
    run_ = log["runs"][0]
    assert run_["originalUriBaseIds"] == {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}}
    assert run_["invocations"][0]["workingDirectory"] == {"uri": (root / "src").resolve().as_uri() + "/"}
    [res] = run_["results"]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/k/bug.cu",
                                                                           "uriBaseId": "%SRCROOT%"}
    assert res["partialFingerprints"]["cudalint/v1"] == fingerprint("CUDA101", "src/k/bug.cu", KERNEL_LINE) + ":0"


def test_file_outside_the_root_gets_an_absolute_uri(work, capsys, validator, monkeypatch):
    repo = work / "repo"
    (repo / ".git").mkdir(parents=True)
    (work / "inc").mkdir()
    (work / "inc" / "k.cuh").write_text(BUGGY.split("\nint main")[0] + "\n")
    (repo / "main.cu").write_text('#include "../inc/k.cuh"\n\nint main() {\n  float *a = nullptr, *b = nullptr;\n'
                                  "  k<<<1, 64>>>(a, b);\n  return 0;\n}\n")
    monkeypatch.chdir(repo)
    _, log = sarif(capsys, "main.cu", "../inc/k.cuh")
    valid(validator, log)
    [res] = log["runs"][0]["results"]
    header = (work / "inc" / "k.cuh").resolve().as_uri()
    assert res["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": header}
    assert res["relatedLocations"][0]["physicalLocation"]["artifactLocation"] == {"uri": header}
    uris = list(_uris(log))
    assert uris and not [u for u in uris if u.startswith("..")]


def test_parse_problems_become_notifications(work, capsys, validator):
    (work / "bin.cu").write_bytes(b"\0binary")
    (work / "bug.cu").write_text(BUGGY)
    _, log = sarif(capsys, "bin.cu", "bug.cu")
    valid(validator, log)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["message"]["text"] == "binary file (contains NUL bytes); skipped"
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bin.cu"


def test_suppression_findings_are_valid_sarif(work, capsys, validator):
    (work / "s.cu").write_text(kernel(["  out[threadIdx.x] = in[threadIdx.x];  // cudalint: ignore[CUDA101]"]))
    code, log = sarif(capsys, "s.cu")
    valid(validator, log)
    [res] = log["runs"][0]["results"]
    assert res["ruleId"] == "CUDA901" and res["level"] == "warning"
