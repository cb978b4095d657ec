"""The grid, block and dynamic shared memory a finding's kernel runs with under ``--confirm``.

:func:`choose_shape` takes a ``cudalint-confirm`` comment, then ``--block-dim``, then the launch
site the finding names, any constant launch site of the kernel, the kernel's ``block-dim`` comment
or ``__launch_bounds__``, else a default; always large enough to hold the finding's witness
threads. The override comment, anywhere inside the kernel or on the three lines above its header::

    // cudalint-confirm: grid=(4,1,1) block=(256) shared=1024 n=4096 x=65536 runs=8
    // cudalint-confirm: skip

A scalar parameter's value is set by ``NAME=VALUE``; a pointer parameter's ``NAME=COUNT`` sets its
buffer's element count; ``skip`` makes the runner answer ``unsupported``.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from cudalint.analysis.geometry import pinned

from .evidence import kernel_basename

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
    lines above it. A key may name a field of a struct parameter (`g.nodes=1000`)."""
    lines = source.split("\n")
    out: dict[str, str] = {}
    for ln in range(max(1, where.line - 3), min(len(lines), where.end_line) + 1):
        m = _OVERRIDE_RE.search(lines[ln - 1])
        if not m:
            continue
        for tok in re.finditer(r"([A-Za-z_][\w.\[\]]*)\s*(?:=\s*(\([^)]*\)|\S+))?", m.group(1)):
            out[tok.group(1)] = tok.group(2) if tok.group(2) is not None else "1"
    return out


def _dims(text: str) -> tuple[int, int, int]:
    vals = [int(c_eval(v)) for v in text.strip("() ").split(",") if v.strip()]
    if not 1 <= len(vals) <= 3 or any(v <= 0 for v in vals):
        raise EvalError(f"bad dimensions {text!r}")
    return tuple((vals + [1, 1])[:3])


# ----------------------------------------------------------------------------- launch shape


@dataclass(frozen=True)
class LaunchShape:
    """What one run launches: the grid, the block, the dynamic shared bytes, and whence."""
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
DEFAULT_DYNAMIC_SHARED = 48 << 10

def witnesses(finding) -> list[tuple[tuple, tuple]]:
    """(threadIdx, blockIdx) of each thread the finding's witness names."""
    return list(dict(finding.properties).get("witnesses", ()))


def _matches(launch, kernel) -> bool:
    if launch.kernel != kernel.qualname and launch.kernel != (kernel_basename(kernel.name) or kernel.name):
        return False
    if kernel.usr and launch.kernel_usr and launch.kernel_usr != kernel.usr:
        return False
    return True


def choose_shape(finding, kernel, model, settings=None, ovr: dict | None = None) -> LaunchShape:
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
    return LaunchShape(tuple(grid), tuple(block), int(shared or 0), "; ".join(source), launch)
