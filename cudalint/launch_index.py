"""Launch shapes across the files of one run.

A kernel defined in `kernels.cu` (or a header checked on its own) is often launched only from
`main.cu`: checked alone, its blockDim would be a guess. Every file's first pass records the
constant launches it makes (`LaunchFact`) and the kernels it had to guess for; kernels that
another file of the run launches with a constant shape are then checked again with that shape.
The facts are gathered over all files before any second pass and sorted, so the result depends
on neither the job count nor the order of the files.
"""

from __future__ import annotations

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
    """USRs of the file's kernels that no launch in it (nor configuration) gives a blockDim."""
    from cudalint.analysis.geometry import launches_of, pinned
    out = []
    for kernel in model.kernels:
        if not kernel.usr or pinned(settings.block_dims, kernel) or kernel.block_dim_comment:
            continue
        if not any(constant_block(launch) for launch in launches_of(model, kernel)):
            out.append(kernel.usr)
    return tuple(sorted(set(out)))


def constant_block(launch) -> bool:
    return bool(launch.block) and all(v is not None and v > 0 for v in launch.block)


def second_pass(results, settings) -> dict:
    """Index of result -> the settings to check its file again with, for files whose guessed
    kernels another file of the run launches."""
    by_kernel: dict = {}
    for r in results:
        for fact in r.launch_facts:
            by_kernel.setdefault(fact.kernel_usr, set()).add(fact)
    out = {}
    for i, r in enumerate(results):
        facts = sorted({f for usr in r.guessed_kernels for f in by_kernel.get(usr, ())
                        if f.path != r.path}, key=_order)
        if facts:
            out[i] = replace(settings, external_launches=tuple(facts))
    return out


def _order(f: LaunchFact):
    return (f.kernel_usr, f.path, f.line, f.block, f.grid or (), tuple((v is None, v or 0) for v in f.arg_values))
