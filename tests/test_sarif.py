"""SARIF 2.1.0 output, validated against the official schema (../shared/data relative to the repo)."""

from __future__ import annotations

import json

import pytest

from cudalint.findings import fingerprint
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
    fp = fingerprint("CUDA101", "src/bug.cu", KERNEL_LINE)
    assert res == {
        "ruleId": "CUDA101",
        "ruleIndex": ids.index("CUDA101"),
        "level": "error",
        "message": {"text": MSG.format(launch=8) + ". Related locations: [`in` declared here](1)."},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "src/bug.cu", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 2, "startColumn": 14, "endLine": 2, "endColumn": 64}}}],
        "partialFingerprints": {"primaryLocationLineHash": fp[:16] + ":1", "cudalint/v1": fp + ":0"},
        "properties": {"name": "misaligned-vector-access", "category": "misaligned-access", "kernel": "k",
                       "confirmation": None, "witness": "thread (1,0,0)", "byte_offset": 4,
                       "access": "read", "witnesses": [[[1, 0, 0], [0, 0, 0]]],
                       "shape_source": "the launch at line 8", "launch_line": 8,
                       "block_dim": "64,1,1", "grid_dim": "1,1,1"},
        "relatedLocations": [{"id": 1, "message": {"text": "`in` declared here"},
                              "physicalLocation": {"artifactLocation": {"uri": "src/bug.cu", "uriBaseId": "%SRCROOT%"},
                                                   "region": {"startLine": 1, "startColumn": 19}}}],
    }


def test_help_uri_per_rule_names_the_rule_module(work, capsys, validator):
    """helpUri: an absolute https URL (a malformed one rejects the whole upload) to the rule's
    module in the repository, whose docstring is the rule's documentation."""
    from urllib.parse import urlparse
    from cudalint.findings import REPOSITORY_URL
    from workflow_helpers import REPO
    (work / "ok.cu").write_text(BUGGY)
    _, log = sarif(capsys, "ok.cu")
    valid(validator, log)
    uris = {r["id"]: r["helpUri"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert set(uris) == set(all_rules())
    assert len(set(uris.values())) == len(uris)
    for code, uri in uris.items():
        parsed = urlparse(uri)
        assert (parsed.scheme, parsed.netloc) == ("https", urlparse(REPOSITORY_URL).netloc)
        assert uri.startswith(REPOSITORY_URL + "/blob/main/rules/")
        module = REPO / "rules" / uri.rsplit("/", 1)[1]
        assert module.is_file(), uri
        assert all_rules()[code].doc.splitlines()[0] in module.read_text()
    assert uris["CUDA101"] == REPOSITORY_URL + "/blob/main/rules/misaligned_vector_access.py"


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
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]
    assert hashes == [fps[0][:16] + ":1", fps[0][:16] + ":2"]  # GitHub's shape: hash, then occurrence from 1


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


RACE = """__global__ void k(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[threadIdx.x + 1];
}

int main() {
  float* o = nullptr;
  k<<<1, 64>>>(o);
  return 0;
}
"""


def test_related_locations_are_linked_and_brackets_escaped(work, capsys, validator):
    import re
    (work / "race.cu").write_text(RACE)
    (work / "bug.cu").write_text(BUGGY)
    _, log = sarif(capsys, "race.cu", "bug.cu")
    valid(validator, log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["CUDA201", "CUDA101"]
    for res in results:
        text = res["message"]["text"]
        links = re.findall(r"(?<!\\)\[((?:\\.|[^\\\]])*)\]\((\d+)\)", text)
        ids = [r["id"] for r in res["relatedLocations"]]
        assert [int(i) for _, i in links] == ids  # each related location linked once, in order
        for (label, _), rel in zip(links, res["relatedLocations"]):
            assert label == rel["message"]["text"]
        # outside the links every bracket is escaped
        assert not re.search(r"(?<!\\)[\[\]]", re.sub(r"(?<!\\)\[(?:\\.|[^\\\]])*\]\(\d+\)", "", text))
    race = results[0]
    code, out, _ = run(capsys, "--output-format", "json", "race.cu")
    plain = json.loads(out)[0]["message"]
    assert "[" in plain
    escaped = plain.replace("[", "\\[").replace("]", "\\]")
    assert race["message"]["text"] == (f"{escaped}. Related locations: [the other access (`s\\[threadIdx.x\\] = "
                                       "threadIdx.x`)](1); [`s` declared here](2).")
    assert race["relatedLocations"][0]["message"]["text"] == "the other access (`s\\[threadIdx.x\\] = threadIdx.x`)"


def test_race_witness_is_a_code_flow(work, capsys, validator):
    import re
    (work / "race.cu").write_text(RACE)
    (work / "bug.cu").write_text(BUGGY)
    _, log = sarif(capsys, "race.cu", "bug.cu")
    valid(validator, log)
    race, misaligned = log["runs"][0]["results"]
    assert "codeFlows" not in misaligned
    first, second = re.findall(r"thread \(\d+,\d+,\d+\)", race["message"]["text"])[:2]
    assert first != second
    assert (race["properties"]["first_thread"], race["properties"]["second_thread"]) == (first, second)
    [flow] = race["codeFlows"]
    assert flow["message"]["text"] == f"{first} and {second} touch the same address; nothing orders the two accesses"
    one, two = flow["threadFlows"]
    assert (one["message"]["text"], two["message"]["text"]) == (first, second)
    [a], [b] = one["locations"], two["locations"]
    assert a["location"]["physicalLocation"] == {"artifactLocation": {"uri": "race.cu", "uriBaseId": "%SRCROOT%"},
                                                 "region": {"startLine": 3, "startColumn": 3}}
    assert a["location"]["message"]["text"] == f"{first}: the other access (`s\\[threadIdx.x\\] = threadIdx.x`)"
    assert b["location"]["physicalLocation"] == race["locations"][0]["physicalLocation"]
    assert b["location"]["physicalLocation"]["region"]["startLine"] == 4
    assert b["location"]["message"]["text"] == f"{second}: this access (`s\\[threadIdx.x + 1\\]`)"
