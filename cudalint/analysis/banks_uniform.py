"""CUDA301's fast path: an access whose loops run alike in every lane and whose offset is a lane
part plus an iteration part (`tile[ty][tx + k]`, `w[tx + p * 256]`).

From one iteration to the next such an access moves every lane of a warp by the same number of
bytes, and a move by a multiple of 128 bytes (all 32 banks) keeps every lane's bank. So the
lanes are evaluated once per warp, the move once per iteration, and the degree once per warp and
move modulo 128 bytes, instead of once per lane, warp and iteration as banks.analyze does.

The answer is banks.analyze's to the byte (the same worst warp and iteration, the first among
equals, the same range and offsets); a shape or value this argument does not cover (a name
without a value, a division by zero, a 64-bit wrap) gives None and the general enumeration
answers.
"""

from __future__ import annotations

from cudalint.analysis.banks import (
    BANKS, MAX_COMBOS, NO_CANDIDATE, NOT_ENUMERABLE, WARP, WORD, Result, Unbound, _active, _compiled,
    _loop_values, _names, _shifted_degree, instruction_width)
from cudalint.model import Op

_BANK_SPAN = BANKS * WORD  # bytes: a move by a multiple of this keeps every lane's bank
_HALF = 1 << 63
_FAILED = (KeyError, ZeroDivisionError, Unbound)


def separable(e, lane: set, iteration: set) -> bool:
    """Whether `e` is f(lane names) + g(iteration names) in C's wrapping 64-bit arithmetic: sums,
    differences and negations of such parts, scaled (or shifted left) by a term that reads
    neither. The compiled +, -, * and << wrap modulo 2**64, which keeps that sum exact."""
    names = _names(e)
    if not names & lane or not names & iteration:
        return True
    if not isinstance(e, Op):
        return False
    fixed = [not _names(a) & (lane | iteration) for a in e.args]
    if e.op in ("+", "-"):
        return all(separable(a, lane, iteration) for a in e.args)
    if e.op == "*" and len(e.args) == 2:
        return any(fixed[1 - k] and separable(e.args[k], lane, iteration) for k in (0, 1))
    if e.op == "<<" and len(e.args) == 2:
        return fixed[1] and separable(e.args[0], lane, iteration)
    return False


def analyze_uniform(acc, loops, warps, base_env, warp_guard, lane_guard, lane_names, assumption):
    """banks.analyze's Result for an access of this shape, or None when it is not one: the loops
    read no thread coordinate, the lanes' guard reads no loop counter, and the offset is
    `separable` into thread coordinates and loop counters, all of them known."""
    counters = {loop.var.name for loop in loops}
    if not warps:
        return None
    first_lane = {**base_env, **warps[0][1][0][1]}
    offset_names = _names(acc.offset)
    if (counters & lane_names or not offset_names <= first_lane.keys() | counters
            or any(_names(c) & counters for c in lane_guard) or not separable(acc.offset, lane_names, counters)):
        return None
    iterations = _iterations(loops, first_lane, offset_names)
    if iterations is None or iterations is NOT_ENUMERABLE:
        return iterations
    warp_checks = [_compiled(c) for c in warp_guard]
    # the warp's guard reads no thread coordinate: its answer is the same in every warp
    running = [(at, values) for at, values in iterations if _active(warp_checks, {**first_lane, **values})]
    offset_of = _compiled(acc.offset)
    try:
        moves = [offset_of({**first_lane, **values}) for _, values in running]
        lanes = [_lane_offsets(offset_of, lane_guard, base_env, w_lanes, running[0][1]) if running else {}
                 for _, w_lanes in warps]
    except _FAILED:
        return None
    moves = [m - moves[0] for m in moves]
    if not _in_range(lanes, moves):
        return None
    return _worst(acc, warps, running, moves, lanes, assumption)


def _iterations(loops, first_lane: dict, offset_names: set):
    """[(at, {counter: value})]: every combination of the loops' iterations, outermost first
    (`first_lane`: what else the bounds may read). A loop whose iterations are unknown (`t < K /
    TILE`) stays symbolic where the offset does not read its counter, as in banks._combos: it
    adds no iterations, and a guard reading it is assumed to hold; None where the offset reads it."""
    out = [((), {})]
    for loop in loops:
        name = loop.var.name
        nxt = []
        for at, counters in out:
            values = _loop_values(loop, {**first_lane, **counters})
            if values is None:
                if name in offset_names:
                    return None
                nxt.append((at, counters))
                continue
            nxt += [(at + ((name.split("@")[0], v),), {**counters, name: v}) for v in values]
        out = nxt
        if len(out) > MAX_COMBOS:
            return NOT_ENUMERABLE
    return out


def _lane_offsets(offset_of, lane_guard, base_env, lanes, counters: dict) -> dict:
    """{lane: offset} at the first running iteration (`counters`), for the lanes of one warp
    that take part."""
    checks = [_compiled(c) for c in lane_guard]
    envs = ((lane, {**base_env, **env, **counters}) for lane, env in lanes)
    return {lane: offset_of(env) for lane, env in envs if _active(checks, env)}


def _in_range(lanes, moves) -> bool:
    """Whether every lane's offset plus every move stays a signed 64-bit value (then it is the
    value the compiled offset gives)."""
    values = [off for offs in lanes for off in offs.values()]
    return not values or (-_HALF <= min(values) + min(moves) and max(values) + max(moves) < _HALF)


def _worst(acc, warps, running, moves, lanes, assumption) -> Result:
    """The first warp and iteration of the highest degree, as banks.analyze reports it."""
    width = instruction_width(acc.width, acc.align)
    memo: dict = {}
    classes = {}  # move modulo 128 bytes -> the first move of that class
    for m in moves:
        classes.setdefault(m % _BANK_SPAN, m)
    per_warp = [{c: _shifted_degree(_moved(offs, m), width, memo).degree for c, m in classes.items()}
                if offs else {} for offs in lanes]
    taking_part = [degrees for degrees in per_warp if degrees]
    if not taking_part:
        return NO_CANDIDATE
    worst = max(max(d.values()) for d in taking_part)
    k = next(k for k, d in enumerate(per_warp) if d and max(d.values()) == worst)
    i = next(i for i, m in enumerate(moves) if per_warp[k][m % _BANK_SPAN] == worst)
    offs = _moved(lanes[k], moves[i])
    degree = _shifted_degree(offs, width, memo)
    w, w_lanes = warps[k]
    return Result("clean" if worst <= 1 else "conflict", degree, w, running[i][0],
                  min(min(d.values()) for d in taking_part), (), assumption,
                  offsets=tuple(sorted(offs.items())), all_lanes=len(offs) == len(w_lanes) == WARP)


def _moved(offs: dict, move: int) -> dict:
    return {lane: off + move for lane, off in offs.items()}
