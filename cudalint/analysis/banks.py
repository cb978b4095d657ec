"""Shared-memory bank conflicts: the degree of one access for the lanes of a warp.

Hardware model (every NVIDIA GPU since Maxwell): 32 banks of 4-byte words; word `w` lives in bank
`w % 32`. A warp's request is served in phases: accesses of up to 4 bytes in one phase of 32 lanes,
8-byte accesses in two phases of 16 lanes (half-warps), 16-byte accesses in four phases of 8 lanes
(quarter-warps). Within one phase, lanes that touch the *same* word are served together
(broadcast); lanes that touch *different* words of one bank are serialized. The degree of an
access is the largest number of distinct words that fall into one bank in one phase.

How the lanes are found: lanes are 32 consecutive linear thread ids (`threadIdx.x + threadIdx.y *
blockDim.x + threadIdx.z * blockDim.x * blockDim.y`). With a concrete block every warp of the block
is enumerated exactly (threadIdx substituted by the lane's coordinates, blockDim by the launch's);
with a symbolic block only offsets that use nothing but `threadIdx.x` are analysed, for lanes
`threadIdx.x = 0..31`, assuming blockDim.x is a multiple of 32.

The degree policy (a warning must not be a false alarm):

- every warp of the block runs the access, and so does every iteration of an enclosing loop whose
  iterations are known (init, step and bound concrete once the geometry is known, at most 64
  iterations): those are enumerated exactly and the worst one is reported, with the iteration and
  warp it happens in, and the range over the iterations when it varies;
- everything else the offset depends on and that is the same for the whole warp (kernel
  arguments, blockIdx, counters of loops with unknown bounds, values loaded from uniform
  addresses) may take any value, so the degree is reported only when z3 proves it holds for *every*
  value: the lanes' offsets relative to one another do not depend on those symbols and a change of
  them moves all lanes by a multiple of 4 bytes (a rotation of the banks). Otherwise nothing is
  reported;
- offsets that depend on per-thread data (values loaded from memory) are skipped;
- a lane takes part when the conjuncts of its guard that can be evaluated (thread coordinates,
  known loop counters, the geometry) hold; conjuncts on kernel arguments or data (bound checks
  such as `i < n`) are assumed to hold, as they do for the typical full warp.

Accesses whose loops run alike in every lane and whose offset is a lane part plus an iteration
part take the shortcut of `cudalint.analysis.banks_uniform`, which gives the same Result without
evaluating every lane of every warp in every iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import z3

from cudalint.analysis.geometry import AXES, Geometry
from cudalint.model import THREAD, Access, Const, Kernel, Op, Sym, syms
from cudalint.symbolic import BITS, bv, conjuncts, to_z3

WARP = 32
BANKS = 32
WORD = 4
MAX_ITERATIONS = 64  # per loop
MAX_COMBOS = 512  # iteration combinations of nested loops
_MASK = (1 << 64) - 1


def instruction_width(width: int, align: int) -> int:
    """Bytes one shared-memory instruction moves for an access of `width` bytes aligned to
    `align`: a naturally aligned scalar or vector moves at once; a wider type (a float3, a
    struct) moves in parts of its alignment (three 4-byte loads for a float3). Each part
    shifts every lane by the same number of banks, so all parts conflict alike."""
    if width in (1, 2, 4, 8, 16) and align >= width:
        return width
    part = min(max(align, 1), 16)
    while part > 1 and width % part:
        part //= 2
    return part


def phase_lanes(width: int) -> int:
    """How many lanes one phase of a `width`-byte shared access serves (32, 16 or 8)."""
    if width <= 4:
        return WARP
    return max(1, (WARP * WORD) // width)


# ---------------------------------------------------------------------------- the degree


@dataclass(frozen=True)
class Degree:
    degree: int
    bank: int = 0
    words: tuple = ()  # the distinct words (from the array's base) in that bank
    lanes: tuple = ()  # one lane (0..31) per word
    phase: int = 0  # which phase of the warp (0 for 4-byte accesses)
    phase_size: int = WARP


def bank_degree(lane_offsets: dict, width: int) -> Degree:
    """The degree of one warp's request: `lane_offsets` maps lane (0..31) -> byte offset of its
    access (lanes that do not take part are left out); `width` is the access size in bytes."""
    size = phase_lanes(width)
    best = Degree(1 if lane_offsets else 0, phase_size=size)
    phases: dict = {}
    for lane in sorted(lane_offsets):
        off = lane_offsets[lane]
        banks = phases.setdefault(lane // size, {})
        for w in range(off // WORD, (off + max(width, 1) - 1) // WORD + 1):
            banks.setdefault(w % BANKS, {}).setdefault(w, lane)
    for ph in sorted(phases):
        for b in sorted(phases[ph]):
            words = phases[ph][b]
            if len(words) > best.degree:
                ws = tuple(sorted(words))
                best = Degree(len(words), b, ws, tuple(words[w] for w in ws), ph, size)
    return best


# ---------------------------------------------------------------------------- concrete evaluation


class Unbound(Exception):
    """The expression needs a symbol that has no concrete value here."""


_HALF = 1 << 63


def _wrap(v: int) -> int:
    """v as a signed 64-bit value (most values already are: a range test, not a mask)."""
    return v if -_HALF <= v < _HALF else ((v + _HALF) & _MASK) - _HALF


def evaluate(e, env: dict) -> int:
    """The value of a model expression under `env` (Sym name -> int), with C's 64-bit semantics."""
    try:
        return _compiled(e)(env)
    except KeyError as missing:
        raise Unbound(missing.args[0]) from None
    except ZeroDivisionError:
        raise Unbound("division by zero") from None


_BINARY = {"+": "_w({a} + {b})", "-": "_w({a} - {b})", "*": "_w({a} * {b})", "/": "_div({a}, {b})",
           "%": "_rem({a}, {b})", "<<": "_w({a} << ({b} & 63))", ">>": "({a} >> ({b} & 63))",
           "&": "_w({a} & {b})", "|": "_w({a} | {b})", "^": "_w({a} ^ {b})", "min": "min({a}, {b})",
           "max": "max({a}, {b})", "<": "int({a} < {b})", ">": "int({a} > {b})", "<=": "int({a} <= {b})",
           ">=": "int({a} >= {b})", "==": "int({a} == {b})", "!=": "int({a} != {b})",
           "&&": "int(bool({a}) and bool({b}))", "||": "int(bool({a}) or bool({b}))"}
_UNARY = {"!": "int(not {a})", "~": "_w(~{a})", "-": "_w(-{a})", "+": "{a}", "bitlen": "max({a}, 0).bit_length()"}


def _div(a, b):
    q = abs(a) // abs(b)
    return _wrap(q if (a >= 0) == (b >= 0) else -q)


def _rem(a, b):
    return _wrap(a - _div(a, b) * b)


_COMPILED: dict[int, tuple] = {}  # id(expr) -> (expr, function): hashing deep trees costs more


def _compiled(e):
    """A Python function env -> value for expression `e` (evaluated many times per access)."""
    hit = _COMPILED.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if len(_COMPILED) > 4096:
        _COMPILED.clear()
    fn = _compile(e)
    _COMPILED[id(e)] = (e, fn)
    return fn


def _compile(e):
    return eval(f"lambda env: {_source(e)}",  # noqa: S307 - source built from the model only
                {"_w": _wrap, "_div": _div, "_rem": _rem, "_unknown": _unknown})


def _unknown(op):
    raise Unbound(f"operator {op}")


def _source(e) -> str:
    if isinstance(e, Const):
        return f"({e.value})"
    if isinstance(e, Sym):
        return f"env[{e.name!r}]"
    args = [_source(a) for a in e.args]
    if e.op == "ite":
        return f"({args[1]} if {args[0]} else {args[2]})"
    if len(args) == 1 and e.op in _UNARY:
        return "(" + _UNARY[e.op].format(a=args[0]) + ")"
    if len(args) == 2 and e.op in _BINARY:
        return "(" + _BINARY[e.op].format(a=args[0], b=args[1]) + ")"
    return f"_unknown({e.op!r})"


# ---------------------------------------------------------------------------- one access


@dataclass(frozen=True)
class Result:
    status: str  # conflict | clean | skipped
    degree: Degree | None = None
    warp: int = 0
    at: tuple = ()  # ((loop variable as written, value), ...) where the worst degree happens
    low: int = 0  # the smallest degree over the enumerated warps and iterations
    uniform: tuple = ()  # names of the warp-uniform symbols the degree was proved for
    assumption: str = ""  # e.g. "assuming blockDim.x is a multiple of 32"
    reason: str = ""  # why it was skipped
    offsets: tuple = ()  # (lane, byte offset) of the reported warp, lanes that take part
    all_lanes: bool = False  # all 32 lanes take part in the reported warp


def _lanes(geom: Geometry, offset, guard):
    """[(warp, [(lane, env)])] for the warps of the block; None when the geometry is unknown and
    the access needs it."""
    if geom.block and None not in geom.block:
        bx, by, bz = geom.block
        n = bx * by * bz
        warps = []
        for w in range((n + WARP - 1) // WARP):
            lanes = []
            for lane in range(WARP):
                t = w * WARP + lane
                if t >= n:
                    break
                env = {"threadIdx.x": t % bx, "threadIdx.y": (t // bx) % by, "threadIdx.z": t // (bx * by)}
                env.update({f"blockDim.{a}": d for a, d in zip(AXES, geom.block)})
                lanes.append((lane, env))
            warps.append((w, lanes))
        return warps, ""
    used = {s.name for e in (offset, *guard) for s in syms(e)}
    if used & {"threadIdx.y", "threadIdx.z", "blockDim.x", "blockDim.y", "blockDim.z"}:
        return None, ""
    lanes = [(lane, {"threadIdx.x": lane, "threadIdx.y": 0, "threadIdx.z": 0}) for lane in range(WARP)]
    return [(0, lanes)], "assuming blockDim.x is a multiple of 32"


def _grid_env(geom: Geometry) -> dict:
    """The grid's known sizes; an open one (None) stays out, so it reads as an unbound symbol as
    an argument does, instead of a None that breaks arithmetic and comparisons."""
    return {f"gridDim.{a}": d for a, d in zip(AXES, geom.grid) if d is not None} if geom.grid else {}


def _loop_values(loop, env: dict):
    """The successive values of a loop's variable for one thread, or None if unknown."""
    if loop.var is None or loop.init is None or loop.step_op is None:
        return None
    try:
        v = evaluate(loop.init, env)
        step = evaluate(loop.step, env) if loop.step is not None else 1
    except Unbound:
        return None
    out = []
    for _ in range(MAX_ITERATIONS + 1):
        try:
            ok = evaluate(loop.cond, {**env, loop.var.name: v}) if loop.cond is not None else None
        except Unbound:
            return None
        if not ok:
            return out
        out.append(v)
        if loop.step_op == "+":
            v = v + step
        elif loop.step_op == "-":
            v = v - step
        elif loop.step_op == "*":
            v = v * step
        elif loop.step_op == "/" and step:
            v = int(v / step)
        elif loop.step_op == "<<":  # a shift count as C's hardware takes it (never negative or huge)
            v = _wrap(v << (step & 63))
        elif loop.step_op == ">>":
            v = v >> (step & 63)
        else:
            return None
    return None  # more than MAX_ITERATIONS: treat the counter as unknown


def analyze(kernel: Kernel, acc: Access, geom: Geometry, timeout_ms: int = 2000) -> Result:
    """The bank-conflict degree of shared-memory access `acc` under geometry `geom`."""
    guard = conjuncts(acc.guard)
    for s in syms(acc.offset):
        if s.scope >= THREAD and s.origin not in ("builtin", "loop"):
            return Result("skipped", reason="the offset depends on per-thread data")
    warps, assumption = _lanes(geom, acc.offset, guard)
    if warps is None:
        return Result("skipped", reason="symbolic blockDim and the offset depends on the block shape")
    base_env = _grid_env(geom)
    # Loops whose counters matter, outermost first; per-thread counters are enumerated per lane.
    used = {s.name for e in (acc.offset, *guard) for s in syms(e)}
    loops = [kernel.loops[i] for i in acc.loops if i in kernel.loops and kernel.loops[i].var is not None
             and kernel.loops[i].var.name in used]
    off_names = _names(acc.offset)
    # conditions that read nothing lane-specific are answered once per warp and iteration, and
    # repeated offset patterns once per access
    lane_specific = _lane_specific(loops)
    warp_guard = [c for c in guard if not _names(c) & lane_specific]
    lane_guard = [c for c in guard if _names(c) & lane_specific]
    # loops alike in every lane and an offset of lane part + iteration part: a shortcut that
    # gives the same Result; the enumeration below answers the rest
    from cudalint.analysis.banks_uniform import analyze_uniform  # it builds on this module
    fast = analyze_uniform(acc, loops, warps, base_env, warp_guard, lane_guard, lane_specific, assumption)
    if fast is not None:
        return fast
    per_warp = [_compiled(c) for c in warp_guard]
    per_lane = [_compiled(c) for c in lane_guard]
    offset_of = _compiled(acc.offset)
    degrees: dict = {}
    candidates = []  # (degree, warp, at, offsets, all_lanes, unbound names, lanes env)
    lows = []
    for w, lanes in warps:
        combos = _combos(loops, lanes, base_env, off_names)
        if combos is None:
            return NOT_ENUMERABLE
        for at, lane_envs in combos:
            offs, unbound, envs = {}, set(), {}
            if lane_envs and not _active(per_warp, lane_envs[0][1]):
                continue
            for lane, env in lane_envs:
                if not _active(per_lane, env):
                    continue
                try:
                    offs[lane] = offset_of(env)
                except (KeyError, ZeroDivisionError, Unbound):
                    offs[lane] = None
                    unbound |= {s.name for s in syms(acc.offset) if s.name not in env}
                envs[lane] = env
            if not offs or (not unbound and None in offs.values()):
                continue  # no lane takes part, or a division by zero
            if unbound:
                offs = _sampled(acc.offset, envs, unbound)
                if offs is None:
                    continue  # relative offsets change with the uniform symbols: not claimable
            d = _shifted_degree(offs, instruction_width(acc.width, acc.align), degrees)
            lows.append(d.degree)
            candidates.append((d, w, at, offs, len(offs) == len(lanes) == WARP, tuple(sorted(unbound)), envs))
    if not candidates:
        return NO_CANDIDATE
    candidates.sort(key=lambda c: -c[0].degree)  # stable: the first warp/iteration among equals
    for d, w, at, offs, full, unbound, envs in candidates[:4]:
        if unbound and not _proved(acc.offset, envs, unbound, timeout_ms):
            continue
        if d.degree <= 1:
            return Result("clean", d, w, at, min(lows), unbound, assumption, offsets=tuple(sorted(offs.items())),
                          all_lanes=full)
        low = min(lows)
        return Result("conflict", d, w, at, low, unbound, assumption, offsets=tuple(sorted(offs.items())),
                      all_lanes=full)
    return Result("skipped", reason="the degree depends on kernel arguments or block indices")


# shared with banks_uniform; NOT_ENUMERABLE also answers more than MAX_COMBOS combinations
NOT_ENUMERABLE = Result("skipped", reason="a per-thread loop counter with unknown bounds")
NO_CANDIDATE = Result("skipped", reason="no warp/iteration whose degree holds for every argument value")


def _names(e) -> set:
    return {s.name for s in syms(e)}


def _lane_specific(loops) -> set:
    """Names whose values can differ between the lanes of one warp in one iteration: the thread
    coordinates and the counters of loops that start, step or stop by them (outermost first)."""
    names = {f"threadIdx.{a}" for a in AXES}
    for loop in loops:
        reads = {s.name for e in (loop.init, loop.step, loop.cond) if e is not None for s in syms(e)}
        if reads & names:
            names.add(loop.var.name)
    return names


def _shifted_degree(offs: dict, width: int, memo: dict) -> Degree:
    """bank_degree, answered once per pattern: offsets moved by a multiple of 128 bytes (all 32
    banks) keep their banks, so only the words move."""
    base = min(offs.values()) // (BANKS * WORD) * (BANKS * WORD)
    key = (width, tuple((lane, off - base) for lane, off in offs.items()))
    d = memo.get(key)
    if d is None:
        d = memo[key] = bank_degree(dict(key[1]), width)
    return replace(d, words=tuple(w + base // WORD for w in d.words)) if base else d


def _combos(loops, lanes, base_env, off_names):
    """[(at, [(lane, env)])]: every combination of the enumerable loops' iterations; loops whose
    counters cannot be enumerated stay symbolic (uniform ones) or make the access unknown."""
    out = [((), [(lane, {**base_env, **env}) for lane, env in lanes])]
    for loop in loops:
        nxt = []
        # lanes that agree on what the loop reads run the same iterations (all of them, for a
        # uniform loop): compute those once
        reads = sorted({s.name for e in (loop.init, loop.step, loop.cond) if e is not None for s in syms(e)}
                       - {loop.var.name})
        known: dict = {}
        for at, lane_envs in out:
            per_lane = []
            for _, env in lane_envs:
                key = tuple(env.get(name) for name in reads)
                if key not in known:
                    known[key] = _loop_values(loop, env)
                per_lane.append(known[key])
            if any(v is None for v in per_lane):
                if loop.var.scope >= THREAD and loop.var.name in off_names:
                    return None
                nxt.append((at, lane_envs))  # uniform counter with unknown bounds: stays symbolic
                continue
            n = max((len(v) for v in per_lane), default=0)
            for j in range(n):
                envs = []
                for (lane, env), vals in zip(lane_envs, per_lane):
                    if j < len(vals):
                        envs.append((lane, {**env, loop.var.name: vals[j]}))
                    # a lane whose loop has already ended takes no part in iteration j
                uniform = len({vals[j] for vals in per_lane if j < len(vals)}) == 1
                label = next(vals[j] for vals in per_lane if j < len(vals)) if uniform else f"iteration {j}"
                nxt.append((at + ((loop.var.name.split("@")[0], label),), envs))
        out = nxt
        if len(out) > MAX_COMBOS:
            return None
    return out


def _active(conditions, env) -> bool:
    """Whether every condition (compiled, see _compiled) holds under env; one that reads an
    argument or loaded data is assumed to hold."""
    for holds in conditions:
        try:
            if not holds(env):
                return False
        except (KeyError, ZeroDivisionError, Unbound):
            pass
    return True


_SAMPLES = (0, 1, 7)


def _sampled(offset, envs, unbound):
    """Offsets at uniform symbols = 0, or None when the lanes' relative offsets differ between a
    few sample values (then the degree depends on them)."""
    ref = None
    first = None
    for k, base in enumerate(_SAMPLES):
        vals = {name: base + 3 * k * i for i, name in enumerate(sorted(unbound))}
        try:
            offs = {lane: evaluate(offset, {**env, **vals}) for lane, env in envs.items()}
        except Unbound:
            return None
        lane0 = min(offs)
        rel = {lane: v - offs[lane0] for lane, v in offs.items()}
        if ref is None:
            ref, first, shift0 = rel, offs, offs[lane0]
        elif rel != ref or (offs[lane0] - shift0) % WORD:
            return None
    return first


def _proved(offset, envs, unbound, timeout_ms) -> bool:
    """z3: for any two values of the uniform symbols, every lane moves by the same multiple of 4."""
    def term(env, tag):
        def var(s):
            if s.name in env:
                return bv(env[s.name])
            return z3.BitVec(f"{s.name}{tag}", BITS)
        return to_z3(offset, var)
    diffs = [term(env, "#1") - term(env, "#2") for _lane, env in sorted(envs.items())]
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(z3.Or(*[d != diffs[0] for d in diffs[1:]], (diffs[0] & bv(WORD - 1)) != bv(0)))
    return s.check() == z3.unsat


# ---------------------------------------------------------------------------- fixes


def rewrite_pitch(offset, old: int, new: int):
    """`offset` with every multiplication by the constant `old` made a multiplication by `new`."""
    if isinstance(offset, Op):
        args = tuple(rewrite_pitch(a, old, new) for a in offset.args)
        if offset.op == "*" and any(isinstance(a, Const) and a.value == old for a in args):
            args = tuple(Const(new) if isinstance(a, Const) and a.value == old else a for a in args)
        return Op(offset.op, args, offset.scope, offset.size)  # the same shape, other constants
    return offset


def padded(acc: Access, pad: int) -> Access:
    """The access as it would be with the innermost extent of its array padded by `pad` elements."""
    from dataclasses import replace
    dims, es = acc.array.dims, acc.array.elem_size
    new_dims = dims[:-1] + (dims[-1] + pad,)
    off = acc.offset
    # outer strides first, so that a rewritten inner stride is not rewritten again
    for k in range(len(dims) - 1):
        old = es
        new = es
        for d, nd in zip(dims[k + 1:], new_dims[k + 1:]):
            old, new = old * d, new * nd
        off = rewrite_pitch(off, old, new)
    return replace(acc, offset=off, array=replace(acc.array, dims=new_dims))


def affine_stride(offsets: tuple) -> int | None:
    """The byte distance between consecutive lanes when all 32 lanes are `base + lane * stride`."""
    if len(offsets) != WARP:
        return None
    stride = offsets[1][1] - offsets[0][1]
    if all(off == offsets[0][1] + lane * stride for lane, off in offsets):
        return stride
    return None


def best_stride(stride: int, width: int, unit: int) -> int | None:
    """The smallest stride >= `stride` (in steps of `unit` bytes) at which 32 lanes are
    conflict-free."""
    for k in range(1, 9):
        s = stride + k * unit
        if bank_degree({lane: lane * s for lane in range(WARP)}, width).degree <= 1:
            return s
    return None
