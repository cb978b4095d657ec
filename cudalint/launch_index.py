"""Launch shapes across the files of one run.

A kernel defined in `kernels.cu` (or a header checked on its own) is often launched only from
`main.cu`: checked alone, its blockDim would be a guess. Every file's first pass records the
constant launches it makes (`LaunchFact`) and the kernels it had to guess for; kernels that
another file of the run launches with a constant shape are then checked again with that shape.
The facts are gathered over all files before any second pass and sorted, so the result depends
on neither the job count nor the order of the files.

A kernel that no file of the run launches may still be launched beside it: pre-commit passes
only the files that changed, so `kernels.cu` arrives without the `main.cu` next to it. The files
beside such a kernel's file, and those of the compile database, whose text names the kernel
right before `<<<`, are parsed for their launches alone (`context_files`); nothing is reported
in them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LaunchFact:
    kernel_usr: str  # the launched declaration (stable across translation units)
    kernel: str
    block: tuple
    grid: tuple | None
    path: str
    line: int
    arg_values: tuple = ()  # per argument, the integer the launch passes, else None

    def describe(self) -> str:
        return f"the launch at {self.path}:{self.line}"


def facts_of(model) -> tuple:
    """The launches in a file whose blockDim is constant."""
    out = set()
    for launch in model.launches:
        if launch.kernel_usr and constant_block(launch):
            grid = launch.grid if launch.grid and all(v is not None for v in launch.grid) else None
            out.add(LaunchFact(launch.kernel_usr, launch.kernel, tuple(launch.block), grid,
                               launch.loc.path, launch.loc.line, launch.arg_values))
    return tuple(sorted(out, key=_order))


def guessed_kernels(model, settings) -> tuple:
    """(USR, name) of the file's kernels that no launch in it (nor configuration) gives a blockDim."""
    from cudalint.analysis.geometry import launches_of, pinned
    out = []
    for kernel in model.kernels:
        if not kernel.usr or pinned(settings.block_dims, kernel) or kernel.block_dim_comment:
            continue
        if not any(constant_block(launch) for launch in launches_of(model, kernel)):
            out.append((kernel.usr, kernel.qualname.rpartition("::")[2]))
    return tuple(sorted(set(out)))


def constant_block(launch) -> bool:
    return bool(launch.block) and all(v is not None and v > 0 for v in launch.block)


# the sources a launch may be written in, whatever the run's extensions
LAUNCHING_EXTENSIONS = (".cu", ".cuh", ".cpp", ".cc", ".cxx")
SCANNED_BYTES = 4 << 20  # a larger file beside the run is not read for launches


def context_files(results, settings, run_paths) -> list[str]:
    """Files outside the run that may launch a kernel the run guessed a blockDim for and no file
    of it launches: those in the directory of the file that has the kernel, and those of the
    compile database, whose text names the kernel just before `<<<` (`kern<<<`, `kern<T><<<`)."""
    launched = {f.kernel_usr for r in results for f in r.launch_facts}
    names: dict = {}  # directory -> kernel names to look for there
    for r in results:
        for usr, name in r.guessed_kernels:
            if usr not in launched:
                names.setdefault(os.path.dirname(r.path), set()).add(name)
    if not names:
        return []
    everyone = {n for ns in names.values() for n in ns}
    candidates = {p: ns for d, ns in names.items() for p in _sources_in(d, settings)}
    for p in _database_files(settings):
        candidates[p] = everyone
    taken = {os.path.realpath(p) for p in run_paths}
    out = []
    for p in sorted(candidates):
        if os.path.realpath(p) not in taken and _launches_any(p, candidates[p]):
            taken.add(os.path.realpath(p))
            out.append(p)
    return out


def _sources_in(directory: str, settings) -> list[str]:
    extensions = tuple(set(settings.extensions) | set(LAUNCHING_EXTENSIONS))
    try:
        entries = sorted(os.scandir(directory or "."), key=lambda e: e.name)
    except OSError:
        return []
    return [os.path.join(directory, e.name) for e in entries
            if e.name.endswith(extensions) and e.is_file()]


def _database_files(settings) -> list[str]:
    if not settings.compile_commands_dir:
        return []
    from cudalint.frontend.flags import compile_database
    try:
        return sorted(compile_database(settings.compile_commands_dir))
    except ValueError:
        return []  # the run reports the unreadable database itself


def _launches_any(path: str, names) -> bool:
    try:
        with open(path, "rb") as fh:
            text = fh.read(SCANNED_BYTES + 1)
    except OSError:
        return False
    if len(text) > SCANNED_BYTES or b"<<<" not in text:
        return False
    text = text.decode("latin-1")
    return any(_launches_theirs(text, n) for n in sorted(names))


def _launches_theirs(text: str, name: str) -> bool:
    """The text launches `name` and defines no kernel of that name: a file with a kernel of its
    own by that name (one of many variants of a program in one directory, a `static` copy)
    launches that one, and parsing it for launches would be wasted (Indigo2's 180 BFS variants:
    95 s to check one of them)."""
    n = re.escape(name)
    return re.search(rf"\b{n}\s*(<[^;{{}}]*?>)?\s*<<<", text) is not None and \
        re.search(rf"__global__[^;{{}}]*\b{n}\s*\([^;{{}}]*\)[^;{{}}]*\{{", text) is None


def second_pass(results, settings, context=()) -> dict:
    """Index of result -> the settings to check its file again with, for files whose guessed
    kernels another file of the run (or a context file's result) launches."""
    by_kernel: dict = {}
    for r in (*results, *context):
        for fact in r.launch_facts:
            by_kernel.setdefault(fact.kernel_usr, set()).add(fact)
    out = {}
    for i, r in enumerate(results):
        facts = sorted({f for usr, _ in r.guessed_kernels for f in by_kernel.get(usr, ())
                        if f.path != r.path}, key=_order)
        if facts:
            out[i] = replace(settings, external_launches=tuple(facts))
    return out


def _order(f: LaunchFact):
    return (f.kernel_usr, f.path, f.line, f.block, f.grid or (), tuple((v is None, v or 0) for v in f.arg_values))
