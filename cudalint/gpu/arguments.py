"""Arguments for a kernel under ``--confirm``, from its typed parameters (cudalint.model.Param).

Scalars come from the launch site's argument values (the model's, as the front end folds them),
else values that make typical guards true; device buffers are sized by a z3 bound on every byte
offset the kernel can touch at the launch shape (a generous heuristic where the offset is
data-dependent) and filled with non-zero random data in the child; integer buffers whose values
offset a vector access (:func:`index_buffers`) get small multiples of 16 instead, those whose values
index other memory (:func:`offset_buffers`) values below :func:`offset_range`, and those that bound
loops (:func:`bound_buffers`) rising CSR offsets. A struct passed by value is one argument whose
pointer fields point at buffers planned the same way (cudalint.gpu.struct_args).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .launch_shape import LaunchShape, c_eval

from .scalars import FLOATS, default_scalar, lanes
from .struct_args import StructLayout, struct_layout

__all__ = ["Arg", "ArgPlan", "lanes", "synthesize_args", "plan_records"]

# ----------------------------------------------------------------------------- arguments


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # "buffer" | "scalar" | "struct" (a struct passed by value, cudalint.gpu.struct_args)
    dtype: str | None  # numpy dtype of the scalar (or of a buffer's lanes)
    value: float | int | None = None  # scalars
    nbytes: int = 0  # buffers; structs: the struct's size
    source: str = ""  # why this value / size
    # buffers: "random" values, "index" (multiples of 16, see index_buffers), "offsets" or "bounds"
    fill: str = "random"
    fill_range: int = 8  # "offsets" and "bounds": values 0 .. fill_range - 1
    fields: tuple = ()  # structs: FieldArg per field, in layout order
    field_of: str = ""  # a buffer a struct's pointer field points to: the struct's name

    def describe(self) -> str:
        if self.kind == "struct":
            return f"{self.name}: {{{', '.join(f.describe() for f in self.fields)}}}"
        if self.kind == "buffer":
            return f"{self.name}: {self.nbytes} B"
        return f"{self.name}={self.value}"


MAX_BUFFER = 256 << 20
MIN_BUFFER = 64 << 10


@dataclass
class ArgPlan:
    args: list[Arg] = field(default_factory=list)
    problem: str | None = None  # why the kernel cannot be called (-> unsupported)

    def describe(self) -> str:
        return ", ".join(a.describe() for a in self.args)


def _launch_value(launch, i: int, dtype: str):
    """The value the launch passes as argument i, where the host source fixes it."""
    if launch is None:
        return None
    reals, ints = launch.arg_reals, launch.arg_values
    if dtype in FLOATS and i < len(reals) and reals[i] is not None:
        return reals[i]
    return ints[i] if i < len(ints) else None


MIN_FILL_RANGE = 8
INDEX_FILL_TOP = 113  # the child's "index" fill: multiples of 16 up to 112


def _fill_bounds(index: set, bound: set, offset: set, fill_range: int) -> dict:
    """Array -> the values the child fills it with lie below this (index first, as _buffer picks)."""
    return {**{n: fill_range for n in offset | bound}, **{n: INDEX_FILL_TOP for n in index}}


def offset_range(ints: list[int], geom: LaunchShape) -> int:
    """Values of index arrays: below the largest integer argument (a vertex count, so that
    `nlist[j] < numv`; guards like `i < nlist[j]` then hold for threads of every block), at most 4
    per thread (so that values meet, as neighbours do in a graph), at least 8."""
    threads = max(1, geom.threads)
    return max(MIN_FILL_RANGE, min(ints[0] if ints else threads, 4 * threads))


@dataclass(frozen=True)
class _BufferFacts:
    """What sizes and fills a kernel's buffers: z3 bounds by name, the integer arguments (largest
    first) and the names of index, bound and offset arrays (see the functions of those names)."""
    bounds: dict
    ints: list
    index: set
    bound: set
    offset: set
    fill_range: int


def _buffer(name: str, dtype: str | None, elem_size: int, geom: LaunchShape, ovr: dict, facts: _BufferFacts,
            field_of: str = "") -> Arg:
    """The buffer a pointer (a parameter, or a by-value struct's field) points to."""
    elem = elem_size or (4 if dtype else 64)  # void: floats; an incomplete struct: a generous guess
    ints = facts.ints
    if name in ovr:
        nbytes = int(c_eval(ovr[name])) * elem
        why = "comment"
    elif facts.bounds.get(name) is not None:
        nbytes = facts.bounds[name]
        why = "z3 bound on the offsets the kernel can touch"
    else:
        span = max([geom.threads] + ints[:1]) * (ints[1] if len(ints) > 1 and ints[1] <= 4096 else 1)
        nbytes = 16 * elem * span
        why = "heuristic (offsets not bounded statically)"
    nbytes = max(MIN_BUFFER, nbytes + 4096)
    nbytes = min(nbytes, MAX_BUFFER) if name not in ovr else nbytes
    nbytes = (nbytes + 255) // 256 * 256
    integers = (dtype or "").startswith(("i", "u"))
    # a buffer in several of these takes the first of index, bounds, offsets
    fill = "random" if not integers else "index" if name in facts.index else \
        "bounds" if name in facts.bound else "offsets" if name in facts.offset else "random"
    return Arg(name, "buffer", dtype or "f4", None, nbytes, why, fill, facts.fill_range, field_of=field_of)


def synthesize_args(params, geom: LaunchShape, kernel=None, ovr: dict | None = None, settings=None,
                    witness: dict | None = None) -> ArgPlan:
    """Arguments for the kernel's parameters (cudalint.model.Param), in order; after them the
    buffers the pointer fields of by-value structs point to. A scalar takes its value from a
    `cudalint-confirm:` comment, else the launch, else the finding's `witness` (the values the
    static pass found the bug with), else a default."""
    ovr, witness = ovr or {}, witness or {}
    plan = ArgPlan()
    launch = geom.launch
    scalars: dict[str, int | float] = {}
    structs: dict[str, StructLayout] = {}
    for i, p in enumerate(params):
        if p.pointer:
            continue
        dtype, n = lanes(p)
        if (dtype is None or n != 1) and p.record:
            layout = struct_layout(p, geom, ovr)
            if isinstance(layout, str):
                plan.problem = layout
                return plan
            structs[p.name] = layout
            scalars.update((f.name, f.value) for f in layout.scalars)
            continue
        if dtype is None or n != 1:
            plan.problem = (f"parameter `{p.name}` has type `{p.type}`, which cannot be synthesised "
                            f"(by-value struct or vector)")
            return plan
        val, why = None, ""
        if p.name in ovr:
            val, why = c_eval(ovr[p.name]), "comment"
        elif (val := _launch_value(launch, i, dtype)) is not None:
            why = f"the launch at line {launch.loc.line}"
        elif p.name in witness:
            val, why = witness[p.name], "the finding's witness"
        if val is None:
            val, why = default_scalar(dtype, geom)
        val = float(val) if dtype in FLOATS else int(val)
        scalars[p.name] = val
        plan.args.append(Arg(p.name, "scalar", dtype, val, 0, why))
    pinned = {(name, off): v for name, layout in structs.items() for off, v in layout.integer_values().items()}
    ints = sorted((abs(int(v)) for k, v in scalars.items() if isinstance(v, int)), reverse=True)
    found = kernel is not None
    index, bound, offset = (index_buffers(kernel), bound_buffers(kernel), offset_buffers(kernel)) if found else \
        (set(), set(), set())
    fill_range, bounds = offset_range(ints, geom), {}
    if found:
        bounds = buffer_bounds(kernel, geom, scalars, settings, pinned, _fill_bounds(index, bound, offset, fill_range))
        if fill_range > MIN_FILL_RANGE and None in bounds.values():
            # values that scale an offset (`QSR_id * intervals * groups`): a smaller fill may fit
            fewer = buffer_bounds(kernel, geom, scalars, settings, pinned,
                                  _fill_bounds(index, bound, offset, MIN_FILL_RANGE))
            if sum(v is None for v in fewer.values()) < sum(v is None for v in bounds.values()):
                fill_range, bounds = MIN_FILL_RANGE, fewer
    facts = _BufferFacts(bounds, ints, index, bound, offset, fill_range)
    out, field_buffers = [], []
    sc_args = {a.name: a for a in plan.args}
    for p in params:
        if p.name in structs:
            layout = structs[p.name]
            for _arg, f in layout.pointers:
                field_buffers.append(_buffer(_arg.name, lanes(f)[0], f.size, geom, ovr, facts, field_of=p.name))
            fields = sorted(layout.scalars + tuple(a for a, _f in layout.pointers), key=lambda a: a.offset)
            out.append(Arg(p.name, "struct", None, None, layout.itemsize, "by-value struct", fields=tuple(fields)))
            continue
        if not p.pointer:
            out.append(sc_args[p.name])
            continue
        if p.pointer > 1:
            plan.problem = f"parameter `{p.name}` is a pointer to pointers (`{p.type}`)"
            return plan
        out.append(_buffer(p.name, lanes(p)[0], p.size, geom, ovr, facts))
    plan.args = out + field_buffers
    return plan


def plan_records(args: list[Arg]) -> list[dict]:
    """The plan's JSON records of the arguments (read by cudalint.gpu.child): a struct's pointer
    fields name their buffer's index (`buffer`), and those buffers their struct's (`field_of`)."""
    index = {a.name: i for i, a in enumerate(args)}
    out = []
    for a in args:
        r = {"name": a.name, "kind": a.kind, "dtype": a.dtype, "value": a.value, "nbytes": a.nbytes,
             "fill": a.fill, "fill_range": a.fill_range}
        if a.field_of:
            r["field_of"] = index[a.field_of]
        if a.kind == "struct":
            r["fields"] = [{"name": f.name, "offset": f.offset, "dtype": f.dtype, "count": f.count,
                            "value": f.value} | ({"buffer": index[f.name]} if f.buffer else {})
                           for f in a.fields]
        out.append(r)
    return out


def _loaded_from(e) -> set[str]:
    """The arrays whose loaded values (`ARRAY@LINE#n`, as the frontend names them) appear in e."""
    from cudalint.model import syms
    return {s.name.partition("@")[0] for s in syms(e) if s.origin == "value" and "@" in s.name} if e is not None else set()


_RELATIONAL = ("<", "<=", ">", ">=")


def _comparisons(e, ops):
    """(left, right) of every comparison in e whose operator is one of `ops`."""
    from cudalint.model import Op
    if not isinstance(e, Op):
        return
    if e.op in ops and len(e.args) == 2:
        yield e.args
    for a in e.args:
        yield from _comparisons(a, ops)


def _thread_comparisons(e) -> set[str]:
    """The loaded arrays compared (`<`, `<=`, `>`, `>=`) with a thread's or block's index in e
    (`if (i < nlist[beg])`)."""
    from cudalint.model import syms
    return {n for pair in _comparisons(e, _RELATIONAL) for mine, other in (pair, pair[::-1])
            if any(s.origin == "builtin" for s in syms(other)) for n in _loaded_from(mine)}


def _compared_loads(e) -> set[str]:
    """Arrays two of whose loads are compared with each other in e (`if (beg < end)` with
    `beg = nindex[i]`, `end = nindex[i + 1]`)."""
    return {n for left, right in _comparisons(e, _RELATIONAL + ("!=", "=="))
            for n in _loaded_from(left) & _loaded_from(right)}


def offset_buffers(kernel) -> set[str]:
    """Arrays whose loaded values index memory or are compared with a thread's index (CSR's
    `nlist`, a permutation): the child fills them with values below :func:`offset_range` (in range
    of any buffer they index: those are sized for every thread and the largest integer argument),
    half of them below 4, so that guards like `i < nlist[j]` hold in every block and values meet
    (`data[nlist[j]]` is one element for several j, as on a real graph). Where random data would
    name each element once or never."""
    from cudalint.model import Access
    out: set[str] = set()
    for a in getattr(kernel, "events", ()):
        if isinstance(a, Access):
            out |= _loaded_from(a.offset)
            for g in a.guard:
                out |= _thread_comparisons(g)
    return {n for n in out if not n.startswith("atomic")}


def bound_buffers(kernel) -> set[str]:
    """Arrays whose loaded values bound a loop or are compared with each other (CSR's `nindex`:
    `for (j = nindex[i]; j < nindex[i + 1]; j++)`): the child fills them as a CSR offset array
    (rising by 8 to 39 per element, below :func:`offset_range`), so that every vertex has
    neighbours (random values would leave half the ranges empty)."""
    from cudalint.model import Access
    out: set[str] = set()
    for loop in getattr(kernel, "loops", {}).values():
        out |= _loaded_from(loop.init) | _loaded_from(loop.cond)
    for a in getattr(kernel, "events", ()):
        if isinstance(a, Access):
            for g in a.guard:
                out |= _compared_loads(g)
    return {n for n in out if not n.startswith("atomic")}


def index_buffers(kernel) -> set[str]:
    """Arrays whose loaded values (or atomics' returned old values) reach the offset of a wider
    access than the array's element (``*reinterpret_cast<const float4*>(in + idx[i])``).

    Random data there would invent misalignment, so the child fills them with multiples of 16 (16
    to 112): aligned for every vector width and as small as random data. Indices of element-wide
    accesses keep random data: ``p + i`` keeps ``p``'s alignment. The frontend names such a value
    ``ARRAY@LINE#n`` (a load) or ``atomicAdd@LINE#n`` (the atomic access at LINE)."""
    from cudalint.model import Access, syms
    accesses = [e for e in getattr(kernel, "events", ()) if isinstance(e, Access)]
    atomics: dict[int, set] = {}
    for a in accesses:
        if a.kind == "atomic":
            atomics.setdefault(a.loc.line, set()).add(a.array.name)
    out: set[str] = set()
    for a in accesses:
        if a.align <= a.array.elem_align:
            continue
        for s in syms(a.offset):
            if s.origin != "value" or "@" not in s.name:
                continue
            what, _, rest = s.name.partition("@")
            line = rest.split("#")[0]
            if what.startswith("atomic") and line.isdigit():
                out |= atomics.get(int(line), set())
            else:
                out.add(what)
    return out


def _loop_terms(kernel, acc) -> list:
    loops = [kernel.loops[lid] for lid in acc.loops]
    return [e for lp in loops for e in (lp.init, lp.cond, lp.step) if e is not None]


def buffer_bounds(kernel, geom: LaunchShape, scalars: dict, settings=None, pinned: dict | None = None,
                  filled: dict | None = None, timeout_ms: int = 1500) -> dict:
    """Largest byte offset + width of each pointer parameter's accesses, by z3 (None: unbounded).
    `pinned`: (struct parameter, byte offset) -> the value of a by-value struct's integer field,
    which the kernel's loads of it (`g.nodes`) take. `filled`: array -> the values the child
    fills it with are below this, so offsets built from its loads (`data[nlist[j]]`) are bounded."""
    try:
        import z3

        from cudalint.analysis.geometry import Geometry as ZGeom
        from cudalint.analysis.geometry import Thread
        from cudalint.analysis.threads import loop_definition, split_guard
        from cudalint.model import THREAD, Access, Const, syms
        from cudalint.symbolic import as_bool, bv, variable
    except Exception:  # pragma: no cover - z3 is a dependency
        return {}
    zg = ZGeom(tuple(geom.block), tuple(geom.grid), "confirm")
    fields = {s: bv(pinned[(arr.name, off.value)]) for s, arr, off in getattr(kernel, "loads", ())
              if arr.space == "param" and isinstance(off, Const) and (arr.name, off.value) in (pinned or {})}
    out: dict[str, int | None] = {}
    buffers = {a.array.name for a in kernel.events if isinstance(a, Access) and a.array.space in ("global", "generic")}
    filled = {name: top for name, top in (filled or {}).items() if name in buffers}
    for acc in kernel.events:
        if not isinstance(acc, Access) or acc.array.space not in ("global", "generic"):
            continue
        name = acc.array.name
        if out.get(name, 0) is None:
            continue
        try:
            pins = fields | {s: bv(int(scalars[s.name])) for s in syms(acc.offset)
                             if s.origin == "param" and s.name in scalars and isinstance(scalars[s.name], int)}
            th = Thread(0, zg, THREAD, pins)
            facts = th.constraints()
            loaded = {v for e in (acc.offset, *acc.guard, *_loop_terms(kernel, acc)) for v in syms(e)
                      if v.origin == "value" and v.name.split("@")[0] in filled}
            facts += [z3.ULT(th.var(v), bv(filled[v.name.split("@")[0]])) for v in loaded]
            coord, _d, _m = split_guard(acc.guard, kernel)
            facts += [as_bool(th.term(c)) for c in coord]
            for c in acc.guard:
                try:
                    facts.append(as_bool(th.term(c)))
                except Exception:
                    pass
            for lid in acc.loops:
                facts += loop_definition(kernel.loops[lid], th, variable(f"iteration{lid}", False))
            off = th.term(acc.offset)
            opt = z3.Optimize()
            opt.set("timeout", timeout_ms)
            limit = bv(MAX_BUFFER)
            opt.add(*facts, off >= bv(0), off < limit)
            opt.maximize(off)
            answer = opt.check()
            if answer == z3.unsat:
                continue  # unreachable at this geometry: no constraint from it
            if answer != z3.sat:
                out[name] = None
                continue
            hi = opt.model().eval(off, model_completion=True)
            val = hi.as_signed_long() if hasattr(hi, "as_signed_long") else int(str(hi))
            # if the offset can exceed the cap, it is data-dependent: no bound
            s = z3.Solver()
            s.set("timeout", timeout_ms)
            s.add(*facts, off >= limit)
            if s.check() == z3.sat:
                out[name] = None
                continue
            out[name] = max(out.get(name) or 0, val + acc.width)
        except Exception:
            out[name] = None
    return out
