"""What to run on the GPU for a finding: the static half of ``--confirm``.

Everything here is pure Python (plus the file's model and z3) and needs no GPU, so it is unit
tested on any machine:

* :func:`device_view` — the translation unit as NVRTC will see it: host-only functions (``main``,
  host helpers) and host-only headers blanked out **line for line**, so that line numbers printed by
  compute-sanitizer (built with ``-lineinfo``) are the user's line numbers; a ``#line 1 "file.cu"``
  directive after a short prelude makes the tools print the user's file name too.
* :func:`lanes` — the numpy type of a kernel parameter (cudalint.model.Param, typed by libclang).
* :func:`choose_geometry` — grid/block/dynamic shared bytes: a ``cudalint-confirm`` comment, then
  ``--block-dim``, then the launch site the finding names, any constant launch site of
  the kernel, the kernel's ``block-dim`` comment or ``__launch_bounds__``, else a default; always
  large enough to hold the finding's witness thread.
* :func:`synthesize_args` — scalars from the launch site's argument values (the model's, as the
  front end folds them), else values that make typical guards true; device buffers sized by a z3
  bound on every byte offset the kernel can touch at that geometry (a generous heuristic where the
  offset is data-dependent), filled with non-zero random data in the child; integer buffers whose
  values offset a vector access (:func:`index_buffers`) get small multiples of 16 instead.

The override comment, anywhere inside the kernel or on the three lines above its header::

    // cudalint-confirm: grid=(4,1,1) block=(256) shared=1024 n=4096 x=65536 runs=8
    // cudalint-confirm: skip

A scalar parameter's value is set by ``NAME=VALUE``; a pointer parameter's ``NAME=COUNT`` sets its
buffer's element count; ``skip`` makes the runner answer ``unsupported``.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import evidence as ev
from .source import function_spans
from cudalint.analysis.geometry import pinned

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


# ----------------------------------------------------------------------------- source views

# headers NVRTC can compile (they ship with the toolkit or CCCL); everything else in <> is host
DEVICE_HEADERS = re.compile(
    r"^(cuda_fp16\.h|cuda_bf16\.h|cuda_fp8\.h|cuda_fp4\.h|cuda_fp6\.h|mma\.h|cooperative_groups\.h|"
    r"cooperative_groups/.*|cuda/.*|cub/.*|cuda_pipeline.*\.h|cuda_awbarrier.*\.h|"
    r"sm_\d+_intrinsics\.h|crt/.*)$")
_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PRELUDE = """\
// cudalint --confirm: device-only view of {path} (host code blanked line for line)
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t;
typedef unsigned short uint16_t; typedef int int32_t; typedef unsigned int uint32_t;
typedef long long int64_t; typedef unsigned long long uint64_t;
"""


def device_view(source: str, path: str = "input.cu", defines: tuple = (),
                include_dirs: tuple = ()) -> tuple[str, int]:
    """The source NVRTC compiles, and the number of prelude lines before the user's line 1.

    Host-only function definitions (neither ``__global__`` nor ``__device__``; ``constexpr`` ones
    are kept), host-only
    ``#include <...>`` lines and ``using namespace std;`` are replaced by empty lines, so every
    kept line keeps its number. The user's own headers (found beside the file or in
    `include_dirs`) get the same treatment in place of their #include, each once, between
    `#line` directives that keep every line's name and number (NVRTC has no C library for the
    host headers they include); `view_row` finds a user line in the view.
    """
    body = _device_lines(source, path, include_dirs, set(), 0)
    prelude = PRELUDE.format(path=path)
    if not re.search(r"\bu?int(8|16|32|64)_t\b", source):
        prelude = "\n".join(prelude.split("\n")[:7]) + "\n"
    for d in defines:
        name, _, val = d.partition("=")
        prelude += f"#define {name} {val or 1}\n"
    head = prelude + f'#line 1 "{_base(path)}"\n'
    return head + "\n".join(body), head.count("\n")


_LINE_DIRECTIVE = re.compile(r'^#line (\d+) "([^"]*)"$')


def view_row(view_lines: list, offset: int, line: int) -> int | None:
    """The index in the view of the user's `line` (the file named at `offset - 1`)."""
    m = _LINE_DIRECTIVE.match(view_lines[offset - 1]) if 0 < offset <= len(view_lines) else None
    if m is None:
        return None
    main, name, number = m.group(2), m.group(2), int(m.group(1))
    for i in range(offset, len(view_lines)):
        d = _LINE_DIRECTIVE.match(view_lines[i])
        if d:
            number, name = int(d.group(1)), d.group(2)
            continue
        if name == main and number == line:
            return i
        number += 1
    return None


def _base(path: str) -> str:
    return path.replace("\\", "/").split("/")[-1].replace('"', "")


def _find_header(name: str, path: str, include_dirs) -> Path | None:
    for d in (Path(path).resolve().parent, *map(Path, include_dirs)):
        cand = d / name
        if cand.is_file():
            return cand.resolve()
    return None


def _device_lines(source: str, path: str, include_dirs, seen: set, depth: int) -> list:
    """`source` with host code blanked line for line and the user headers it includes expanded
    in place (a header's text between `#line` directives, once per view)."""
    lines = source.split("\n")
    spans = function_spans(source)
    blank = set()
    for sp in spans:
        if sp.is_kernel or sp.is_device:
            continue
        if "constexpr" in sp.header.split("(")[0]:
            continue
        # a host function nested inside a kept function cannot happen; lambdas are not spans
        for ln in range(sp.start_line, sp.end_line + 1):
            blank.add(ln)
    out = []
    for n, line in enumerate(lines, start=1):
        if n in blank:
            out.append("")
            continue
        m = _INCLUDE_RE.match(line)
        found = _find_header(m.group(2).strip(), path, include_dirs) if m and depth < 8 else None
        if found is not None:
            if found in seen:
                out.append("")
                continue
            seen.add(found)
            inner = _device_lines(found.read_text(encoding="utf-8", errors="replace"), str(found),
                                  include_dirs, seen, depth + 1)
            out.append("\n".join([f'#line 1 "{found.name}"', *inner, f'#line {n + 1} "{_base(path)}"']))
            continue
        if m and m.group(1) == "<" and not DEVICE_HEADERS.match(m.group(2).strip()):
            out.append("")
            continue
        if re.match(r"^\s*using\s+namespace\s+std\s*;", line):
            out.append("")
            continue
        out.append(line)
    return out


# ----------------------------------------------------------------------------- signatures


_LVALUE = r"(?:\*\s*)?[A-Za-z_]\w*(?:\s*(?:\[[^\[\];()]*\]|(?:\.|->)\s*\w+))*"
_RMW = re.compile(rf"(?P<lhs>{_LVALUE})\s*(?P<op>[+-])=\s*(?P<rhs>[^;]+);")
_EXTREMUM = re.compile(rf"(?P<lhs>{_LVALUE})\s*=\s*(?P<fn>max|min)\s*\(\s*(?P=lhs)\s*,\s*(?P<rhs>[^;]+)\)\s*;")
_INCDEC = re.compile(rf"(?:(?P<pre>\+\+|--)\s*(?P<lhs1>{_LVALUE})|(?P<lhs2>{_LVALUE})\s*(?P<post>\+\+|--))\s*;")


def atomic_variant(view: str, offset: int, line: int) -> str | None:
    """The device view with the read-modify-write on source line `line` (`x += v`, `x -= v`,
    `x++`, `--x`) made an atomicAdd (`x = max(x, v)`: atomicMax, `min`: atomicMin), or None when
    the line holds none that is plain to rewrite.
    Run beside the original, a lost update shows as a different result even when every run of
    the racy kernel loses the same updates (a warp's lanes all adding to one counter)."""
    lines = view.split("\n")
    k = view_row(lines, offset, line)
    if k is None:
        return None
    text = lines[k]
    m, atomic = _RMW.search(text), "atomicAdd"
    if m:
        lhs, amount = m["lhs"], m["rhs"].strip() if m["op"] == "+" else f"-({m['rhs'].strip()})"
    elif m := _EXTREMUM.search(text):
        lhs, amount, atomic = m["lhs"], m["rhs"].strip(), {"max": "atomicMax", "min": "atomicMin"}[m["fn"]]
    else:
        m = _INCDEC.search(text)
        if not m:
            return None
        lhs, amount = m["lhs1"] or m["lhs2"], "1" if "+" in (m["pre"] or m["post"]) else "-1"
    if not any(c in lhs for c in "*[>"):
        return None  # a local variable: nothing shared to update atomically
    new = f"{atomic}(&({lhs.strip()}), {amount});"
    lines[k] = text[:m.start()] + new + text[m.end():]
    return "\n".join(lines)


# The counters the child reads back by name (`cudalint_arrivals`, extern "C": not mangled).
_ARRIVE = """extern "C" {{ __device__ unsigned int cudalint_arrivals[{slots}]; }}
static __device__ inline void cudalint_arrive(unsigned int k) {{
  unsigned int blocks = gridDim.x * gridDim.y * gridDim.z, threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned int slot = (k * blocks + block) * threads + threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (slot < {slots}u) cudalint_arrivals[slot] += 1;
}}
"""


def arrival_variant(view: str, offset: int, lines: list[int], slots: int) -> str | None:
    """The device view with each `__syncthreads()` on `lines` counting, per thread, how often it
    gets there (slot (k*blocks + block)*threads + thread for the k-th line), or None when none of
    the lines holds a `__syncthreads()`. Threads of one block that arrive different numbers of
    times show a divergent barrier even where nothing hangs (threads that exit)."""
    out = view.split("\n")
    found = 0
    for k, line in enumerate(lines):
        i = view_row(out, offset, line)
        if i is not None:
            out[i], n = re.subn(r"\b__syncthreads\s*\(\s*\)", f"(cudalint_arrive({k}u), __syncthreads())", out[i])
            found += n
    return _ARRIVE.format(slots=slots) + "\n".join(out) if found else None


# ----------------------------------------------------------------------------- override values


class EvalError(ValueError):
    pass


_NUM_RE = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?)([uUlLfF]*)")
_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.LShift: lambda a, b: int(a) << int(b), ast.RShift: lambda a, b: int(a) >> int(b),
               ast.BitAnd: lambda a, b: int(a) & int(b), ast.BitOr: lambda a, b: int(a) | int(b),
               ast.BitXor: lambda a, b: int(a) ^ int(b)}


def c_eval(expr: str):
    """The value of a number a `cudalint-confirm` comment writes: C literals (`4096`, `0x10`,
    `2.0f`, `256u`) and arithmetic over them, with C's integer division."""
    def literal(m):
        body, suffix = m.group(1), m.group(2).lower()
        if body.lower().startswith("0x"):
            return str(int(body, 16))
        if "f" in suffix or "." in body or "e" in body.lower():
            return repr(float(body))
        return str(int(body, 8)) if len(body) > 1 and body.startswith("0") else body
    try:
        tree = ast.parse(_NUM_RE.sub(literal, expr.strip()), mode="eval")
    except SyntaxError as e:
        raise EvalError(f"cannot parse {expr!r}") from e

    def value(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = value(n.operand)
            return -v if isinstance(n.op, ast.USub) else v if isinstance(n.op, ast.UAdd) else ~int(v)
        if isinstance(n, ast.BinOp) and type(n.op) in _ARITHMETIC:
            return _ARITHMETIC[type(n.op)](value(n.left), value(n.right))
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mod)):
            a, b = value(n.left), value(n.right)
            if b == 0:
                raise EvalError("division by zero")
            if not (isinstance(a, int) and isinstance(b, int)):
                return a / b if isinstance(n.op, ast.Div) else math.fmod(a, b)
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates toward zero
            return q if isinstance(n.op, ast.Div) else a - q * b
        raise EvalError(f"not a constant: {expr!r}")
    return value(tree.body)


# ----------------------------------------------------------------------------- overrides


_OVERRIDE_RE = re.compile(r"//\s*cudalint-confirm\s*:\s*(.*)$")


def overrides(source: str, where) -> dict[str, str]:
    """``// cudalint-confirm: key=value ...`` inside the kernel (`where`: its Loc) or on the 3
    lines above it."""
    lines = source.split("\n")
    out: dict[str, str] = {}
    for ln in range(max(1, where.line - 3), min(len(lines), where.end_line) + 1):
        m = _OVERRIDE_RE.search(lines[ln - 1])
        if not m:
            continue
        for tok in re.finditer(r"([A-Za-z_]\w*)\s*(?:=\s*(\([^)]*\)|\S+))?", m.group(1)):
            out[tok.group(1)] = tok.group(2) if tok.group(2) is not None else "1"
    return out


def _dims(text: str) -> tuple[int, int, int]:
    vals = [int(c_eval(v)) for v in text.strip("() ").split(",") if v.strip()]
    if not 1 <= len(vals) <= 3 or any(v <= 0 for v in vals):
        raise EvalError(f"bad dimensions {text!r}")
    return tuple((vals + [1, 1])[:3])


# ----------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Geometry:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    source: str  # where it came from, for the detail text
    launch: object | None = None  # the model.Launch used, if any

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)

    def describe(self) -> str:
        def f(d):
            return "(" + ",".join(map(str, d)) + ")"
        s = f"grid {f(self.grid)} block {f(self.block)}"
        if self.shared_bytes:
            s += f" shared {self.shared_bytes} B"
        return s


DEFAULT_BLOCK = (128, 1, 1)
DEFAULT_GRID = (2, 1, 1)
WITNESS_GRID_LIMIT = 64
MAX_BLOCKS = 4096  # grids are capped: a confirmation needs the witness, not the whole problem

def witnesses(finding) -> list[tuple[tuple, tuple]]:
    """(threadIdx, blockIdx) of each thread the finding's witness names."""
    return list(dict(finding.properties).get("witnesses", ()))


def _matches(launch, kernel) -> bool:
    if launch.kernel != kernel.qualname and launch.kernel != (ev.kernel_basename(kernel.name) or kernel.name):
        return False
    if kernel.usr and launch.kernel_usr and launch.kernel_usr != kernel.usr:
        return False
    return True


def choose_geometry(finding, kernel, model, settings=None, ovr: dict | None = None) -> Geometry:
    ovr = ovr or {}
    launches = [l for l in (model.launches if model else ()) if kernel is not None and _matches(l, kernel)]
    block = grid = None
    shared = None
    source = []
    launch = None
    if "block" in ovr:
        block = _dims(ovr["block"])
        source.append("block from a cudalint-confirm comment")
    elif settings is not None and kernel is not None and pinned(settings.block_dims, kernel):
        block = pinned(settings.block_dims, kernel)
        source.append("block from --block-dim")
    typed = dict(finding.properties)
    for l in launches:
        if l.loc.line == typed.get("launch_line"):
            launch = l
    if launch is None:
        consts = [l for l in launches if l.block and all(v and v > 0 for v in l.block)]
        launch = consts[0] if consts else (launches[0] if launches else None)
    if launch is not None:
        if block is None and launch.block and all(v and v > 0 for v in launch.block):
            block = tuple(launch.block)
            source.append(f"block from the launch at line {launch.loc.line}")
        if launch.grid and all(v and v > 0 for v in launch.grid):
            grid = tuple(launch.grid)
            source.append(f"grid from the launch at line {launch.loc.line}")
        if launch.shared_bytes:
            shared = launch.shared_bytes
    if block is None and typed.get("block_dim"):
        block = tuple(int(v) for v in typed["block_dim"].split(","))
        source.append("block from the finding")
    if block is None and kernel is not None and kernel.block_dim_comment:
        block = tuple(kernel.block_dim_comment)
        source.append("block from a block-dim comment")
    if block is None and kernel is not None and kernel.launch_bounds:
        block = (int(kernel.launch_bounds), 1, 1)
        source.append("block from __launch_bounds__")
    if block is None:
        block = DEFAULT_BLOCK
        source.append("default block")
    if "grid" in ovr:
        grid = _dims(ovr["grid"])
        source.append("grid from a cudalint-confirm comment")
    if grid is None:
        grid = DEFAULT_GRID
        source.append("default grid")
    if "shared" in ovr:
        shared = int(c_eval(ovr["shared"]))
        source.append("shared size from a cudalint-confirm comment")
    elif shared is None and kernel is not None and any(
            getattr(e, "array", None) is not None and e.array.dynamic for e in kernel.events):
        shared = DEFAULT_DYNAMIC_SHARED  # the size is not a constant at the launch (or there is none)
        source.append(f"dynamic shared memory {DEFAULT_DYNAMIC_SHARED} B, the most without opting in")
    # hold the witness thread(s)
    for th, bl in witnesses(finding):
        if "block" not in ovr and any(t >= b for t, b in zip(th, block)):
            block = tuple(max(b, t + 1) for b, t in zip(block, th))
            source.append("block widened to hold the witness")
        # a witness block far out (a solver's pick under a symbolic grid) is not worth a huge grid:
        # widening the y/z axes of a 1-D launch would even create duplicate blocks
        if "grid" not in ovr and any(t >= g for t, g in zip(bl, grid)):
            if all(t < WITNESS_GRID_LIMIT for t in bl):
                grid = tuple(max(g, t + 1) for g, t in zip(grid, bl))
                source.append("grid widened to hold the witness")
            else:
                source.append("witness block outside the tested grid")
    if math.prod(grid) > MAX_BLOCKS and "grid" not in ovr:
        g = list(grid)
        while math.prod(g) > MAX_BLOCKS:
            i = max(range(3), key=lambda k: g[k])
            g[i] = max(1, g[i] // 2)
        grid = tuple(g)
        source.append(f"grid capped at {MAX_BLOCKS} blocks")
    return Geometry(tuple(grid), tuple(block), int(shared or 0), "; ".join(source), launch)


# ----------------------------------------------------------------------------- arguments


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str | None  # numpy dtype of the scalar (or of a buffer's lanes)
    value: float | int | None = None  # scalars
    nbytes: int = 0  # buffers
    source: str = ""  # why this value / size
    fill: str = "random"  # buffers: "random" values, or "index" (multiples of 16, see index_buffers)

    def describe(self) -> str:
        if self.kind == "buffer":
            return f"{self.name}: {self.nbytes} B"
        return f"{self.name}={self.value}"


MAX_BUFFER = 256 << 20
DEFAULT_DYNAMIC_SHARED = 48 << 10
MIN_BUFFER = 64 << 10


@dataclass
class ArgPlan:
    args: list[Arg] = field(default_factory=list)
    problem: str | None = None  # why the kernel cannot be called (-> unsupported)

    def describe(self) -> str:
        return ", ".join(a.describe() for a in self.args)


_FLOATS = ("f4", "f8", "f2", "bf16")


def _default_scalar(dtype: str, geom: Geometry):
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


def synthesize_args(params, geom: Geometry, kernel=None, ovr: dict | None = None, settings=None) -> ArgPlan:
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
    index_names = index_buffers(kernel) if kernel is not None else set()
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
        fill = "index" if p.name in index_names and (dtype or "").startswith(("i", "u")) else "random"
        out.append(Arg(p.name, "buffer", dtype or "f4", None, nbytes, why, fill))
    plan.args = out
    return plan


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


def buffer_bounds(kernel, geom: Geometry, scalars: dict, settings=None, timeout_ms: int = 1500) -> dict:
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
