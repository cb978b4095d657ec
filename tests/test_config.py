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
    ('cuda-path = "no/such/dir"\n', "key 'cuda-path': no CUDA toolkit at "),
    ('file-budget-s = nan\n', "key 'file-budget-s': must be positive, got nan"),
    ('[confirm-args]\n"main.cu" = ["-n", "4"]\n',
     "key 'confirm-args': 'main.cu': expected the arguments as one string, got a list"),
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
    (work / "opt" / "cuda" / "include").mkdir(parents=True)
    (work / "opt" / "cuda" / "include" / "cuda_runtime.h").write_text("")
    (work / "cudalint.toml").write_text("""
select = ["CUDA1", "CUDA9"]
ignore = ["CUDA901"]
exclude = ["third_party/**"]
extensions = ["cu", ".cuh", ".cuda"]
cuda-mode = "shim"
cuda-path = "opt/cuda"
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
    from cudalint.arguments import parser, settings_from_args
    s = settings_from_args(parser().parse_args(["-I", "more", "--block-dim", "tile=8,8"]), cfg)
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


@pytest.mark.parametrize("name, text, line, column", [
    ("cudalint.toml", 'ignore = ["CUDA9"]\nselect = [\n', 3, 1),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.cudalint]\nignore = ["CUDA101"\nstd = "c++17"\n', 6, 1),
    ("pyproject.toml", '[tool.cudalint]\nselect = ["CUDA1"] ignore = []\n', 2, 20),
])
def test_syntax_error_exits_2_naming_file_and_line(work, capsys, name, text, line, column):
    """A broken [tool.cudalint] used to be skipped silently (every rule ran): now exit 2, and the
    error points at the line, as a compiler's would."""
    import tomllib
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    if name != "cudalint.toml":
        (work / "cudalint.toml").unlink()
    (work / name).write_text(text)
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "bug.cu")
    assert (code, out) == (2, "")
    assert err.startswith(f"cudalint: error: {work / name}:{line}:{column}: invalid TOML: ")
    assert err.count("\n") == 1


def test_broken_pyproject_of_someone_else_is_skipped(work, capsys):
    (work / "cudalint.toml").write_text('ignore = ["CUDA101"]\n')
    (work / "sub").mkdir()
    (work / "sub" / "pyproject.toml").write_text('[tool.ruff]\nline-length = \n')  # no cudalint in it
    (work / "sub" / "bug.cu").write_text(BUGGY)
    assert find_config(work / "sub") == work / "cudalint.toml"
    assert run(capsys, "sub/bug.cu")[0] == 0


def test_explicit_pyproject_without_our_table_exits_2(work, capsys):
    (work / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (work / "bug.cu").write_text(BUGGY)
    code, _, err = run(capsys, "--config", "pyproject.toml", "bug.cu")
    assert (code, err) == (2, "cudalint: error: pyproject.toml: no [tool.cudalint] table (cudalint's settings go there)\n")


@pytest.mark.parametrize("flag, value, message", [
    ("--file-budget", "-1", "must be positive, got -1"),
    ("--file-budget", "nan", "must be positive, got nan"),
    ("--solver-timeout", "0", "must be at least 1, got 0"),
    ("--min-bank-conflict-degree", "1", "must be at least 2, got 1"),
    ("--jobs", "-3", "must be at least 0, got -3"),
    ("--cuda-path", "/nonexistent", "no CUDA toolkit at /nonexistent (it does not exist)"),
    ("--cuda-path", ".", "no CUDA toolkit at {work} (no include/cuda_runtime.h there)"),
])
def test_command_line_rejects_what_the_config_rejects(work, capsys, flag, value, message):
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, flag, value, "bug.cu")
    assert (code, out) == (2, "")
    assert err == f"cudalint: error: {flag} {value}: {message.format(work=work)}\n"
    key = {"--file-budget": "file-budget-s", "--solver-timeout": "solver-timeout-ms", "--jobs": "jobs",
           "--min-bank-conflict-degree": "min-bank-conflict-degree", "--cuda-path": "cuda-path"}[flag]
    (work / "cudalint.toml").write_text(f"{key} = {value if flag != '--cuda-path' else repr(value)}\n")
    code, _, err = run(capsys, "bug.cu")
    assert code == 2 and err.startswith(f"cudalint: error: {work / 'cudalint.toml'}: key '{key}': ")
    assert err.endswith(message.format(work=work) + "\n")


def test_cuda_path_to_a_toolkit_is_accepted(work, capsys):
    (work / "tk" / "include").mkdir(parents=True)
    (work / "tk" / "include" / "cuda_runtime.h").write_text("")
    (work / "ok.cu").write_text(FIXED)
    assert run(capsys, "--cuda-path", "tk", "ok.cu")[0] == 0  # run() adds --cuda-mode shim


def test_confirm_args_per_file_and_from_the_command_line(work):
    """The host programs --confirm runs: the last matching glob's arguments, --confirm-args for every file."""
    from cudalint.arguments import parser, settings_from_args
    from cudalint.gpu.host import program_args
    (work / "cudalint.toml").write_text('[confirm-args]\n"src/*.cu" = "-n 64"\n"src/big.cu" = "--size \'1 << 20\'"\n')
    cfg = load_config(work / "cudalint.toml")
    assert cfg.values["confirm-args"] == (("src/*.cu", "-n 64"), ("src/big.cu", "--size '1 << 20'"))
    s = settings_from_args(parser().parse_args([]), cfg)
    assert program_args(str(work / "src" / "small.cu"), s) == ["-n", "64"]
    assert program_args(str(work / "src" / "big.cu"), s) == ["--size", "1 << 20"]
    assert program_args(str(work / "tools" / "gen.cu"), s) == []
    s = settings_from_args(parser().parse_args(["--confirm-args", "7 x"]), cfg)
    assert program_args(str(work / "src" / "big.cu"), s) == ["7", "x"]


def test_show_settings_says_where_each_came_from(work, capsys):
    import tomllib
    from cudalint.config import KNOWN_KEYS
    cfg = work / "cudalint.toml"
    cfg.write_text('ignore = ["CUDA9"]\nstd = "c++20"\nexclude = ["vendor/"]\n'
                   '[block-dim]\n"*" = [64]\n[per-file-ignores]\n"tests/**" = ["CUDA1"]\n')
    code, out, err = run(capsys, "--show-settings", "--ignore", "CUDA3", "-I", "inc", "-j", "2",
                         "--solver-timeout", "500")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == [f"# config file: {cfg}", f"# project root: {work}",
                         "# cuda-mode shim: CUDA headers from cudalint's shim"]
    body = {line.split(" ", 1)[0]: line for line in lines[3:]}
    assert body["ignore"] == f'ignore = ["CUDA9", "CUDA3"]  # {cfg} + command line'
    assert body["std"] == f'std = "c++20"  # {cfg}'
    assert body["cuda-mode"] == 'cuda-mode = "shim"  # command line'
    assert body["include-dirs"] == f'include-dirs = ["{work / "inc"}"]  # command line'
    assert body["block-dim"] == f'block-dim = {{ "*" = [64, 1, 1] }}  # {cfg}'
    assert body["per-file-ignores"] == f'per-file-ignores = {{ "tests/**" = ["CUDA1"] }}  # {cfg}'
    assert body["solver-timeout-ms"] == "solver-timeout-ms = 500  # command line"
    assert body["jobs"] == "jobs = 2  # command line"
    assert body["file-budget-s"] == "file-budget-s = 20.0  # default"
    assert "# cuda-path: not set  # default" in lines
    assert [k for k in KNOWN_KEYS if k not in body and f"# {k}: not set  # default" not in lines] == []
    # it is TOML with the config file's keys: used as the config, it gives the same settings
    shown = tomllib.loads(out)
    (work / "shown").mkdir()
    (work / "shown" / "cudalint.toml").write_text(out)
    code, again, _ = run(capsys, "--show-settings", "--cuda-mode", "shim", "--config", "shown/cudalint.toml")
    assert code == 0
    assert tomllib.loads(again) == shown


def test_verbose_names_the_config_file_and_cuda_mode(work, capsys):
    (work / "ok.cu").write_text(FIXED)
    code, _, err = run(capsys, "-v", "ok.cu")
    assert code == 0
    assert err.splitlines()[:3] == [f"cudalint: config: {work / 'cudalint.toml'}",
                                    f"cudalint: project root: {work}",
                                    "cudalint: cuda-mode shim: CUDA headers from cudalint's shim"]
    code, _, err = run(capsys, "-v", "--isolated", "ok.cu")
    assert err.splitlines()[0] == "cudalint: config: none (--isolated)"
