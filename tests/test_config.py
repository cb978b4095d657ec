"""Configuration files: discovery, keys, errors (exit 2 naming file and key), CLI precedence."""

from __future__ import annotations

import pytest

from cudalint.config import ConfigError, find_config, load_config
from workflow_helpers import BUGGY, FIXED, run, run_json, work  # noqa: F401


def test_pyproject_tool_table(work, capsys):
    (work / "cudalint.toml").unlink()
    (work / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cudalint]\nignore = ["CUDA101"]\n')
    (work / "bug.cu").write_text(BUGGY)
    assert run(capsys, "bug.cu")[0] == 0


def test_walks_up_from_first_path(work, capsys):
    (work / "cudalint.toml").write_text('ignore = ["CUDA1"]\n')
    sub = work / "a" / "b"
    sub.mkdir(parents=True)
    (sub / "bug.cu").write_text(BUGGY)
    assert find_config(sub / "bug.cu") == work / "cudalint.toml"
    assert run(capsys, "a/b/bug.cu")[0] == 0
    # a pyproject.toml without [tool.cudalint] nearer the file does not stop the search
    (work / "a" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(sub) == work / "cudalint.toml"


def test_isolated_and_explicit_config(work, capsys):
    (work / "cudalint.toml").write_text('ignore = ["CUDA101"]\n')
    (work / "bug.cu").write_text(BUGGY)
    assert run(capsys, "bug.cu")[0] == 0
    assert run(capsys, "--isolated", "-q", "bug.cu")[0] == 1
    (work / "other.toml").write_text('select = ["CUDA101"]\n')
    assert run(capsys, "--config", "other.toml", "-q", "bug.cu")[0] == 1
    (work / "pp").mkdir()
    (work / "pp" / "pyproject.toml").write_text('[tool.cudalint]\nignore = ["CUDA101"]\n')
    assert run(capsys, "--config", "pp/pyproject.toml", "bug.cu")[0] == 0


def test_cli_overrides_config(work, capsys):
    (work / "cudalint.toml").write_text('select = ["CUDA9"]\ncuda-mode = "toolkit"\n')
    (work / "bug.cu").write_text(BUGGY)
    # --select replaces the file's select; --cuda-mode shim (added by run()) replaces toolkit
    assert run(capsys, "--select", "CUDA101", "-q", "bug.cu")[0] == 1
    assert run(capsys, "bug.cu")[0] == 0


@pytest.mark.parametrize("text, message", [
    ('colour = "never"\n', "unknown key 'colour' (known keys: "),
    ('per_file_ignores = {}\n', "unknown key 'per_file_ignores'; did you mean 'per-file-ignores'?"),
    ('select = "CUDA101"\n', "key 'select': expected a list of strings, got a string (write ['CUDA101'])"),
    ('select = ["CUDA777"]\n', "key 'select': unknown rule code or prefix: 'CUDA777'"),
    ('cuda-mode = "magic"\n', "key 'cuda-mode': expected one of 'auto', 'shim', 'toolkit', got 'magic'"),
    ('jobs = -1\n', "key 'jobs': must be at least 0, got -1"),
    ('jobs = "4"\n', "key 'jobs': expected an integer, got a string"),
    ('solver-timeout-ms = 0\n', "key 'solver-timeout-ms': must be at least 1, got 0"),
    ('file-budget-s = -2\n', "key 'file-budget-s': must be positive, got -2"),
    ('min-bank-conflict-degree = 1\n', "key 'min-bank-conflict-degree': must be at least 2, got 1"),
    ('[block-dim]\nk = [0, 1]\n', "key 'block-dim': 'k': expected [x, y, z] (1 to 3 positive integers), got [0, 1]"),
    ('[severity]\nCUDA101 = "fatal"\n', "key 'severity': 'CUDA101': expected one of error, warning, note, got 'fatal'"),
    ('[per-file-ignores]\n"*.cuh" = ["CUDA888"]\n', "key 'per-file-ignores': '*.cuh': unknown rule code"),
    ('select = [\n', "invalid TOML"),
])
def test_bad_config_exits_2_naming_file_and_key(work, capsys, text, message):
    (work / "cudalint.toml").write_text(text)
    (work / "ok.cu").write_text(FIXED)
    code, out, err = run(capsys, "ok.cu")
    assert code == 2
    assert out == ""
    assert err.startswith(f"cudalint: error: {work / 'cudalint.toml'}: ")
    assert message in err


def test_bad_pyproject_key_is_prefixed(work):
    (work / "pyproject.toml").write_text('[tool.cudalint]\nstd = 17\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: key 'tool.cudalint.std': expected a string, got an integer"):
        load_config(work / "pyproject.toml")


def test_missing_explicit_config_exits_2(work, capsys):
    code, _, err = run(capsys, "--config", "nope.toml", ".")
    assert code == 2 and "nope.toml: cannot read config file" in err


def test_every_key_is_accepted(work):
    (work / "inc").mkdir()
    (work / "cudalint.toml").write_text("""
select = ["CUDA1", "CUDA9"]
ignore = ["CUDA901"]
exclude = ["third_party/**"]
extensions = ["cu", ".cuh", ".cuda"]
cuda-mode = "shim"
cuda-path = "/opt/cuda"
include-dirs = ["inc"]
defines = ["NDEBUG", "TILE=32"]
std = "c++20"
compile-commands-dir = "build"
solver-timeout-ms = 500
file-budget-s = 5
min-bank-conflict-degree = 4
jobs = 2

[per-file-ignores]
"tests/**" = ["CUDA1"]

[block-dim]
reduce = [256]
tile = [16, 16]

[severity]
CUDA101 = "warning"
""")
    cfg = load_config(work / "cudalint.toml")
    v = cfg.values
    assert v["extensions"] == (".cu", ".cuh", ".cuda")
    assert v["include-dirs"] == [str(work / "inc")]
    assert v["compile-commands-dir"] == str(work / "build")
    assert v["block-dim"] == {"reduce": (256, 1, 1), "tile": (16, 16, 1)}
    assert v["severity"] == {"CUDA101": "warning"}
    assert v["per-file-ignores"] == (("tests/**", ("CUDA1",)),)
    assert v["file-budget-s"] == 5.0
    from types import SimpleNamespace
    from cudalint.cli import _parser, settings_from_args
    s = settings_from_args(_parser().parse_args(["-I", "more", "--block-dim", "tile=8,8"]), cfg)
    assert s.include_dirs == (str(work / "inc"), "more")
    assert s.block_dims == {"reduce": (256, 1, 1), "tile": (8, 8, 1)}
    assert (s.cuda_mode, s.std, s.solver_timeout_ms, s.min_bank_conflict_degree) == ("shim", "c++20", 500, 4)
    assert s.defines == ("NDEBUG", "TILE=32") and s.extensions == (".cu", ".cuh", ".cuda")
    assert s.select == ("CUDA1", "CUDA9") and s.ignore == ("CUDA901",)
    assert isinstance(SimpleNamespace, type)


def test_per_file_ignores_and_exclude(work, capsys):
    (work / "cudalint.toml").write_text('exclude = ["third_party/"]\n[per-file-ignores]\n"legacy/**" = ["CUDA1"]\n')
    for d in ("src", "legacy/old", "third_party"):
        (work / d).mkdir(parents=True)
        (work / d / "bug.cu").write_text(BUGGY)
    code, data = run_json(capsys, ".")
    assert code == 1
    assert [f["path"] for f in data] == ["./src/bug.cu"]
    # pre-commit passes files explicitly: kept unless --force-exclude
    assert [f["path"] for f in run_json(capsys, "third_party/bug.cu")[1]] == ["third_party/bug.cu"]
    assert run_json(capsys, "--force-exclude", "third_party/bug.cu")[1] == []
    assert run_json(capsys, "--exclude", "src", ".")[1] == []


def test_extensions_from_config(work, capsys):
    (work / "cudalint.toml").write_text('extensions = [".cuda"]\n')
    (work / "k.cuda").write_text(BUGGY)
    (work / "k.cu").write_text(BUGGY)
    assert [f["path"] for f in run_json(capsys, ".")[1]] == ["./k.cuda"]


def test_block_dim_and_jobs_from_config(work, capsys):
    src = BUGGY.replace("  k<<<1, 64>>>(a, b);\n", "")
    (work / "k.cu").write_text(src)
    (work / "cudalint.toml").write_text('jobs = 1\n[block-dim]\nk = [32]\n')
    code, data = run_json(capsys, "k.cu")
    assert code == 1 and "blockDim=(32, 1, 1)" in data[0]["message"]
