"""Arguments for a kernel under ``--confirm``, from its typed parameters (cudalint.model.Param).

Scalars come from the launch site's argument values (the model's, as the front end folds them),
else values that make typical guards true; device buffers are sized by a z3 bound on every byte
offset the kernel can touch at the launch shape (a generous heuristic where the offset is
data-dependent) and filled with non-zero random data in the child; integer buffers whose values
offset a vector access (:func:`index_buffers`) get small multiples of 16 instead, those whose values
index other memory (:func:`offset_buffers`) values below :func:`offset_range`, and those that bound
loops (:func:`bound_buffers`) rising CSR offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .launch_shape import LaunchShape, c_eval

# ----------------------------------------------------------------------------- types

# numpy dtype of an element type (its libclang spelling, cudalint.model.Param.element)
_SCALAR_DTYPES = {
    "bool": "?", "char": "i1", "signed char": "i1", "unsigned char": "u1", "short": "i2",
    "unsigned short": "u2", "int": "i4", "unsigned int": "u4", "long": "i8", "unsigned long": "u8",
    "long long": "i8", "unsigned long long": "u8", "float": "f4", "double": "f8", "__half": "f2",
    "__nv_bfloat16": "bf16",
}
# CUDA's vector types: float4 is four f4 lanes
_VECTOR_DTYPES = {"char": "i1", "uchar": "u1", "short": "i2", "ushort": "u2", "int": "i4", "uint": "u4",
                  "long": "i8", "ulong": "u8", "longlong": "i8", "ulonglong": "u8", "float": "f4",
                  "double": "f8"}
_PAIRS = {"__half2": "f2", "__nv_bfloat162": "bf16"}


def lanes(param) -> tuple[str | None, int]:
    """(numpy dtype of one scalar lane, lanes per element) of a parameter's element type; dtype
    None: a struct the runner cannot synthesise. `void *` buffers hold floats."""
    e = param.element
    if e in _SCALAR_DTYPES:
        return _SCALAR_DTYPES[e], 1
    if e in _PAIRS:
        return _PAIRS[e], 2
    if e[-1:] in "1234" and e[:-1] in _VECTOR_DTYPES:
        return _VECTOR_DTYPES[e[:-1]], int(e[-1])
    if e == "void" and param.pointer:
        return "f4", 1
    return None, 1


# ----------------------------------------------------------------------------- arguments


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str | None  # numpy dtype of the scalar (or of a buffer's lanes)
    value: float | int | None = None  # scalars
    nbytes: int = 0  # buffers
    source: str = ""  # why this value / size
    # buffers: "random" values, "index" (multiples of 16, see index_buffers), "offsets" or "bounds"
    fill: str = "random"
    fill_range: int = 8  # "offsets" and "bounds": values 0 .. fill_range - 1

    def describe(self) -> str:
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


_FLOATS = ("f4", "f8", "f2", "bf16")


def _default_scalar(dtype: str, geom: LaunchShape):
    if dtype in _FLOATS:
        return 1.5, "default"
    if dtype == "?":
        return 1, "default"
    n = max(1, geom.threads) * 4
    if dtype in ("i1", "u1"):
        return 100, "default"
    if dtype in ("i2", "u2"):
        return min(n, 30000), "default"
    return min(n, 1 << 24), "default (4 x threads, so size guards hold)"


def _launch_value(launch, i: int, dtype: str):
    """The value the launch passes as argument i, where the host source fixes it."""
    if launch is None:
        return None
    reals, ints = launch.arg_reals, launch.arg_values
    if dtype in _FLOATS and i < len(reals) and reals[i] is not None:
        return reals[i]
    return ints[i] if i < len(ints) else None


def offset_range(ints: list[int], geom: LaunchShape) -> int:
    """Values of index arrays: below the largest integer argument (a vertex count, so that
    `nlist[j] < numv`; guards like `i < nlist[j]` then hold for threads of every block), at most 4
    per thread (so that values meet, as neighbours do in a graph), at least 8."""
    threads = max(1, geom.threads)
    return max(8, min(ints[0] if ints else threads, 4 * threads))


def synthesize_args(params, geom: LaunchShape, kernel=None, ovr: dict | None = None, settings=None) -> ArgPlan:
    """Arguments for the kernel's parameters (cudalint.model.Param), in order."""
    ovr = ovr or {}
    plan = ArgPlan()
    launch = geom.launch
    scalars: dict[str, int | float] = {}
    for i, p in enumerate(params):
        if p.pointer:
            continue
        dtype, n = lanes(p)
        if dtype is None or n != 1:
            plan.problem = (f"parameter `{p.name}` has type `{p.type}`, which cannot be synthesised "
                            f"(by-value struct or vector)")
            return plan
        val, why = None, ""
        if p.name in ovr:
            val, why = c_eval(ovr[p.name]), "comment"
        elif (val := _launch_value(launch, i, dtype)) is not None:
            why = f"the launch at line {launch.loc.line}"
        if val is None:
            val, why = _default_scalar(dtype, geom)
        val = float(val) if dtype in _FLOATS else int(val)
        scalars[p.name] = val
        plan.args.append(Arg(p.name, "scalar", dtype, val, 0, why))
    bounds = buffer_bounds(kernel, geom, scalars, settings) if kernel is not None else {}
    ints = sorted((abs(int(v)) for k, v in scalars.items() if isinstance(v, int)), reverse=True)
    out = []
    sc_args = {a.name: a for a in plan.args}
    # a buffer in several of these takes the first of index, bounds, offsets (the `fill` chain below)
    index_names = index_buffers(kernel) if kernel is not None else set()
    offset_names = offset_buffers(kernel) if kernel is not None else set()
    bound_names = bound_buffers(kernel) if kernel is not None else set()
    fill_range = offset_range(ints, geom)
    for p in params:
        if not p.pointer:
            out.append(sc_args[p.name])
            continue
        if p.pointer > 1:
            plan.problem = f"parameter `{p.name}` is a pointer to pointers (`{p.type}`)"
            return plan
        dtype = lanes(p)[0]
        elem = p.size or (4 if dtype else 64)  # void: floats; an incomplete struct: a generous guess
        if p.name in ovr:
            nbytes = int(c_eval(ovr[p.name])) * elem
            why = "comment"
        elif p.name in bounds and bounds[p.name] is not None:
            nbytes = bounds[p.name]
            why = "z3 bound on the offsets the kernel can touch"
        else:
            span = max([geom.threads] + ints[:1]) * (ints[1] if len(ints) > 1 and ints[1] <= 4096 else 1)
            nbytes = 16 * elem * span
            why = "heuristic (offsets not bounded statically)"
        nbytes = max(MIN_BUFFER, nbytes + 4096)
        nbytes = min(nbytes, MAX_BUFFER) if p.name not in ovr else nbytes
        nbytes = (nbytes + 255) // 256 * 256
        integers = (dtype or "").startswith(("i", "u"))
        fill = "random" if not integers else "index" if p.name in index_names else \
            "bounds" if p.name in bound_names else "offsets" if p.name in offset_names else "random"
        out.append(Arg(p.name, "buffer", dtype or "f4", None, nbytes, why, fill, fill_range))
    plan.args = out
    return plan


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


def buffer_bounds(kernel, geom: LaunchShape, scalars: dict, settings=None, timeout_ms: int = 1500) -> dict:
    """Largest byte offset + width of each pointer parameter's accesses, by z3 (None: unbounded)."""
    try:
        import z3

        from cudalint.analysis.geometry import Geometry as ZGeom
        from cudalint.analysis.geometry import Thread
        from cudalint.analysis.threads import loop_definition, split_guard
        from cudalint.model import THREAD, Access, syms
        from cudalint.symbolic import as_bool, bv, variable
    except Exception:  # pragma: no cover - z3 is a dependency
        return {}
    zg = ZGeom(tuple(geom.block), tuple(geom.grid), "confirm")
    out: dict[str, int | None] = {}
    for acc in kernel.events:
        if not isinstance(acc, Access) or acc.array.space not in ("global", "generic"):
            continue
        name = acc.array.name
        if out.get(name, 0) is None:
            continue
        try:
            pins = {s: bv(int(scalars[s.name])) for s in syms(acc.offset)
                    if s.origin == "param" and s.name in scalars and isinstance(scalars[s.name], int)}
            th = Thread(0, zg, THREAD, pins)
            facts = th.constraints()
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
