"""`--profile`: where a run's time went, from each analysed file's phases (cudalint.engine)."""

from __future__ import annotations


def render(results, slowest: int = 5) -> str:
    """A table on stderr: seconds per phase summed over the files analysed in this run (not those
    served from the cache), its share, and the slowest files. Worker seconds, not wall time: with
    -j N they add up to about N times the wall clock."""
    analysed = [r for r in results if r.phases]
    totals: dict[str, float] = {}
    for r in analysed:
        for name, secs in r.phases:
            totals[name] = totals.get(name, 0.0) + secs
    whole = sum(totals.values()) or 1.0
    lines = [f"cudalint: profile of {len(analysed)} analysed file{'s' if len(analysed) != 1 else ''} "
             f"({len(results) - len(analysed)} from the cache or not analysed)",
             f"  {'phase':<10} {'seconds':>9} {'share':>6}"]
    for name, secs in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])):
        if secs >= 0.0005:
            lines.append(f"  {name:<10} {secs:9.3f} {100 * secs / whole:5.1f}%")
    lines.append(f"  {'total':<10} {sum(totals.values()):9.3f}")
    top = sorted(analysed, key=lambda r: -r.seconds)[:slowest]
    if top:
        lines.append("  slowest files:")
        lines += [f"  {r.seconds:9.3f} s  {r.path}  ({', '.join(f'{n} {s:.2f}' for n, s in _top_phases(r))})"
                  for r in top]
    return "\n".join(lines) + "\n"


def _top_phases(r, n: int = 3):
    return sorted(r.phases, key=lambda p: -p[1])[:n]
