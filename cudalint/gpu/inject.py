"""Failing calls on purpose: a leak that happens only when a CUDA call fails (CUDA401's
"is leaked when `cudaMemcpy` fails at line 40") is shown by building the program with that call
replaced by a failure.

The call is not run: its text becomes `((decltype(CALL))1)`, a value of the call's own return type
that every CUDA library reads as an error (cudaErrorInvalidValue, CUSPARSE_STATUS_NOT_INITIALIZED,
CUBLAS_STATUS_NOT_INITIALIZED, …; success is 0 in all of them), so the program takes the path
the finding describes. Newlines inside the call are kept, so every line keeps its number and
compute-sanitizer's backtraces still point at the user's lines. A call that a macro's definition
holds (`CUERR` expanding `cudaGetLastError()`) fails through a function-like macro of the call's
name that fails on the lines of those expansions only. The user's file is never touched: the
variant is written to the runner's work folder.
"""

from __future__ import annotations

import re

from .source import enclosing_function, function_spans

# Calls whose status is 0 on success and non-zero on failure: the runtime and driver APIs and
# the CUDA libraries. A user's own function may use another convention, so it is not made to fail.
_STATUS_CALL = re.compile(r"^(cuda|cu|cublas|cusparse|cufft|curand|cusolver|nvrtc|cudnn|nccl|nvjpeg)[A-Z_]")
_LIBRARIES = (("cublas", "-lcublas"), ("cusparse", "-lcusparse"), ("cufft", "-lcufft"),
              ("curand", "-lcurand"), ("cusolver", "-lcusolver"), ("nvrtc", "-lnvrtc"), ("nvjpeg", "-lnvjpeg"))


def inject_failures(source: str, calls) -> tuple[str | None, str | None]:
    """(the source with each call made to fail, None) or (None, why it cannot be done). `calls`:
    (name, line, column, end_line, end_column) with 1-based columns and an exclusive end, as the
    CUDA401 finding's `fails` property gives them."""
    lines = source.split("\n")
    in_macros: dict[str, set] = {}  # name -> lines where a macro's definition holds the call
    # right to left, so that earlier columns stay valid
    for name, line, col, end_line, end_col in sorted(calls, key=lambda c: (c[1], c[2]), reverse=True):
        if not _STATUS_CALL.match(name):
            return None, f"`{name}` is not a CUDA call, so cudalint cannot tell which value makes it fail"
        if not (1 <= line <= end_line <= len(lines)):
            return None, f"the call to `{name}` at line {line} lies outside the file"
        head, tail = lines[line - 1][:col - 1], lines[end_line - 1][end_col - 1:]
        text = "\n".join([lines[line - 1][col - 1:]] + lines[line:end_line - 1] + [lines[end_line - 1][:end_col - 1]]
                         if end_line > line else [lines[line - 1][col - 1:end_col - 1]])
        if _macro_use(text, name) and line == end_line:
            in_macros.setdefault(name, set()).add(line)
            continue
        if not _whole_call(text, name):
            return None, (f"the call to `{name}` at line {line} is not spelled out alone in the file, "
                          f"so it cannot be made to fail alone")
        lines[line - 1:end_line] = f"{head}((decltype({text}))1){tail}".split("\n")
    for name, at in sorted(in_macros.items()):
        start = min(at)
        func = enclosing_function(function_spans(source), start)
        if func is None:
            return None, f"the call to `{name}` at line {start} is outside any function, so it cannot be made to fail"
        lines[func.start_line - 1] = _failing_macro(name, at, func.start_line) + lines[func.start_line - 1]
    return "\n".join(lines), None


def _macro_use(text: str, name: str) -> bool:
    """`CUERR` or `CHECK_LAST()`: a macro whose definition holds the call (its name is not in the text)."""
    return bool(re.fullmatch(r"[A-Za-z_]\w*(\s*\(.*\))?", text, re.S)) and name not in text


def _failing_macro(name: str, lines: set, next_line: int) -> str:
    """A function-like macro that makes `name` fail where a macro on one of `lines` expands it
    (`__LINE__` there is the line of the outermost expansion; inside its own definition the name
    is not expanded again), then `#line` so that the user's lines keep their numbers."""
    on = " || ".join(f"__LINE__ == {n}" for n in sorted(lines))
    return (f"#define {name}(...) (({on}) ? (decltype({name}(__VA_ARGS__)))1 : {name}(__VA_ARGS__))\n"
            f"#line {next_line}\n")


def _whole_call(text: str, name: str) -> bool:
    """`name(...)` and nothing else: its parentheses close only at the end (a range that spells a
    macro instead, `CHECK_LAST()`, or takes in more than the call, is not)."""
    if not re.match(rf"{re.escape(name)}\s*\(", text):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch == ")":
            return not text[i + 1:].strip()
    return False


def library_flags(source: str) -> list[str]:
    """Link flags for the CUDA libraries whose headers the file includes (`#include <cusparse.h>`)."""
    included = " ".join(re.findall(r"^\s*#\s*include\s*[<\"]([^>\"]+)[>\"]", source, re.M)).lower()
    flags = [flag for lib, flag in _LIBRARIES if lib in included]
    if re.search(r"\bcu[A-Z]\w*\s*\(", source) and "cuda.h" in included.split():
        flags.append("-lcuda")  # the driver API (cuLaunchKernel, cuMemAlloc)
    return flags
