"""What to run on the GPU for a finding: the static half of ``--confirm``.

Everything here is pure Python (plus the file's model and z3) and needs no GPU, so it is unit
tested on any machine:

* :func:`device_view` — the translation unit as NVRTC will see it: host-only functions (``main``,
  host helpers) and host-only headers blanked out **line for line**, so that line numbers printed by
  compute-sanitizer (built with ``-lineinfo``) are the user's line numbers; a ``#line 1 "file.cu"``
  directive after a short prelude makes the tools print the user's file name too.
* :func:`parse_signature` — a kernel's parameters (type, pointer depth, element type) from its
  header text, with template parameters substituted by the instantiation's arguments.
* :func:`choose_geometry` — grid/block/dynamic shared bytes: a ``cudalint-confirm`` comment, then
  ``--block-dim``, then the launch site the finding names, any constant launch site of
  the kernel, the kernel's ``block-dim`` comment or ``__launch_bounds__``, else a default; always
  large enough to hold the finding's witness thread.
* :func:`synthesize_args` — scalars from constant launch-site arguments (macros and host-local
  constants are evaluated), else values that make typical guards true; device buffers sized by a z3
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
from .source import blank_comments_strings, function_spans
from cudalint.analysis.geometry import pinned

# ----------------------------------------------------------------------------- types

# scalar C type -> (numpy dtype string, size)
SCALARS = {
    "bool": ("?", 1), "char": ("i1", 1), "signed char": ("i1", 1), "unsigned char": ("u1", 1),
    "int8_t": ("i1", 1), "uint8_t": ("u1", 1), "uchar": ("u1", 1),
    "short": ("i2", 2), "short int": ("i2", 2), "unsigned short": ("u2", 2), "int16_t": ("i2", 2),
    "uint16_t": ("u2", 2), "ushort": ("u2", 2),
    "int": ("i4", 4), "signed": ("i4", 4), "signed int": ("i4", 4), "int32_t": ("i4", 4),
    "unsigned": ("u4", 4), "unsigned int": ("u4", 4), "uint32_t": ("u4", 4), "uint": ("u4", 4),
    "long": ("i8", 8), "long int": ("i8", 8), "long long": ("i8", 8), "long long int": ("i8", 8),
    "int64_t": ("i8", 8), "ptrdiff_t": ("i8", 8), "ssize_t": ("i8", 8), "intptr_t": ("i8", 8),
    "unsigned long": ("u8", 8), "unsigned long int": ("u8", 8), "unsigned long long": ("u8", 8),
    "unsigned long long int": ("u8", 8), "uint64_t": ("u8", 8), "size_t": ("u8", 8),
    "uintptr_t": ("u8", 8), "ulong": ("u8", 8), "ulonglong": ("u8", 8),
    "float": ("f4", 4), "double": ("f8", 8),
    "half": ("f2", 2), "__half": ("f2", 2), "__nv_bfloat16": ("bf16", 2), "nv_bfloat16": ("bf16", 2),
}
_VEC_BASE = {"char": "i1", "uchar": "u1", "short": "i2", "ushort": "u2", "int": "i4", "uint": "u4",
             "long": "i8", "ulong": "u8", "longlong": "i8", "ulonglong": "u8", "float": "f4",
             "double": "f8"}
_VEC_RE = re.compile(r"^(char|uchar|short|ushort|int|uint|long|ulong|longlong|ulonglong|float|double)([1-4])$")
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class",
               "typename", "__grid_constant__", "register"}


@dataclass(frozen=True)
class CType:
    """A parameter's type, reduced to what argument synthesis needs."""
    text: str  # as written (after template substitution)
    base: str  # the type without qualifiers and pointers, e.g. "float4"
    pointer: int  # pointer depth (arrays count as one)
    dtype: str | None  # numpy dtype of one scalar lane ("f4"); "bf16" for bfloat16; None: unknown
    lanes: int  # scalars per element (float4: 4)
    size: int | None  # bytes per element; None: unknown struct

    @property
    def known(self) -> bool:
        return self.dtype is not None


def classify(type_text: str) -> CType:
    t = type_text.replace("&", " & ")
    pointer = t.count("*") + t.count("[")
    words = [w for w in re.split(r"[\s*\[\]]+", t) if w and w not in _QUALIFIERS and not w.isdigit()]
    words = [w.split("::")[-1] if w.startswith(("std::", "::", "cuda::std::")) else w for w in words]
    base = " ".join(words)
    if base in SCALARS:
        d, s = SCALARS[base]
        return CType(type_text, base, pointer, d, 1, s)
    m = _VEC_RE.match(base)
    if m:
        d = _VEC_BASE[m.group(1)]
        n = int(m.group(2))
        size = int(d[1:]) * n
        if n == 3:  # float3 is 12 bytes, aligned 4
            size = int(d[1:]) * 3
        return CType(type_text, base, pointer, d, n, size)
    if base in ("half2", "__half2"):
        return CType(type_text, base, pointer, "f2", 2, 4)
    if base in ("__nv_bfloat162", "nv_bfloat162"):
        return CType(type_text, base, pointer, "bf16", 2, 4)
    if base in ("void",):
        return CType(type_text, base, pointer, "f4" if pointer else None, 1, 4 if pointer else 0)
    return CType(type_text, base, pointer, None, 1, None)


@dataclass(frozen=True)
class Param:
    name: str
    ctype: CType


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


def _prelude_defines_clash(source: str) -> bool:
    return bool(re.search(r"^\s*#\s*include\s*<(cstdint|stdint\.h|cuda/std/cstdint)>", source, re.M))


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


def _split_top(s: str, sep: str = ",") -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [p.strip() for p in out]


def _balanced(s: str, start: int, open_="(", close=")") -> str:
    depth = 0
    for i in range(start, len(s)):
        if s[i] == open_:
            depth += 1
        elif s[i] == close:
            depth -= 1
            if depth == 0:
                return s[start + 1:i]
    return s[start + 1:]


def kernel_span(source: str, name: str, line: int | None = None):
    """The FunctionSpan of kernel ``name`` (bare name), the one containing ``line`` if given."""
    base = ev.kernel_basename(name) or name
    best = None
    for sp in function_spans(source):
        if not sp.is_kernel or sp.name != base:
            continue
        if line is None or sp.start_line <= line <= sp.end_line:
            return sp
        best = best or sp
    return best


def template_params(header: str) -> list[str]:
    m = re.search(r"\btemplate\s*<", header)
    if not m:
        return []
    inner = _balanced(header, m.end() - 1, "<", ">")
    names = []
    for p in _split_top(inner):
        p = p.split("=")[0].strip()
        w = re.findall(r"[A-Za-z_]\w*", p)
        if w:
            names.append(w[-1])
    return names


def parse_signature(header: str, name: str, template_args: tuple = ()) -> list[Param]:
    """Parameters of kernel ``name`` from its header text (``template<...> __global__ void k(...)``)."""
    base = ev.kernel_basename(name) or name
    subst = dict(zip(template_params(header), [str(a) for a in template_args]))
    m = None
    for mm in re.finditer(r"\b%s\s*(<[^()]*>)?\s*\(" % re.escape(base), header):
        m = mm
    if m is None:
        return []
    inner = _balanced(header, m.end() - 1)
    params = []
    for i, p in enumerate(_split_top(inner)):
        p = p.split("=")[0].strip()
        if not p or p == "void":
            continue
        p = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", p)
        idents = re.findall(r"[A-Za-z_]\w*", p)
        if len(idents) >= 2 and idents[-1] not in _QUALIFIERS and not re.search(r"[*&]\s*$", p):
            pname = idents[-1]
            tpart = p[: p.rfind(pname)] + p[p.rfind(pname) + len(pname):]
        else:
            pname, tpart = f"arg{i}", p
        for k, v in subst.items():
            tpart = re.sub(r"\b%s\b" % re.escape(k), v, tpart)
        params.append(Param(pname, classify(tpart.strip())))
    return params


# ----------------------------------------------------------------------------- C expressions


class EvalError(ValueError):
    pass


def macros(source: str) -> dict[str, str]:
    """Object-like ``#define NAME value`` macros of the file (last definition wins)."""
    out = {}
    for m in re.finditer(r"^\s*#\s*define\s+([A-Za-z_]\w*)(?!\()\s+(.+?)\s*$", source, re.M):
        out[m.group(1)] = m.group(2).split("//")[0].strip()
    return out


_DECL_TYPES = r"(?:unsigned\s+|signed\s+)?(?:int|long\s+long|long|short|size_t|unsigned|float|double|int64_t|int32_t|uint32_t|uint64_t|char|bool|auto)"


def local_constants(source: str, before_line: int | None = None) -> dict[str, str]:
    """``[const|constexpr|static] TYPE name = expr;`` definitions (the last one before a line)."""
    text = blank_comments_strings(source)
    if before_line is not None:
        text = "\n".join(text.split("\n")[: before_line])
    out = {}
    # `const int n = BLOCK * GRID, ncoef = 4;`: every declarator with an initialiser
    for m in re.finditer(r"\b(?:(?:static|const|constexpr)\s+)*%s\s+([A-Za-z_][^;{}=]*=[^;{}]+);" % _DECL_TYPES, text):
        for part in _split_top(m.group(1)):
            name, eq, value = part.partition("=")
            if eq and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", name) and value.strip():
                out[name.strip()] = value.strip()
    for m in re.finditer(r"\benum\s*(?:class\s+)?\w*\s*\{([^}]*)\}", text):
        for item in m.group(1).split(","):
            k, _, v = item.partition("=")
            if v.strip():
                out[k.strip()] = v.strip()
    return out


_NUM_RE = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?)([uUlLfF]*)")


def c_eval(expr: str, env: dict[str, str] | None = None, depth: int = 0):
    """Evaluate a constant C/C++ expression (ints with C division, floats, sizeof, casts, macros)."""
    env = env or {}
    if depth > 20:
        raise EvalError("too deep")
    s = expr.strip()
    s = re.sub(r"\b(?:static_cast|reinterpret_cast|const_cast)\s*<[^<>]*>", "", s)
    s = re.sub(r"\bsizeof\s*\(\s*([^()]+?)\s*\)", lambda m: str(classify(m.group(1)).size or 8) if classify(m.group(1)).size else m.group(0), s)
    s = re.sub(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|short|char|size_t|float|double|unsigned|int64_t|int32_t|uint32_t|uint64_t)\s*\)", "", s)
    s = re.sub(r"\b(?:std::)?(min|max)\s*\(", r"\1(", s)
    s = re.sub(r"\btrue\b", "1", s)
    s = re.sub(r"\bfalse\b", "0", s)

    def num(m):
        body, suf = m.group(1), m.group(2).lower()
        if body.lower().startswith("0x"):
            return str(int(body, 16))
        if "f" in suf or "." in body or "e" in body.lower():
            return repr(float(body))
        if len(body) > 1 and body.startswith("0"):
            return str(int(body, 8))
        return body
    s = _NUM_RE.sub(num, s)
    s = s.replace("&&", " and ").replace("||", " or ")
    s = re.sub(r"!(?!=)", " not ", s)
    try:
        tree = ast.parse(s, mode="eval")
    except SyntaxError as e:
        raise EvalError(f"cannot parse {expr!r}") from e

    def ev_(n):
        if isinstance(n, ast.Expression):
            return ev_(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in env:
                return c_eval(env[n.id], env, depth + 1)
            raise EvalError(f"unknown name {n.id}")
        if isinstance(n, ast.UnaryOp):
            v = ev_(n.operand)
            if isinstance(n.op, ast.USub):
                return -v
            if isinstance(n.op, ast.UAdd):
                return v
            if isinstance(n.op, ast.Invert):
                return ~int(v)
            if isinstance(n.op, ast.Not):
                return int(not v)
        if isinstance(n, ast.BinOp):
            a, b = ev_(n.left), ev_(n.right)
            op = n.op
            if isinstance(op, ast.Add):
                return a + b
            if isinstance(op, ast.Sub):
                return a - b
            if isinstance(op, ast.Mult):
                return a * b
            if isinstance(op, ast.Div):
                if isinstance(a, int) and isinstance(b, int):
                    if b == 0:
                        raise EvalError("division by zero")
                    q = abs(a) // abs(b)
                    return q if (a >= 0) == (b >= 0) else -q
                return a / b
            if isinstance(op, ast.Mod):
                if b == 0:
                    raise EvalError("division by zero")
                return int(math.fmod(a, b)) if isinstance(a, int) and isinstance(b, int) else math.fmod(a, b)
            if isinstance(op, ast.LShift):
                return int(a) << int(b)
            if isinstance(op, ast.RShift):
                return int(a) >> int(b)
            if isinstance(op, ast.BitAnd):
                return int(a) & int(b)
            if isinstance(op, ast.BitOr):
                return int(a) | int(b)
            if isinstance(op, ast.BitXor):
                return int(a) ^ int(b)
        if isinstance(n, ast.BoolOp):
            vals = [ev_(v) for v in n.values]
            return int(all(vals)) if isinstance(n.op, ast.And) else int(any(vals))
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            a, b = ev_(n.left), ev_(n.comparators[0])
            op = type(n.ops[0])
            return int({ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b,
                        ast.Eq: a == b, ast.NotEq: a != b}[op])
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max") and len(n.args) == 2:
            a, b = ev_(n.args[0]), ev_(n.args[1])
            return min(a, b) if n.func.id == "min" else max(a, b)
        raise EvalError(f"not a constant expression: {expr!r}")
    return ev_(tree)


# ----------------------------------------------------------------------------- overrides


_OVERRIDE_RE = re.compile(r"//\s*cudalint-confirm\s*:\s*(.*)$")


def overrides(source: str, span) -> dict[str, str]:
    """``// cudalint-confirm: key=value ...`` inside the kernel or on the 3 lines above it."""
    if span is None:
        return {}
    lines = source.split("\n")
    out: dict[str, str] = {}
    for ln in range(max(1, span.start_line - 3), min(len(lines), span.end_line) + 1):
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


def _default_scalar(p: Param, geom: Geometry):
    d = p.ctype.dtype
    if d in ("f4", "f8", "f2", "bf16"):
        return 1.5, "default"
    if d == "?":
        return 1, "default"
    n = max(1, geom.threads) * 4
    if d in ("i1", "u1"):
        return 100, "default"
    if d in ("i2", "u2"):
        return min(n, 30000), "default"
    return min(n, 1 << 24), "default (4 x threads, so size guards hold)"


def _launch_env(source: str, launch) -> dict:
    env = macros(source)
    env.update(local_constants(source, launch.loc.line if launch is not None else None))
    return env


def synthesize_args(params: list[Param], geom: Geometry, source: str, kernel=None,
                    ovr: dict | None = None, settings=None) -> ArgPlan:
    ovr = ovr or {}
    plan = ArgPlan()
    launch = geom.launch
    env = _launch_env(source, launch)
    texts = list(launch.args_text) if launch is not None else []
    scalars: dict[str, int | float] = {}
    for i, p in enumerate(params):
        ct = p.ctype
        if ct.pointer:
            continue
        if not ct.known or ct.lanes != 1:
            if p.name in ovr:
                plan.problem = f"parameter `{p.name}` of type {ct.text}: by-value structs cannot be synthesised"
            else:
                plan.problem = (f"parameter `{p.name}` has type `{ct.text}`, which cannot be synthesised "
                                f"(by-value struct or vector)")
            return plan
        val, why = None, ""
        if p.name in ovr:
            val, why = c_eval(ovr[p.name], env), "comment"
        elif i < len(texts):
            try:
                val, why = c_eval(texts[i], env), f"the launch at line {launch.loc.line}"
            except EvalError:
                val = None
        if val is None:
            val, why = _default_scalar(p, geom)
        if ct.dtype not in ("f4", "f8", "f2", "bf16"):
            val = int(val)
        else:
            val = float(val)
        scalars[p.name] = val
        plan.args.append(Arg(p.name, "scalar", ct.dtype, val, 0, why))
    bounds = buffer_bounds(kernel, geom, scalars, settings) if kernel is not None else {}
    ints = sorted((abs(int(v)) for k, v in scalars.items() if isinstance(v, int)), reverse=True)
    out = []
    sc = iter(plan.args)
    sc_args = {a.name: a for a in plan.args}
    index_names = index_buffers(kernel) if kernel is not None else set()
    for p in params:
        ct = p.ctype
        if not ct.pointer:
            out.append(sc_args[p.name])
            continue
        if ct.pointer > 1:
            plan.problem = f"parameter `{p.name}` is a pointer to pointers (`{ct.text}`)"
            return plan
        elem = ct.size or 64
        if p.name in ovr:
            nbytes = int(c_eval(ovr[p.name], env)) * elem
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
        fill = "index" if p.name in index_names and (ct.dtype or "").startswith(("i", "u")) else "random"
        out.append(Arg(p.name, "buffer", ct.dtype or "f4", None, nbytes, why, fill))
    del sc
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
