"""One translation unit -> one FileModel: kernels (with template instantiations), launch sites,
host functions and diagnostics. The only place that decides what in a TU belongs to the user."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace

import clang.cindex as ci

from cudalint.columns import code_point_column, source_lines
from cudalint.frontend import clang as cx
from cudalint.frontend import depth
from cudalint.frontend.clang import CursorKind as K, file_name, file_position
from cudalint.frontend.device import KernelBuilder, has_attr
from cudalint.frontend.fold import UNKNOWN, Folder, strip
from cudalint.frontend.host import build_host_function, declared_host_function
from cudalint.frontend.parse import Parsed, is_end_mark, within_text
from cudalint.frontend.signature import signature
from cudalint.model import Diagnostic, FileModel, Launch, Loc

_CONFIG_CALLS = {"__cudaPushCallConfiguration", "cudaConfigureCall"}
_DIM_COMMENT = r"cudalint:[^\n]*?\b{}-dim\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?(?:,\s*(\d+)\s*)?\)"
_BLOCK_DIM_COMMENT = re.compile(_DIM_COMMENT.format("block"))
_GRID_DIM_COMMENT = re.compile(_DIM_COMMENT.format("grid"))
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\(\s*([^,()]+)")
_SCOPES = {K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.CLASS_DECL, K.STRUCT_DECL,
           K.CLASS_TEMPLATE}
_INTEGER_TYPES = {getattr(ci.TypeKind, n) for n in (
    "BOOL", "CHAR_U", "UCHAR", "USHORT", "UINT", "ULONG", "ULONGLONG", "CHAR_S", "SCHAR", "SHORT",
    "INT", "LONG", "LONGLONG", "ENUM")}
# libclang 18's bindings (the `libclang` package) have no FLOAT16
_REAL_TYPES = {getattr(ci.TypeKind, n) for n in ("HALF", "FLOAT16", "FLOAT", "DOUBLE", "LONGDOUBLE")
               if hasattr(ci.TypeKind, n)}
_CALLS_AND_NEWS = {K.CALL_EXPR, K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR}
_FUNCS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR}


class _Source:
    """The file a TU is built from, and the headers its code is written in: locations name the
    file where the code is (an inlined helper from `util.cuh` at util.cuh's line)."""

    def __init__(self, path, text):
        self.path = path
        self.real = os.path.realpath(path)
        self.lines = source_lines(text)
        self._mine: dict[str, bool] = {}
        self._files: dict = {}  # file handle -> (path as reported, lines)

    def _file(self, handle):
        if handle not in self._files:
            name = file_name(handle)
            if name is None or name == self.path or os.path.realpath(name) == self.real:
                self._files[handle] = (self.path, self.lines)
            else:
                self._files[handle] = (_reported(name), _read_lines(name))
        return self._files[handle]

    def loc(self, c) -> Loc:
        f, l1, c1 = file_position(c.extent.start)
        _, l2, c2 = file_position(c.extent.end)
        if l2 < l1 or (l2 == l1 and c2 < c1):
            l2, c2 = l1, c1
        return Loc(self._file(f)[0], l1, c1, l2, c2)

    def text(self, c) -> str:
        f, l1, c1 = file_position(c.extent.start)
        _, l2, c2 = file_position(c.extent.end)
        lines = self._file(f)[1]
        if not (0 < l1 <= len(lines)):
            return c.spelling
        line = lines[l1 - 1]
        if not line.isascii():  # libclang's columns count bytes of UTF-8
            raw = line.encode("utf-8")
            c1, c2 = code_point_column(raw, c1), code_point_column(raw, c2)
        if l2 == l1 and c2 > c1:
            return line[c1 - 1:c2 - 1]
        return line[c1 - 1:].rstrip() + " …"

    def names_me(self, name: str) -> bool:
        if name not in self._mine:
            self._mine[name] = name == self.path or os.path.realpath(name) == self.real
        return self._mine[name]


def build_model(parsed: Parsed, launches_only: bool = False, host_scope=None) -> FileModel:
    """The file's model; with `launches_only`, its launches alone (a file beside the run, read for
    the launches of the run's kernels: its kernels and host functions are not modelled).
    `host_scope(calls)`: which host functions get their statement trees, from what each calls
    (see `HostCalls`); the others keep their name and parameters only. None: every one."""
    if parsed.tu is None:
        src = _Source(parsed.path, parsed.text)
        return FileModel(parsed.path, tuple(src.lines), (), (), (), (), tuple(parsed.diagnostics), parsed.mode)
    with cx.remembered_children():
        return _build_model(parsed, launches_only, host_scope)


@dataclass(frozen=True)
class HostCalls:
    """What a host function calls, as its cursors say, before its statement tree is built."""
    name: str
    calls: frozenset  # the names of the functions it calls
    allocates: bool  # a new- or delete-expression


def _build_model(parsed: Parsed, launches_only: bool, host_scope=None) -> FileModel:
    src = _Source(parsed.path, parsed.text)
    kernels, device_fns, host_fns, too_deep = [], [], [], []
    for fn in _functions(parsed.tu.cursor):
        if not fn.is_definition():
            continue
        if parsed.nesting > depth.MAX_NESTING and \
                depth.nesting(depth.function_text(src.lines, fn.extent.start.line, fn.extent.end.line)) > depth.MAX_NESTING:
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
    launches, instantiations, host_calls = [], {}, []
    for i, fn in enumerate(host_fns + kernels + device_fns):
        folder = Folder(fn)
        host = i < len(host_fns)
        names, allocates = set(), False
        for call, cases in _walk_calls(fn):
            if call.kind != K.CALL_EXPR:
                allocates = True
                continue
            if host:
                names.add(call.spelling)
            launch = _launch(call, src, folder, cases)
            if launch is None:
                continue
            launches.append(launch[0])
            inst = launch[1]
            if inst is not None:
                tmpl = cx.specialized_template(inst)
                if tmpl is not None:
                    instantiations.setdefault(tmpl.get_usr(), {})[inst.get_usr()] = inst
        if host:
            host_calls.append(HostCalls(fn.spelling, frozenset(names), allocates))
    if launches_only:
        return FileModel(parsed.path, tuple(src.lines), (), (), tuple(launches), (), tuple(parsed.diagnostics),
                         parsed.mode)
    models, notes = [], []
    broken = _error_lines(parsed.tu, src, parsed.text)
    for fn in kernels:
        try:
            built = _kernel_models(fn, src, instantiations, notes)
        except depth.TooDeep as e:  # through inlined helpers, which the text check does not see
            where = f" (in the inlined `{e.helper}`)" if e.helper else ""
            too_deep.append(Diagnostic(src.path, fn.extent.start.line, fn.extent.start.column, "error",
                                       f"`{fn.spelling}` nests more than {depth.MAX_WALK} statements and "
                                       f"expressions deep{where}; not analysed", "depth"))
            continue
        if any(fn.extent.start.line <= line <= fn.extent.end.line for line in broken):
            built = [replace(k, incomplete=True) for k in built]
            notes.append(f"kernel `{fn.spelling}`: parse errors inside its body, races and barriers not checked")
        models += built
    read = host_scope(host_calls) if host_scope else range(len(host_fns))
    hosts = tuple(build_host_function(fn, src.loc, src.text) if i in read else declared_host_function(fn, src.loc)
                  for i, fn in enumerate(host_fns))
    return FileModel(parsed.path, tuple(src.lines), tuple(models), tuple(f.spelling for f in device_fns),
                     tuple(launches), hosts, tuple(parsed.diagnostics) + tuple(too_deep), parsed.mode, tuple(notes))


def _kernel_models(fn, src, instantiations, notes) -> list:
    """The kernel's model, or one per instantiation of a template kernel."""
    comment = _dim_comment(_BLOCK_DIM_COMMENT, src, fn)
    grid_comment = _dim_comment(_GRID_DIM_COMMENT, src, fn)
    bounds = _launch_bounds(src, fn)
    if fn.kind != K.FUNCTION_TEMPLATE:
        builder = KernelBuilder(fn, src.path, src.lines, src.text, src.loc)
        return [replace(builder.build(fn.spelling, (), bounds, comment, grid_dim_comment=grid_comment),
                        signature=signature(fn))]
    insts = instantiations.get(fn.get_usr(), {})
    if not insts:  # types and template values unknown: findings would be guesses
        notes.append(f"template kernel `{fn.spelling}`: no instantiation in this file, not analysed")
    out = []
    for inst in insts.values():
        targs = _template_args(inst)
        name = f"{fn.spelling}<{', '.join(map(str, targs))}>"
        builder = KernelBuilder(inst, src.path, src.lines, src.text, src.loc)
        out.append(replace(builder.build(name, targs, bounds, comment, grid_dim_comment=grid_comment),
                           signature=signature(inst)))
    return out


def _error_lines(tu, src, text: str) -> set:
    """Lines of the file itself that hold parse errors. A kernel with one is missing code: a
    barrier, or the declarations that tell a local from shared memory (Indigo2 without its
    headers gave races on a local `bool`), so its races and barriers are not checked."""
    return {within_text(d.location.line, d.location.column, text)[0] for d in tu.diagnostics
            if d.severity >= ci.Diagnostic.Error and not is_end_mark(d) and d.location.file is not None
            and src.names_me(d.location.file.name)}


def _reported(name: str) -> str:
    """A header's path as findings give it: relative to the current directory when inside it."""
    rel = os.path.relpath(name)
    return rel if not rel.startswith("..") else os.path.abspath(name)


def _read_lines(name: str) -> list:
    try:
        with open(name, encoding="utf-8", errors="replace", newline="") as fh:
            return source_lines(fh.read())
    except OSError:
        return []


def _functions(cursor):
    """The functions (and methods, templates) the parsed file itself defines or declares."""
    for c in cursor.get_children():
        if not cx.in_main_file(c) or cx.implicit_instantiation(c):
            continue
        if c.kind in _FUNCS:
            yield c
        elif c.kind in _SCOPES:
            yield from _functions(c)


def _walk_calls(node, cases=None):
    """(call, cases) for every call under node, and for every new- and delete-expression; `cases`
    maps a variable (its declaration's hash) to its value inside `switch (v) { case 6: … }` —
    launches dispatched on a block size."""
    todo = [(node, cases or {})]  # a stack, not nested generators: each yield passed up every level
    while todo:
        node, cases = todo.pop()
        kids = list(node.get_children())
        if node.kind == K.SWITCH_STMT and len(kids) == 2 and kids[1].kind == K.COMPOUND_STMT:
            var, bound, arms = _variable(kids[0]), cases, []
            for stmt in kids[1].get_children():
                if stmt.kind in (K.CASE_STMT, K.DEFAULT_STMT):
                    value = Folder().value(next(stmt.get_children())) if stmt.kind == K.CASE_STMT else None
                    bound = {**cases, var: value} if var is not None and value is not None else cases
                arms.append((stmt, bound))
            todo += reversed([(kids[0], cases)] + arms)
            continue
        if node.kind in _CALLS_AND_NEWS:
            yield node, cases
        todo += ((k, cases) for k in reversed(kids))


def _launch(call, src, folder, cases=None):
    """(Launch, instantiation cursor) for a `k<<<...>>>(...)` call, else None."""
    kids = list(call.get_children())
    config = next((ch for ch in kids if ch.kind == K.CALL_EXPR and ch.spelling in _CONFIG_CALLS), None)
    if config is None:
        return None
    ref = call.referenced
    cfg_args = list(config.get_arguments())
    grid = _dim3(cfg_args[0], folder, cases) if len(cfg_args) > 0 else None
    block = _dim3(cfg_args[1], folder, cases) if len(cfg_args) > 1 else None
    shmem = _int_or_default(cfg_args[2], 0, folder) if len(cfg_args) > 2 else 0
    targs = _template_args(ref) if ref is not None else ()
    launch = Launch(kernel=call.spelling, kernel_usr=ref.get_usr() if ref is not None else "",
                    template_args=targs, grid=grid, block=block, shared_bytes=shmem, loc=src.loc(call),
                    args_text=tuple(src.text(a) for a in call.get_arguments()),
                    block_args=_block_args(cfg_args[1], call, folder) if len(cfg_args) > 1 else (),
                    arg_values=tuple(_int_argument(a, folder, cases) for a in call.get_arguments()),
                    arg_reals=tuple(_real_argument(a, folder) for a in call.get_arguments()))
    return launch, (ref if ref is not None and targs else None)


def _int_argument(c, folder, cases):
    """The value of an integer (or enum, or bool) kernel argument the host source fixes."""
    kind = c.type.get_canonical().kind
    if kind not in _INTEGER_TYPES or c.extent.start.file is None:
        return None
    return folder.value(c, cases)


def _real_argument(c, folder):
    """The value of a floating-point kernel argument the host source fixes."""
    if c.type.get_canonical().kind not in _REAL_TYPES or c.extent.start.file is None:
        return None
    return folder.real(c)


def _int_or_default(c, default, folder, cases=None):
    if c.extent.start.file is None:
        return default
    return folder.value(c, cases)


def _dim3(c, folder, cases=None):
    """(x, y, z) of a dim3 or integer launch argument; a component is None when not constant
    (`cases`: values of switched variables, see _walk_calls). A plain integer means (n, 1, 1)
    even when n is unknown."""
    return _components(c, lambda k: _int_or_default(k, 1, folder, cases), 1, folder)


def _components(c, leaf, pad, folder=None):
    """leaf() of each component of a dim3 or integer launch argument (`pad` for the absent ones),
    following a dim3 variable to its initialiser and the member assignments after it."""
    at = c.extent.start.offset
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
            comps = list(_components(inits[-1], leaf, pad) if inits else (pad, pad, pad))
            members = folder.dim3_members(ref, at) if folder is not None else {}
            for i, axis in enumerate("xyz"):
                if axis in members:
                    comps[i] = None if members[axis] is UNKNOWN else leaf(members[axis])
            return tuple(comps)
        return (None, None, None)
    return (leaf(c), pad, pad)


def _variable(c):
    """The declaration hash of the variable expression c names (through implicit casts), else None."""
    c = strip(c)
    ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
    return ref.hash if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL) else None


def _block_args(block_cursor, call, folder) -> tuple:
    """Per block axis, the index of the call argument passing the variable that sets it."""
    comps = _components(block_cursor, _variable, None, folder)
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


def _dim_comment(pattern, src, fn):
    line = fn.extent.start.line
    for ln in range(max(1, line - 3), line + 1):
        m = pattern.search(src.lines[ln - 1]) if ln <= len(src.lines) else None
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
