"""Mutation fuzzing of cudalint (issue 14): damaged copies of the fixtures and examples must never
make it crash, hang or break its output contract.

    python bench/fuzz.py                          # 200 mutants of fixtures/ and examples/, seed 0
    python bench/fuzz.py --seed 1 -n 300 --jobs 2 --file-budget 5 --work /tmp/fuzz
    python bench/fuzz.py -n 50 fixtures/races     # mutants of some files only

Each mutant is one seed file damaged by one mutator (below), written to its own folder under
WORK/mutants/ with the seed's file name. cudalint runs over batches of mutants as a subprocess:

    python -m cudalint --output-format json --exit-zero --no-cache -j 1 --file-budget B FILES

and a batch fails (see `judge`) on an exit status other than 0 (with --exit-zero only usage
errors, which this command line never makes, may give 2), output that is not the contract's JSON
array of findings, a traceback on stderr, an "internal error" anywhere, a file that reports its
time budget spent, or a run past its time limit (each file's budget and grace period, twice for
the second pass over files whose kernels other files launch, plus the start-up). A failing batch
is run again file by file to name its culprits, which are copied to WORK/culprits/ with the
mutation in the name. Prints a summary table and writes WORK/report.json; exits 1 on a culprit.
The same seed gives the same mutants, whatever -n, --jobs or the batch size: mutant i draws from
random.Random(f"{seed}:{i}") alone.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cudalint.discover import discover

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = [REPO / "fixtures", REPO / "examples"]
SEED_SUFFIXES = (".cu", ".cuh")

# cudalint kills a file's worker at its budget plus a grace period of at most 2 s (README, Usage)
GRACE_S = 2.0
# every file may be analysed twice: again when another file of the run launches its kernels
PASSES = 2
# interpreter start, imports and libclang loading, on a machine that may be busy
STARTUP_S = 30.0

# ---------------------------------------------------------------------------------------------
# Mutators: (text, rng) -> damaged text, or None where the damage does not apply to this text.

TOKEN = re.compile(rb"[A-Za-z_]\w*|\d+|\S")
INTEGER = re.compile(rb"\b\d+\b")
BRACKETS = b"{}()[]"
KERNEL_OPENING = re.compile(rb"__global__[^;{]*\{")
HUGE_INTEGERS = [b"2147483648", b"4294967296", b"18446744073709551616", b"0xFFFFFFFFFFFFFFFF",
                 b"99999999999999999999999999999999", b"1" + b"0" * 300]
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]


def delete_lines(text: bytes, rng: random.Random) -> bytes | None:
    lines = text.split(b"\n")
    if len(lines) < 2:
        return None
    start = rng.randrange(len(lines))
    del lines[start:start + rng.randint(1, 10)]
    return b"\n".join(lines)


def duplicate_line(text: bytes, rng: random.Random) -> bytes | None:
    lines = text.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i:i] = [lines[i]] * rng.choice([1, 2, 50])
    return b"\n".join(lines)


def truncate(text: bytes, rng: random.Random) -> bytes | None:
    return text[:rng.randrange(len(text))] if text else None


def insert_random_bytes(text: bytes, rng: random.Random) -> bytes | None:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.randbytes(rng.randint(1, 32)) + text[at:]


def insert_invalid_utf8(text: bytes, rng: random.Random) -> bytes | None:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(INVALID_UTF8) + text[at:]


def insert_nul_byte(text: bytes, rng: random.Random) -> bytes | None:
    at = rng.randrange(len(text) + 1)
    return text[:at] + b"\0" + text[at:]


def swap_tokens(text: bytes, rng: random.Random) -> bytes | None:
    tokens = list(TOKEN.finditer(text))
    for _ in range(20 if len(tokens) >= 2 else 0):  # a few tries at two tokens that differ
        first, second = sorted(rng.sample(tokens, 2), key=lambda m: m.start())
        if first.group() != second.group():
            return (text[:first.start()] + second.group() + text[first.end():second.start()]
                    + first.group() + text[second.end():])
    return None


def unbalance_brackets(text: bytes, rng: random.Random) -> bytes | None:
    """Drop one bracket, or double it."""
    places = [i for i, byte in enumerate(text) if byte in BRACKETS]
    if not places:
        return None
    i = rng.choice(places)
    kept = text[i:i + 1] * 2 if rng.random() < 0.5 else b""
    return text[:i] + kept + text[i + 1:]


def deep_nesting(text: bytes, rng: random.Random) -> bytes | None:
    """A kernel's body inside hundreds of nested ifs (a new kernel where the file has none)."""
    depth = rng.choice([100, 300, 1000])
    opening, closing = b"if (threadIdx.x < 4096) {" * depth, b"}" * depth
    body = _kernel_body(text)
    if body is None:
        kernel = b"__global__ void fuzz_deep(float* p) {" + opening + b"p[threadIdx.x] = 0;" + closing + b"}"
        return text + b"\n" + kernel + b"\n"
    start, end = body
    return text[:start] + opening + text[start:end] + closing + text[end:]


def huge_literals(text: bytes, rng: random.Random) -> bytes | None:
    """Some integer literals (array sizes, loop bounds, launch shapes) far past 32 or 64 bits."""
    literals = list(INTEGER.finditer(text))
    if not literals:
        return None
    chosen = {m.start() for m in rng.sample(literals, min(len(literals), rng.randint(1, 5)))}
    return INTEGER.sub(lambda m: rng.choice(HUGE_INTEGERS) if m.start() in chosen else m.group(), text)


def remove_include(text: bytes, rng: random.Random) -> bytes | None:
    lines = text.split(b"\n")
    includes = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"#include")]
    if not includes:
        return None
    del lines[rng.choice(includes)]
    return b"\n".join(lines)


def long_expression(text: bytes, rng: random.Random) -> bytes | None:
    """Thousands of operators in one statement at the start of a kernel: a flat chain or a
    tower of parentheses."""
    n = rng.choice([500, 3000])
    expression = b"1" + b" + 1" * n if rng.random() < 0.5 else b"(" * n + b"1" + b")" * n
    statement = b"int fuzz_long = " + expression + b";"
    body = _kernel_body(text)
    if body is None:
        return text + b"\n__global__ void fuzz_long_kernel() {" + statement + b"}\n"
    return text[:body[0]] + statement + text[body[0]:]


def empty_file(text: bytes, rng: random.Random) -> bytes | None:
    return b""


def _kernel_body(text: bytes) -> tuple[int, int] | None:
    """(first byte inside, closing brace) of the first kernel's body; the closing brace is the end
    of the text when the braces do not balance. Strings and comments are not skipped: the
    fixtures' kernels hold no braces in either."""
    opening = KERNEL_OPENING.search(text)
    if opening is None:
        return None
    depth = 1
    for i in range(opening.end(), len(text)):
        depth += {ord("{"): 1, ord("}"): -1}.get(text[i], 0)
        if depth == 0:
            return opening.end(), i
    return opening.end(), len(text)


MUTATORS = {f.__name__: f for f in (
    delete_lines, duplicate_line, truncate, insert_random_bytes, insert_invalid_utf8,
    insert_nul_byte, swap_tokens, unbalance_brackets, deep_nesting, huge_literals, remove_include,
    long_expression, empty_file)}


# ---------------------------------------------------------------------------------------------
# Mutants


@dataclass
class Mutant:
    index: int
    seed_file: Path
    mutation: str
    path: Path  # relative to the mutants folder


def seed_files(paths: list[Path]) -> list[Path]:
    """The files cudalint itself would check under `paths`, sorted (a seed's mutants do not
    depend on the walk's order)."""
    found, problems = discover([str(p) for p in paths], SEED_SUFFIXES)
    if problems:
        raise SystemExit(f"fuzz: {problems[0]}")
    return sorted(Path(f) for f in found)


def make_mutant(index: int, seed: int, seeds: list[Path], folder: Path) -> Mutant:
    """Mutant `index` of `seed`: a seed file drawn from an RNG of its own, damaged by mutator
    number `index` (or, where that one does not apply, another drawn at random), written to
    folder/NNNNN/<the seed's name> beside the headers the seed includes."""
    rng = random.Random(f"{seed}:{index}")
    seed_file = rng.choice(seeds)
    text = seed_file.read_bytes()
    # mutators take turns, so that any len(MUTATORS) mutants in a row try every one of them
    names = list(MUTATORS)
    first = names.pop(index % len(names))
    rng.shuffle(names)
    mutation, damaged = next((n, d) for n in [first] + names if (d := MUTATORS[n](text, rng)) is not None)
    home = folder / f"{index:05d}"
    home.mkdir(parents=True)
    (home / seed_file.name).write_bytes(damaged)
    for header in re.findall(rb'#include\s*"([^"]+)"', text):
        beside = seed_file.parent / header.decode(errors="replace")
        if beside.is_file() and not (home / beside.name).exists():
            shutil.copy(beside, home / beside.name)
    return Mutant(index, seed_file, mutation, Path(home.name) / seed_file.name)


# ---------------------------------------------------------------------------------------------
# Running cudalint and judging what it did


@dataclass
class LinterRun:
    files: list[str]
    returncode: int | None  # None: killed at the time limit
    stdout: str
    stderr: str
    seconds: float
    limit: float
    problems: list[str] = field(default_factory=list)


def cudalint_command(budget: float) -> list[str]:
    return [sys.executable, "-m", "cudalint", "--output-format", "json", "--exit-zero", "--no-cache",
            "-j", "1", "--file-budget", f"{budget:g}"]


def time_limit(files: int, budget: float) -> float:
    return STARTUP_S + PASSES * files * (budget + GRACE_S)


def run_cudalint(files: list[str], folder: Path, budget: float) -> LinterRun:
    limit = time_limit(len(files), budget)
    start = time.monotonic()
    # a session of its own, so that a hang is killed with every worker it started
    proc = subprocess.Popen(cudalint_command(budget) + files, cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
        returncode = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        returncode = None
    run = LinterRun(files, returncode, out.decode(errors="replace"), err.decode(errors="replace"),
              time.monotonic() - start, limit)
    run.problems = judge(run)
    return run


# the contract's keys of every JSON finding (DESIGN.md, JSON output)
FINDING_KEYS = {"rule", "name", "category", "severity", "path", "line", "column", "end_line",
                "end_column", "message", "kernel", "related", "confirmation"}


def judge(run: LinterRun) -> list[str]:
    """What the run did that the contract forbids, as short labels; [] when all is well."""
    problems = []
    if run.returncode is None or run.seconds > run.limit:
        problems.append("hang")
    elif run.returncode != 0:
        problems.append(f"exit {run.returncode}")
    if "Traceback (most recent call last)" in run.stderr:
        problems.append("traceback")
    findings = _findings(run.stdout) if run.returncode is not None else []
    if findings is None:
        problems.append("not JSON")
        findings = []
    messages = [str(f.get("message", "")) for f in findings]
    if "internal error" in run.stderr or any("internal error" in m for m in messages):
        problems.append("internal error")
    # JSON shows a file's first error only; stderr lists every one
    if "time budget of" in run.stderr or any(f.get("rule") == "CUDA002" and "time budget" in m
                                             for f, m in zip(findings, messages)):
        problems.append("over budget")
    return problems


def _findings(stdout: str) -> list[dict] | None:
    """The JSON array of findings, or None when stdout is not one."""
    try:
        findings = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(findings, list) or not all(isinstance(f, dict) and FINDING_KEYS <= f.keys()
                                                 for f in findings):
        return None
    return findings


# ---------------------------------------------------------------------------------------------
# The campaign


@dataclass
class Culprit:
    mutant: Mutant
    run: LinterRun
    kept_as: str


@dataclass
class Report:
    seed: int
    mutants: list[Mutant]
    batches: list[LinterRun]
    culprits: list[Culprit]
    unexplained: list[LinterRun]  # failing batches that no single file of theirs reproduces
    budget: float

    @property
    def failed(self) -> bool:
        return bool(self.culprits or self.unexplained)


def fuzz(paths: list[Path], seed: int, count: int, jobs: int, budget: float, batch_size: int,
         work: Path, progress: bool = False) -> Report:
    mutants_dir, culprits_dir = work / "mutants", work / "culprits"
    for d in (mutants_dir, culprits_dir):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    seeds = seed_files(paths)
    mutants = [make_mutant(i, seed, seeds, mutants_dir) for i in range(count)]
    by_path = {str(m.path): m for m in mutants}
    # the first run builds the precompiled prelude, which no batch's time limit should pay for
    warm_up = mutants_dir / "warm-up"
    warm_up.mkdir()
    shutil.copy(seeds[0], warm_up / seeds[0].name)
    run_cudalint([seeds[0].name], warm_up, budget=300)

    batches = [[str(m.path) for m in mutants[i:i + batch_size]] for i in range(0, len(mutants), batch_size)]
    finished = itertools.count(1)  # next() on it is atomic: batches finish in several threads

    def run_batch(files: list[str]) -> LinterRun:
        run = run_cudalint(files, mutants_dir, budget)
        done = next(finished)
        if progress:
            print(f"batch {done}/{len(batches)}: {run.seconds:.1f} s {' '.join(run.problems)}",
                  file=sys.stderr)
        return run

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = list(pool.map(run_batch, batches))
        failing = [r for r in runs if r.problems]
        singles = list(pool.map(lambda f: run_cudalint([f], mutants_dir, budget),
                                [f for r in failing for f in r.files]))
    culprits = []
    for single in singles:
        if single.problems:
            mutant = by_path[single.files[0]]
            kept_as = f"{mutant.index:05d}-{mutant.mutation}-{mutant.path.name}"
            shutil.copy(mutants_dir / mutant.path, culprits_dir / kept_as)
            culprits.append(Culprit(mutant, single, kept_as))
    named = {str(c.mutant.path) for c in culprits}
    unexplained = [r for r in failing if not named & set(r.files)]
    report = Report(seed, mutants, runs, culprits, unexplained, budget)
    (work / "report.json").write_text(json.dumps(_as_json(report), indent=1))
    return report


def _as_json(report: Report) -> dict:
    def run_json(run: LinterRun) -> dict:
        return {"files": run.files, "returncode": run.returncode, "seconds": round(run.seconds, 2),
                "limit": run.limit, "problems": run.problems, "stderr_tail": run.stderr[-2000:]}
    return {"seed": report.seed, "file_budget": report.budget,
            "mutants": [{"path": str(m.path), "seed_file": str(m.seed_file), "mutation": m.mutation}
                        for m in report.mutants],
            "batches": [run_json(r) for r in report.batches],
            "culprits": [{"kept_as": c.kept_as, "mutation": c.mutant.mutation,
                          "seed_file": str(c.mutant.seed_file),
                          **run_json(c.run)} for c in report.culprits],
            "unexplained_batches": [run_json(r) for r in report.unexplained]}


def summary(report: Report, work: Path) -> str:
    seconds = [r.seconds for r in report.batches]
    by_problem = Counter(p for c in report.culprits for p in c.run.problems)
    rows = [("mutants", len(report.mutants)), ("batches", len(report.batches)),
            ("failing batches", sum(bool(r.problems) for r in report.batches)),
            ("culprit files", len(report.culprits))]
    rows += [(f"  {problem}", n) for problem, n in sorted(by_problem.items())]
    rows += [("batches no single file explains", len(report.unexplained)),
             ("batch seconds, max", f"{max(seconds, default=0):.1f}"),
             ("batch seconds, median", f"{statistics.median(seconds) if seconds else 0:.1f}"),
             ("batch time limit", f"{time_limit(len(report.batches[0].files), report.budget):.0f}"
              if report.batches else "-")]
    lines = [f"cudalint fuzz: seed {report.seed}, file budget {report.budget:g} s, work {work}"]
    lines += [f"  {name:<34}{value:>8}" for name, value in rows]
    for c in report.culprits:
        last = (c.run.stderr.strip().splitlines() or [""])[-1][:160]
        lines.append(f"culprit {work / 'culprits' / c.kept_as}: {', '.join(c.run.problems)} "
                     f"({c.mutant.mutation} of {c.mutant.seed_file.name}) {last}")
    for r in report.unexplained:
        lines.append(f"failing batch, no single culprit: {', '.join(r.problems)} in {' '.join(r.files)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="seed files or folders (default: fixtures/ and examples/)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-n", type=int, default=200, dest="count", help="how many mutants")
    ap.add_argument("--jobs", type=int, default=2, help="batches run at once")
    ap.add_argument("--file-budget", type=float, default=20.0, metavar="SECONDS",
                    help="cudalint's --file-budget (default 20, cudalint's own)")
    ap.add_argument("--batch-size", type=int, default=10)
    ap.add_argument("--work", type=Path,
                    help="where mutants, culprits and report.json go (default: a new temp dir)")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="cudalint-fuzz-"))
    report = fuzz(a.paths or DEFAULT_PATHS, a.seed, a.count, a.jobs, a.file_budget, a.batch_size, work,
                  progress=True)
    print(summary(report, work))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
