"""Race findings: the witness message and related locations, shared by the three race rules."""

from __future__ import annotations

from cudalint.analysis.geometry import witness_property
from cudalint.analysis.races import Race
from cudalint.findings import Related, calls_through

_VERB = {"read": "reads", "write": "writes", "atomic": "atomically updates"}


def message(race: Race, kernel) -> str:
    f, s = race.first, race.second
    where = "the same iteration" if race.wrap_loop is None else "the next iteration of the loop at line " + \
        str(kernel.loops[race.wrap_loop].loc.line)
    text = (f"{race.first_thread} {_VERB[f.kind]} `{race.first_index}` at line {f.loc.line}; "
            f"{race.second_thread} {_VERB[s.kind]} `{race.second_index}` at line {s.loc.line}")
    if race.wrap_loop is not None:
        text += f" in {where}"
    if race.alias is not None:
        text += f", and {race.alias.describe()}"
    return f"{text}; {_ordering(race)} ({race.geometry.describe()}); {fix(race, kernel)}"


def _ordering(race: Race) -> str:
    if race.kind == "global":
        if race.first_thread.block is not None or race.second_thread.block is not None:
            return "nothing orders threads of different blocks"
        return "no barrier between them"
    if race.kind == "warp":
        return "both in one warp, which does not run in lockstep since Volta, and no __syncwarp() between them"
    return "no barrier between them"


def fix(race: Race, kernel) -> str:
    f, s = race.first, race.second
    if race.alias is not None:
        return (f"give `{race.alias.merged}` a buffer of its own at the launch at line {race.alias.launch.line} "
                f"(or write the kernel for in-place use)")
    if race.kind == "global":
        if f.loc == s.loc or s.kind == "write" and f.kind == "write":
            return "use an atomic (atomicAdd/atomicMin/…) or let one thread per address write"
        return "separate the write and the read by a kernel boundary or a grid-wide sync"
    barrier = "__syncwarp()" if race.kind == "warp" else "__syncthreads()"
    if race.wrap_loop is not None:
        loop = kernel.loops[race.wrap_loop]
        return f"insert `{barrier}` at the end of the loop body (the loop at line {loop.loc.line}), after line {f.loc.line}"
    if f.loc.line == s.loc.line:
        return f"split the statement and insert `{barrier}` between its read and its write"
    return f"insert `{barrier}` before line {s.loc.line}"


OTHER_VIA_NOTE = "the other access is reached through this call"


def related(race: Race) -> list[Related]:
    f = race.first
    out = [Related(f.loc.path, f.loc.line, f.loc.column, f"the other access (`{f.text}`)")]
    if f.via:  # the other access is in a function the kernel calls: where the kernel calls it
        out.append(Related(f.via[0].path, f.via[0].line, f.via[0].column, OTHER_VIA_NOTE))
    if f.array.loc:
        out.append(Related(f.array.loc.path, f.array.loc.line, f.array.loc.column, f"`{f.array.name}` declared here"))
    out += calls_through(race.second)
    if race.alias is not None:
        at = race.alias.launch
        out.append(Related(at.path, at.line, at.column, f"the launch that passes `{race.alias.argument}` as both "
                                                       f"`{race.alias.kept}` and `{race.alias.merged}`"))
    return out


def findings(ctx, rule, kind: str):
    from cudalint.analysis.races import races
    for kernel in ctx.model.kernels:
        for race in races(ctx, kernel):
            if race.kind == kind:
                yield rule.finding(race.second.loc, message(race, kernel), kernel=kernel.name,
                                   related=related(race),
                                   properties=properties(race))


def properties(race: Race) -> tuple:
    """Typed facts of a race finding: its two threads, the memory, the launch shape, the alias."""
    return ((("first_thread", str(race.first_thread)), ("second_thread", str(race.second_thread)))
            + witness_property(race.first_thread, race.second_thread)
            + (("memory_space", race.second.array.space), ("array", race.second.array.name))
            + race.geometry.properties()
            + ((("aliased", f"{race.alias.kept}={race.alias.merged}"),) if race.alias else ()))
