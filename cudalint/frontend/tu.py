"""One translation unit -> one FileModel: kernels (with template instantiations), launch sites,
host functions and diagnostics. The only place that decides what in a TU belongs to the user."""

from __future__ import annotations

import math
import os
import re

import clang.cindex as ci

from cudalint.frontend import depth
from cudalint.frontend.clang import CursorKind as K, const_int, file_position
from cudalint.frontend.device import KernelBuilder, has_attr
from cudalint.frontend.host import build_host_function
from cudalint.frontend.parse import Parsed
from cudalint.model import Diagnostic, FileModel, Launch, Loc

_CONFIG_CALLS = {"__cudaPushCallConfiguration", "cudaConfigureCall"}
_BLOCK_DIM_COMMENT = re.compile(r"cudalint:\s*block-dim\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?(?:,\s*(\d+)\s*)?\)")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\(\s*([^,()]+)")
_SCOPES = {K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.CLASS_DECL, K.STRUCT_DECL,
           K.CLASS_TEMPLATE}
_FUNCS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR}


class _Source:
    def __init__(self, path, text):
        self.path = path
        self.real = os.path.realpath(path)
        self.lines = text.splitlines()
        self._mine: dict[str, bool] = {}

    def loc(self, c) -> Loc:
        _, l1, c1 = file_position(c.extent.start)
        _, l2, c2 = file_position(c.extent.end)
        return Loc(self.path, l1, c1, max(l1, l2), c2 if l2 >= l1 else c1)

    def text(self, c) -> str:
        _, l1, c1 = file_position(c.extent.start)
        _, l2, c2 = file_position(c.extent.end)
        if not (0 < l1 <= len(self.lines)):
            return c.spelling
        line = self.lines[l1 - 1]
        if l2 == l1 and c2 > c1:
            return line[c1 - 1:c2 - 1]
        return line[c1 - 1:].rstrip() + " …"

    def mine(self, c) -> bool:
        f = c.location.file
        if f is None:
            return False
        name = f.name
        if name not in self._mine:
            self._mine[name] = name == self.path or os.path.realpath(name) == self.real
        return self._mine[name]


def build_model(parsed: Parsed) -> FileModel:
    src = _Source(parsed.path, parsed.text)
    if parsed.tu is None:
        return FileModel(parsed.path, tuple(src.lines), (), (), (), (), tuple(parsed.diagnostics), parsed.mode)
    kernels, device_fns, host_fns, too_deep = [], [], [], []
    for fn in _functions(parsed.tu.cursor, src):
        if not fn.is_definition():
            continue
        if depth.nesting(depth.function_text(src.lines, fn.extent.start.line, fn.extent.end.line)) > depth.MAX_NESTING:
            too_deep.append(Diagnostic(src.path, fn.extent.start.line, fn.extent.start.column, "error",
                                       f"`{fn.spelling}` nests more than {depth.MAX_NESTING} levels deep; "
                                       "not analysed", "depth"))
            continue
        if has_attr(fn, K.CUDAGLOBAL_ATTR):
            kernels.append(fn)
        elif has_attr(fn, K.CUDADEVICE_ATTR) and not has_attr(fn, K.CUDAHOST_ATTR):
            device_fns.append(fn)
        else:
            host_fns.append(fn)
    launches, instantiations = [], {}
    for fn in host_fns + kernels + device_fns:
        for call, cases in _walk_calls(fn):
            launch = _launch(call, src, cases)
            if launch is None:
                continue
            launches.append(launch[0])
            inst = launch[1]
            if inst is not None:
                tmpl = inst.specialized_template
                if tmpl is not None and not tmpl.is_null():
                    instantiations.setdefault(tmpl.get_usr(), {})[inst.get_usr()] = inst
    models, notes = [], []
    for fn in kernels:
        comment = _block_dim_comment(src, fn)
        bounds = _launch_bounds(src, fn)
        if fn.kind == K.FUNCTION_TEMPLATE:
            insts = instantiations.get(fn.get_usr(), {})
            for inst in insts.values():
                targs = _template_args(inst)
                name = f"{fn.spelling}<{', '.join(map(str, targs))}>"
                builder = KernelBuilder(inst, src.path, src.lines, src.text)
                builder.fn_decl_loc = src.loc(fn)
                models.append(builder.build(name, targs, bounds, comment))
            if not insts:  # types and template values unknown: findings would be guesses
                notes.append(f"template kernel `{fn.spelling}`: no instantiation in this file, not analysed")
        else:
            models.append(KernelBuilder(fn, src.path, src.lines, src.text).build(fn.spelling, (), bounds, comment))
    hosts = tuple(build_host_function(fn, src.loc, src.text) for fn in host_fns)
    return FileModel(parsed.path, tuple(src.lines), tuple(models), tuple(f.spelling for f in device_fns),
                     tuple(launches), hosts, tuple(parsed.diagnostics) + tuple(too_deep), parsed.mode, tuple(notes))


def _functions(cursor, src):
    for c in cursor.get_children():
        if not src.mine(c):
            continue
        if c.kind in _FUNCS:
            yield c
        elif c.kind in _SCOPES:
            yield from _functions(c, src)


def _walk_calls(node, cases=None):
    """(call, cases) for every call under node; `cases` maps a variable (its declaration's hash)
    to its value inside `switch (v) { case 6: … }` — launches dispatched on a block size."""
    cases = cases or {}
    kids = list(node.get_children())
    if node.kind == K.SWITCH_STMT and len(kids) == 2 and kids[1].kind == K.COMPOUND_STMT:
        var = _variable(kids[0])
        yield from _walk_calls(kids[0], cases)
        bound = cases
        for stmt in kids[1].get_children():
            if stmt.kind in (K.CASE_STMT, K.DEFAULT_STMT):
                value = const_int(next(stmt.get_children())) if stmt.kind == K.CASE_STMT else None
                bound = {**cases, var: value} if var is not None and value is not None else cases
            yield from _walk_calls(stmt, bound)
        return
    if node.kind == K.CALL_EXPR:
        yield node, cases
    for k in kids:
        yield from _walk_calls(k, cases)


def _launch(call, src, cases=None):
    """(Launch, instantiation cursor) for a `k<<<...>>>(...)` call, else None."""
    kids = list(call.get_children())
    config = next((ch for ch in kids if ch.kind == K.CALL_EXPR and ch.spelling in _CONFIG_CALLS), None)
    if config is None:
        return None
    ref = call.referenced
    cfg_args = list(config.get_arguments())
    grid = _dim3(cfg_args[0], cases) if len(cfg_args) > 0 else None
    block = _dim3(cfg_args[1], cases) if len(cfg_args) > 1 else None
    shmem = _int_or_default(cfg_args[2], 0) if len(cfg_args) > 2 else 0
    targs = _template_args(ref) if ref is not None else ()
    launch = Launch(kernel=call.spelling, kernel_usr=ref.get_usr() if ref is not None else "",
                    template_args=targs, grid=grid, block=block, shared_bytes=shmem, loc=src.loc(call),
                    args_text=tuple(src.text(a) for a in call.get_arguments()),
                    block_args=_block_args(cfg_args[1], call) if len(cfg_args) > 1 else ())
    return launch, (ref if ref is not None and targs else None)


def _int_or_default(c, default, cases=None):
    if c.extent.start.file is None:
        return default
    value = const_int(c)
    if value is None and cases:
        value = cases.get(_variable(c))
    return value


def _dim3(c, cases=None):
    """(x, y, z) of a dim3 or integer launch argument; a component is None when not constant
    (`cases`: values of switched variables, see _walk_calls). A plain integer means (n, 1, 1)
    even when n is unknown."""
    return _components(c, lambda k: _int_or_default(k, 1, cases), 1)


def _components(c, leaf, pad):
    """leaf() of each component of a dim3 or integer launch argument (`pad` for the absent ones),
    following a dim3 variable to its initialiser."""
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CALL_EXPR, K.CSTYLE_CAST_EXPR):
        kids = [k for k in c.get_children() if k.kind != K.TYPE_REF]
        if c.kind == K.CALL_EXPR and c.spelling == "dim3" and len(kids) >= 1 and \
                not (len(kids) == 1 and kids[0].type.spelling.replace("const ", "") in ("dim3", "uint3")):
            return tuple(([leaf(k) for k in kids] + [pad, pad, pad])[:3])
        if len(kids) != 1:
            break
        c = kids[0]
    if "dim3" in c.type.spelling or "uint3" in c.type.spelling:
        ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.VAR_DECL:
            inits = [k for k in ref.get_children() if k.kind != K.TYPE_REF]
            return _components(inits[-1], leaf, pad) if inits else (pad, pad, pad)
        return (None, None, None)
    return (leaf(c), pad, pad)


def _variable(c):
    """The declaration hash of the variable expression c names (through implicit casts), else None."""
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and len(list(c.get_children())) == 1:
        c = next(c.get_children())
    ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
    return ref.hash if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL) else None


def _block_args(block_cursor, call) -> tuple:
    """Per block axis, the index of the call argument passing the variable that sets it."""
    comps = _components(block_cursor, _variable, None)
    args = [_variable(a) for a in call.get_arguments()]
    return tuple(args.index(v) if v is not None and v in args else None for v in comps)


def _template_args(fn):
    out = []
    try:
        n = fn.get_num_template_arguments()
    except Exception:
        return ()
    for i in range(max(n, 0)):
        kind = fn.get_template_argument_kind(i)
        if kind == ci.TemplateArgumentKind.INTEGRAL:
            out.append(fn.get_template_argument_value(i))
        else:
            out.append(fn.get_template_argument_type(i).spelling)
    return tuple(out)


def _block_dim_comment(src, fn):
    line = fn.extent.start.line
    for ln in range(max(1, line - 3), line + 1):
        m = _BLOCK_DIM_COMMENT.search(src.lines[ln - 1]) if ln <= len(src.lines) else None
        if m:
            return tuple(int(g) if g else 1 for g in m.groups())
    return None


def _launch_bounds(src, fn):
    start = fn.extent.start.line
    for ln in range(start, min(start + 4, len(src.lines) + 1)):
        m = _LAUNCH_BOUNDS.search(src.lines[ln - 1])
        if m:  # a literal or a product of literals; a macro (`8*WARP_SIZE`) stays unknown
            factors = [f.strip() for f in m.group(1).split("*")]
            return math.prod(int(f) for f in factors) if all(f.isdigit() for f in factors) else None
        if "{" in src.lines[ln - 1]:
            break
    return None
