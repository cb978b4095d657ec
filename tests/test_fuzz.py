"""bench/fuzz.py (issue 14): its mutators do what they say, its judge catches what the contract
forbids, and a small deterministic slice of the campaign finds no culprit."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("fuzz", REPO / "bench" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
sys.modules["fuzz"] = fuzz  # dataclasses look their module up by name
_spec.loader.exec_module(fuzz)

TINY = b'#include <cstdio>\n#include "helpers.cuh"\n__global__ void k(int* p) {\n  p[0] = 42;\n}\n'


def mutate(name: str, text: bytes = TINY, seed: int = 0) -> bytes | None:
    return fuzz.MUTATORS[name](text, random.Random(seed))


@pytest.mark.parametrize("name", sorted(fuzz.MUTATORS))
def test_each_mutator_changes_the_text_the_same_way_for_a_seed(name):
    out = mutate(name)
    assert out is not None and out != TINY
    assert mutate(name) == out
    assert any(mutate(name, seed=s) != out for s in range(1, 6)) or name == "empty_file"


def test_line_mutators():
    lines = TINY.split(b"\n")
    deleted = mutate("delete_lines").split(b"\n")
    assert len(deleted) < len(lines) and all(line in lines for line in deleted)
    duplicated = mutate("duplicate_line").split(b"\n")
    assert len(duplicated) > len(lines) and set(duplicated) == set(lines)
    assert mutate("remove_include") in (TINY.replace(b"#include <cstdio>\n", b""),
                                        TINY.replace(b'#include "helpers.cuh"\n', b""))
    assert mutate("remove_include", b"__global__ void k() {}\n") is None


def test_byte_mutators():
    assert TINY.startswith(mutate("truncate")) and len(mutate("truncate")) < len(TINY)
    assert mutate("truncate", b"") is None
    assert len(mutate("insert_random_bytes")) > len(TINY)
    assert mutate("insert_nul_byte").replace(b"\0", b"", 1) == TINY
    with pytest.raises(UnicodeDecodeError):
        mutate("insert_invalid_utf8").decode("utf-8")
    assert mutate("empty_file") == b""


def test_swap_tokens_keeps_the_tokens_and_changes_their_order():
    out = mutate("swap_tokens")
    tokens = [m.group() for m in fuzz.TOKEN.finditer(TINY)]
    swapped = [m.group() for m in fuzz.TOKEN.finditer(out)]
    assert sorted(swapped) == sorted(tokens) and swapped != tokens
    assert mutate("swap_tokens", b"a a a") is None


def test_unbalance_brackets_drops_or_doubles_one_bracket():
    def brackets(text):
        return [text.count(b) for b in (b"{", b"}", b"(", b")", b"[", b"]")]
    for seed in range(6):
        before, after = brackets(TINY), brackets(mutate("unbalance_brackets", seed=seed))
        assert sorted(abs(a - b) for a, b in zip(before, after)) == [0, 0, 0, 0, 0, 1]
    assert mutate("unbalance_brackets", b"int x;") is None


def test_deep_nesting_wraps_the_kernel_body_in_balanced_ifs():
    out = mutate("deep_nesting")
    depth = out.count(b"if (threadIdx.x < 4096) {")
    assert depth in (100, 300, 1000)
    assert out.count(b"{") == out.count(b"}")
    body = out[out.index(b"__global__"):]
    assert body.startswith(b"__global__ void k(int* p) {if (") and body.rstrip().endswith(b"}" * (depth + 1))
    assert b"fuzz_deep" in mutate("deep_nesting", b"int x;\n")  # no kernel: one is added


def test_huge_literals_replaces_some_integers():
    out = mutate("huge_literals")
    assert any(huge in out for huge in fuzz.HUGE_INTEGERS)
    assert mutate("huge_literals", b"int x;") is None


def test_long_expression_opens_the_kernel_body():
    out = mutate("long_expression")
    assert out.startswith(TINY[:TINY.index(b"{") + 1] + b"int fuzz_long = ")
    assert out.count(b"+ 1") >= 500 or out.count(b"(") >= 500


def test_mutants_are_the_same_for_a_seed_whatever_else_runs(tmp_path):
    seeds = fuzz.seed_files([REPO / "fixtures" / "races"])
    one = [fuzz.make_mutant(i, 7, seeds, tmp_path / "a") for i in range(5)]
    two = [fuzz.make_mutant(i, 7, seeds, tmp_path / "b") for i in (4, 2)]
    assert [(m.seed_file, m.mutation, m.path) for m in (one[4], one[2])] == \
           [(m.seed_file, m.mutation, m.path) for m in two]
    assert (tmp_path / "a" / one[4].path).read_bytes() == (tmp_path / "b" / two[0].path).read_bytes()
    assert one[4].path.name == one[4].seed_file.name  # the seed's name and extension


def test_a_mutant_gets_the_headers_its_seed_includes(tmp_path):
    user = REPO / "fixtures" / "races" / "warp_helpers_user.cu"
    mutant = fuzz.make_mutant(0, 0, [user], tmp_path)
    assert (tmp_path / mutant.path.parent / "warp_helpers.cuh").is_file()


GOOD = json.dumps([{k: None for k in fuzz.FINDING_KEYS} | {"rule": "CUDA001", "message": "not fully checked: x"}])


def fake_run(returncode=0, stdout=GOOD, stderr="", seconds=1.0) -> fuzz.LinterRun:
    return fuzz.LinterRun(["a.cu"], returncode, stdout, stderr, seconds, limit=60.0)


def test_judge_passes_a_run_within_the_contract():
    assert fuzz.judge(fake_run()) == []
    assert fuzz.judge(fake_run(stdout="[]", stderr="a.cu:1:2: error: expected '}'\n")) == []


@pytest.mark.parametrize("run, problem", [
    (fake_run(stderr="Traceback (most recent call last):\n  File ...\nRecursionError\n"), "traceback"),
    (fake_run(stdout="[{\"rule\": "), "not JSON"),
    (fake_run(stdout="{}"), "not JSON"),
    (fake_run(stdout='[{"rule": "CUDA201"}]'), "not JSON"),  # a finding without the contract's keys
    (fake_run(stdout=GOOD.replace("not fully checked: x", "not fully checked: internal error in rule "
                                  "CUDA301: ValueError('negative shift count')")), "internal error"),
    (fake_run(stderr="a.cu: error: internal error while parsing: IndexError()\n"), "internal error"),
    (fake_run(stdout=GOOD.replace("CUDA001", "CUDA002").replace(
        "x", "file time budget of 5 s spent (analysis stopped; raise it with --file-budget)")), "over budget"),
    (fake_run(returncode=2), "exit 2"),
    (fake_run(returncode=1), "exit 1"),  # --exit-zero turns findings into 0
    (fake_run(returncode=-11, stdout=""), "exit -11"),
    (fake_run(seconds=61.0), "hang"),
    (fake_run(returncode=None, stdout=""), "hang"),
])
def test_judge_flags_what_the_contract_forbids(run, problem):
    assert problem in fuzz.judge(run)


@pytest.mark.slow
def test_a_deterministic_slice_finds_no_culprit(tmp_path):
    small = [REPO / "fixtures" / f for f in ("races/dead_branch.cu", "races/warp_helpers_user.cu",
                                             "barriers/statement_expr.cu", "host/main_leak.cu")]
    report = fuzz.fuzz(small, seed=0, count=13, jobs=2, budget=20, batch_size=7, work=tmp_path)
    assert len(report.batches) == 2 and len(report.mutants) == 13
    assert not report.failed, fuzz.summary(report, tmp_path)
    assert {m.mutation for m in report.mutants} == set(fuzz.MUTATORS)  # each takes its turn


def test_thousands_of_nested_parentheses_are_no_internal_error(tmp_path):
    expression = "(" * 3000 + "1" + ")" * 3000
    (tmp_path / "parens.cu").write_text(f"__global__ void k(int* p) {{ p[0] = {expression}; }}\n")
    # libclang-ng 22.1.4.2 segfaults parsing ~2000+ nested parentheses: cudalint does not hand it
    # such a file (bench/fuzz.py --seed 1 -n 300 found it as a dead worker, "internal error")
    assert fuzz.judge(fuzz.run_cudalint(["parens.cu"], tmp_path, budget=20)) == []
