"""Two checks before a racecheck hazard confirms a shared-memory race (``--confirm``).

racecheck reports two unordered accesses to one shared byte whatever they store, and the runner's
own data decides which bytes meet. Two patterns that the static rules leave out on purpose make
hazards that are no race a user would fix:

* **stores that agree**: every thread stores one value to a word and reads it back (one pointer).
  racecheck's hazard mode (``--racecheck-report hazard``) types each report: two stores (WAW)
  only where their values differ (the H200 shows none for stores that agree), a read after a store
  (RAW), a store after a read (WAR, with the byte's value before and after). Where every report at
  the line is a RAW whose reader stored the word itself first (the static model says so), or a WAR
  that leaves the byte as it was, no order of the threads changes what any of them reads.
* **positions from data** (``s[ranks[t]] = v``): the runner fills such index buffers so that values
  meet, as neighbours do in a graph. The job runs racecheck again with each buffer that places a
  flagged shared access holding distinct values (0, 1, 2, ...); where the hazard goes away, the race
  needs two threads to get one position from the data, which a permutation (a sort's or a merge's
  ranks) never has.

Either gives ``not-reproduced`` with the evidence; anything incomplete (a cut report, a failed or
killed rerun) leaves racecheck's verdict standing.
"""

from __future__ import annotations

from cudalint.findings import Confirmation, Finding

from . import evidence as ev
from .tool_output import touches

VALUES, DISTINCT = "racecheck-values", "racecheck-distinct"
VALUE_REPORTS = 20000  # hazard mode prints one report per byte and thread pair; past this it is cut


def _shared_race_lines(job, findings) -> set[int]:
    from .plan import is_global_race
    return {findings[i].line for i in job.findings
            if findings[i].category == "data-race" and not is_global_race(findings[i])}


def follow_up_steps(job, findings, racecheck_output: str) -> list[str]:
    """The reruns to make after racecheck: only where its hazards touch a flagged line."""
    hazards = ev.parse_racecheck(racecheck_output)
    hit = {line for line in _shared_race_lines(job, findings) if any(h.touches(job.path, line) for h in hazards)}
    if not hit:
        return []
    return [VALUES] + ([DISTINCT] if distinct_buffers(job, hit) else [])


def distinct_buffers(job, lines) -> set[str]:
    """The integer buffers whose loaded values place a shared access on `lines`."""
    names = set().union(*(job.data_positions.get(line, set()) for line in lines))
    return {a.name for a in (job.args.args if job.args else ()) if a.name in names and a.kind == "buffer"
            and (a.dtype or "")[:1] in "iu"}


def with_distinct_fill(args: list[dict], names: set[str]) -> list[dict]:
    return [dict(a, fill="distinct") if a["name"] in names else a for a in args]


def _complete(output: str) -> bool:
    """Whether hazard mode printed every hazard it found (`N hazards displayed (E errors, W warnings)`)."""
    for s in ev.parse_summaries(output):
        if s.tool == "RACECHECK" and s.errors is not None:
            shown = s.text.split(" hazard")[0].replace(",", "")
            return shown.isdigit() and int(shown) == s.errors + (s.warnings or 0)
    return False


def _stores_agree(f: Finding, job) -> str | None:
    """Hazard mode reports a write and a write (WAW) only where their values differ; a read after
    a write (RAW) where the reading thread stored the word itself first (the static model's
    `reads_after_own_store`) then reads that one value in any order."""
    r = job.runs.get(VALUES)
    if r is None or r.timed_out or not _complete(r.output):
        return None
    hazards = ev.parse_racecheck(r.output)
    hits = [h for h in hazards if h.touches(f.path, f.line)]
    lines = {line for h in hits for line in h.lines}
    near = [h for h in hazards if any(h.touches(f.path, line) for line in lines)]
    if not hits or not all(_read_of_one_value(h, job) for h in near):
        return None
    return (f"in racecheck's hazard mode all {len(near)} report(s) at lines {', '.join(map(str, sorted(lines)))} "
            f"are reads of a value every thread stores: no two stores there disagree (racecheck reports those as "
            f"WAW hazards), and each thread stores the word itself before it reads it, so no order of the "
            f"threads changes what any of them reads")


def _read_of_one_value(h, job) -> bool:
    if h.hazard_type == "WAR":  # a store after a read: harmless only where it stores the byte's value
        return h.values is not None and h.values[0] == h.values[1]
    read = h.second if h.second_access == "Read" else h.first
    return h.hazard_type == "RAW" and read.line in job.reads_after_own_store and touches((read,), job.path, read.line)


def _needs_repeats(f: Finding, job) -> str | None:
    r = job.runs.get(DISTINCT)
    if r is None or r.timed_out or r.result.get("error") or not r.result:
        return None
    if any(h.touches(f.path, f.line) for h in ev.parse_racecheck(r.output)):
        return None
    names = ", ".join(f"`{n}`" for n in sorted(distinct_buffers(job, job.lines.get(f.category, {f.line}))))
    return (f"rerun with distinct values in {names} (0, 1, 2, ...; the first run's values repeat, as a graph's "
            f"do), racecheck reports no hazard at line {f.line}: the race needs two threads to get one position "
            f"from the data, which a permutation (a sort's or a merge's ranks) never has")


def second_look(f: Finding, job, hit: Confirmation) -> Confirmation:
    """`hit` (racecheck's hazards at the line) unless the hazards are stores that agree or need
    repeated positions in the runner's data."""
    why = _stores_agree(f, job) or _needs_repeats(f, job)
    if why is None:
        return hit
    return Confirmation("not-reproduced", "compute-sanitizer racecheck",
                        f"racecheck reports hazards at line {f.line} ({hit.detail}), but {why}")
