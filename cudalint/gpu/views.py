"""The source NVRTC compiles for ``--confirm``, and the variants of it that some checks run.

* :func:`device_view` — the translation unit as NVRTC will see it: host-only functions (``main``,
  host helpers) and host-only headers blanked out **line for line**, so that line numbers printed by
  compute-sanitizer (built with ``-lineinfo``) are the user's line numbers; a ``#line 1 "file.cu"``
  directive after a short prelude makes the tools print the user's file name too.
* :func:`atomic_variant` — the view with one read-modify-write made atomic (differential runs).
* :func:`arrival_variant` — the view with flagged ``__syncthreads()`` counting arrivals per thread.
"""

from __future__ import annotations

import re
from pathlib import Path

from .source import function_spans

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

# what <climits>, <cfloat> and <math.h> define, which NVRTC's built-in headers do not
C_LIBRARY_MACROS = {
    "CHAR_BIT": "8", "SCHAR_MIN": "(-128)", "SCHAR_MAX": "127", "UCHAR_MAX": "255", "CHAR_MIN": "(-128)",
    "CHAR_MAX": "127", "SHRT_MIN": "(-32768)", "SHRT_MAX": "32767", "USHRT_MAX": "65535",
    "INT_MIN": "(-2147483647 - 1)", "INT_MAX": "2147483647", "UINT_MAX": "4294967295U",
    "LONG_MIN": "(-9223372036854775807L - 1)", "LONG_MAX": "9223372036854775807L", "ULONG_MAX": "18446744073709551615UL",
    "LLONG_MIN": "(-9223372036854775807LL - 1)", "LLONG_MAX": "9223372036854775807LL",
    "ULLONG_MAX": "18446744073709551615ULL",
    "FLT_MAX": "3.402823466e+38F", "FLT_MIN": "1.175494351e-38F", "FLT_EPSILON": "1.192092896e-07F",
    "FLT_DIG": "6", "FLT_MANT_DIG": "24", "DBL_MAX": "1.7976931348623158e+308", "DBL_MIN": "2.2250738585072014e-308",
    "DBL_EPSILON": "2.2204460492503131e-16", "DBL_DIG": "15", "DBL_MANT_DIG": "53",
    "M_E": "2.71828182845904523536", "M_LOG2E": "1.44269504088896340736", "M_LOG10E": "0.434294481903251827651",
    "M_LN2": "0.693147180559945309417", "M_LN10": "2.30258509299404568402", "M_PI": "3.14159265358979323846",
    "M_PI_2": "1.57079632679489661923", "M_PI_4": "0.785398163397448309616", "M_1_PI": "0.318309886183790671538",
    "M_2_PI": "0.636619772367581343076", "M_2_SQRTPI": "1.12837916709551257390", "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.707106781186547524401",
}


def device_view(source: str, path: str = "input.cu", defines: tuple = (),
                include_dirs: tuple = (), keep_host: bool = False) -> tuple[str, int]:
    """The source NVRTC compiles, and the number of prelude lines before the user's line 1.

    Host-only function definitions (neither ``__global__`` nor ``__device__``; ``constexpr`` ones
    are kept), host-only
    ``#include <...>`` lines and ``using namespace std;`` are replaced by empty lines, so every
    kept line keeps its number. The user's own headers (found beside the file or in
    `include_dirs`) get the same treatment in place of their #include, each once, between
    `#line` directives that keep every line's name and number (NVRTC has no C library for the
    host headers they include); `view_row` finds a user line in the view.

    `keep_host`: the same lines for nvcc, which compiles host code too: nothing is blanked and
    the prelude's stand-ins for the C library are empty lines (the real headers define them).
    Every line stands where it stands in the NVRTC view, so the variants apply to both alike.
    """
    body = _device_lines(source, path, include_dirs, set(), 0, keep_host)
    prelude = PRELUDE.format(path=path)
    if not re.search(r"\bu?int(8|16|32|64)_t\b", source):
        prelude = "\n".join(prelude.split("\n")[:7]) + "\n"
    used = set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", "\n".join(body))) & set(C_LIBRARY_MACROS)
    for name in sorted(used):  # NVRTC has no <climits>, <cfloat> or <math.h> constants
        prelude += f"#ifndef {name}\n#define {name} {C_LIBRARY_MACROS[name]}\n#endif\n"
    for d in defines:
        name, _, val = d.partition("=")
        prelude += f"#define {name} {val or 1}\n"
    if keep_host:
        prelude = prelude.split("\n", 1)[0] + "\n" * prelude.count("\n")
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


def _device_lines(source: str, path: str, include_dirs, seen: set, depth: int, keep_host: bool = False) -> list:
    """`source` with host code blanked line for line (unless `keep_host`) and the user headers it
    includes expanded in place (a header's text between `#line` directives, once per view)."""
    lines = source.split("\n")
    spans = [] if keep_host else function_spans(source)
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
                                  include_dirs, seen, depth + 1, keep_host)
            out.append("\n".join([f'#line 1 "{found.name}"', *inner, f'#line {n + 1} "{_base(path)}"']))
            continue
        if keep_host:
            out.append(line)
            continue
        if m and m.group(1) == "<" and not DEVICE_HEADERS.match(m.group(2).strip()):
            out.append("")
            continue
        if re.match(r"^\s*using\s+namespace\s+std\s*;", line):
            out.append("")
            continue
        out.append(line)
    return out


# ----------------------------------------------------------------------------- variants


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


def arrival_variant(view: str, offset: int, lines: list[int], slots: int, calls: dict | None = None) -> str | None:
    """The device view with each `__syncthreads()` on `lines` counting, per thread, how often it
    gets there (slot (k*blocks + block)*threads + thread for the k-th line), or None when none of
    the lines holds one. A line without one whose barrier is inside a called function (a
    `BlockReduce(t).Sum(v)`) counts the call instead: `calls` maps the line to the call's
    (column, end column). Threads of one block that arrive different numbers of times show
    a divergent barrier even where nothing hangs (threads that exit)."""
    out = view.split("\n")
    found = 0
    for k, line in enumerate(lines):
        i = view_row(out, offset, line)
        if i is None:
            continue
        out[i], n = re.subn(r"\b__syncthreads\s*\(\s*\)", f"(cudalint_arrive({k}u), __syncthreads())", out[i])
        start, end = (calls or {}).get(line, (1, 1))
        text = out[i][start - 1:end - 1]
        if not n and re.fullmatch(r"[\w:.<>]+\s*(\([^;]*\)\s*\.\s*[\w<>]+\s*)?\(.*\)", text):
            out[i] = f"{out[i][:start - 1]}(cudalint_arrive({k}u), {text}){out[i][end - 1:]}"
            n = 1
        found += n
    return _ARRIVE.format(slots=slots) + "\n".join(out) if found else None
