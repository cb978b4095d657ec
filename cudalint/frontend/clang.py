"""Loading libclang and the few C entry points the Python bindings do not wrap.

Everything that imports `clang.cindex` goes through this module, so the library is configured
once (before its first use, as the bindings demand) and the ctypes helpers live in one place.
"""

from __future__ import annotations

import ctypes
import re
from contextlib import contextmanager
from functools import lru_cache

import clang.cindex as ci

# libclang-ng adds `-isystem <bundled libc++ C headers>`, which breaks libstdc++ (`FP_NAN`).
ci.Config.libcxx_dir = None

_INVALID_FILE = 70  # CXCursor_InvalidFile: the kind of clang_getNullCursor()


def _is_null(self) -> bool:
    """The null cursor ({InvalidFile, 0, {0, 0, 0}}) without a call into libclang: libclang-ng's
    bindings ask this before every cursor property, and clang_equalCursors through ctypes was a
    quarter of the model's time."""
    return self._kind_id == _INVALID_FILE and not (self.data[0] or self.data[1] or self.data[2])


if hasattr(ci.Cursor, "is_null"):
    ci.Cursor.is_null = _is_null

# The model walks each function's tree several times (calls, expressions, loops, stores), and the
# bindings visit a cursor's children through a ctypes callback per child and wrap every property
# in a null check: about half of the model's time. While `remembered_children()` is active, a
# cursor's children and its preorder walk are made once (and are the same objects each time, so
# the properties the bindings cache on a cursor, its location and extent, are looked up once
# too); a cursor's kind is a dict lookup.
_plain_children = ci.Cursor.get_children
_plain_preorder = ci.Cursor.walk_preorder
_remembered: dict | None = None
_KINDS: dict = {}


def _children(self):
    memo = _remembered
    if memo is None:
        return _plain_children(self)
    key = bytes(self)  # the CXCursor itself: kind, extra data, three pointers
    kids = memo.get(key)
    if kids is None:
        if self._kind_id in _BODIES:
            kids = _subtree(self, key, memo)
        else:
            kids = memo[key] = tuple(_plain_children(self))
    return iter(kids)


# A function's tree (and a statement's) is read whole in one visit: a visit per cursor cost a
# callback object and a call into libclang each, half of what reading the children cost. The
# translation unit, a namespace or a class is read a level at a time (its subtree is the
# headers').
_BODIES = {k.value for k in ci.CursorKind.get_all_kinds() if k.is_statement() or k.is_expression()} | \
    {ci.CursorKind.FUNCTION_DECL.value, ci.CursorKind.CXX_METHOD.value, ci.CursorKind.FUNCTION_TEMPLATE.value,
     ci.CursorKind.CONSTRUCTOR.value, ci.CursorKind.DESTRUCTOR.value, ci.CursorKind.CONVERSION_FUNCTION.value}
_visit_callback = getattr(ci, "cursor_visit_callback", None) or ci.callbacks["cursor_visit"]
_BREAK, _RECURSE = 0, 2  # CXChildVisit_Break (clang_visitChildren then returns non-zero), _Recurse


def _subtree(cursor, key, memo) -> tuple:
    """The children of `cursor` and of every cursor under it, remembered; the first ones returned."""
    found: dict = {key: []}
    tu = cursor._tu

    def visit(child, parent, _):
        child._tu = tu
        siblings = found.get(bytes(parent))
        if siblings is None:  # a parent not met as a child (a lambda's captures): read level by level
            return _BREAK
        siblings.append(child)
        found[bytes(child)] = []
        return _RECURSE

    if ci.conf.lib.clang_visitChildren(cursor, _visit_callback(visit), None):
        memo[key] = tuple(_plain_children(cursor))
        return memo[key]
    for k, kids in found.items():
        if k not in memo:
            memo[k] = tuple(kids)
    return memo[key]


def _preorder(self):
    memo = _remembered
    if memo is None:
        return _plain_preorder(self)
    key = (bytes(self), "preorder")
    walk = memo.get(key)
    if walk is None:
        walk = [self]
        for child in _children(self):
            walk.extend(_preorder(child))
        walk = memo[key] = tuple(walk)
    return iter(walk)


def _kind(self):
    k = self._kind_id
    if k == _INVALID_FILE and _is_null(self):
        raise Exception("Tried calling method on a null-cursor.")  # as the bindings' null guard does
    kind = _KINDS.get(k)
    if kind is None:
        kind = _KINDS[k] = ci.CursorKind.from_id(k)
    return kind


class _Kind:
    """Cursor.kind, kept on the cursor once read: a descriptor without __set__, so the cursor's
    own attribute answers each later read without a call (1.6 million reads on the HeCBench
    sample, most of a remembered tree's cursors read several times)."""

    def __get__(self, cursor, owner=None):
        if cursor is None:
            return self
        kind = cursor.__dict__["kind"] = _kind(cursor)
        return kind


ci.Cursor.get_children = _children
ci.Cursor.walk_preorder = _preorder
ci.Cursor.kind = _Kind()


def _unguarded(member):
    """A Cursor method or property without libclang-ng's null-cursor guard (`cursor_null_guard`
    wraps each of about seventy in a Python call that asks is_null first: 15% of the model's
    time). The bindings return None where libclang answers a null cursor, so a null one is never
    walked; LLVM 18's bindings, which cudalint supports too, have no guard at all."""
    fn = member.fget if isinstance(member, property) else member
    if not (callable(fn) and getattr(fn, "__qualname__", "").startswith("cursor_null_guard.") and fn.__closure__):
        return member
    inner = fn.__closure__[0].cell_contents
    return property(inner) if isinstance(member, property) else inner


for _name, _member in list(vars(ci.Cursor).items()):
    _plain = _unguarded(_member)
    if _plain is not _member:  # ctypes refuses even a no-op assignment to `_fields_`
        setattr(ci.Cursor, _name, _plain)


@contextmanager
def remembered_children():
    """Remember each cursor's children while the block runs (one translation unit's walk: the
    keys are the cursors' addresses, valid while their unit lives)."""
    global _remembered
    outer, _remembered = _remembered, {}
    try:
        yield
    finally:
        _remembered = outer

KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: report every error, keep the AST
SKIP_FUNCTION_BODIES = 0x40  # CXTranslationUnit_SkipFunctionBodies: declarations only
CursorKind = ci.CursorKind
TypeKind = ci.TypeKind
Cursor = ci.Cursor

_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = ci.conf.lib
        _bind("clang_Cursor_Evaluate", [ci.Cursor], ctypes.c_void_p)
        _bind("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int)
        _bind("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong)
        _bind("clang_EvalResult_getAsDouble", [ctypes.c_void_p], ctypes.c_double)
        _bind("clang_EvalResult_dispose", [ctypes.c_void_p], None)
        _bind("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int)
        _bind("clang_getBinaryOperatorKindSpelling", [ctypes.c_int], ci._CXString)
        _bind("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int)
        _bind("clang_getFileName", [ctypes.c_void_p], ci._CXString)
        _bind("clang_Location_isFromMainFile", [ci.SourceLocation], ctypes.c_int)
        _bind("clang_getUnaryOperatorKindSpelling", [ctypes.c_int], ci._CXString)
        p = ctypes.POINTER
        for located in ("clang_getFileLocation", "clang_getSpellingLocation"):
            _bind(located, [ci.SourceLocation, p(ctypes.c_void_p), p(ctypes.c_uint), p(ctypes.c_uint),
                            p(ctypes.c_uint)], None)
    return _lib


def _bind(name, argtypes, restype):
    fn = getattr(_lib, name)
    fn.argtypes, fn.restype = argtypes, restype


def _text(result) -> str:
    """A CXString result as text: older bindings (the `libclang` package, LLVM 18) register these
    entry points with a converter of their own, so the call already returned a str."""
    return result if isinstance(result, str) else ci._CXString.from_result(result)


def in_main_file(c) -> bool:
    """Whether the cursor's (expansion) location is in the parsed file itself: one C call, where
    `c.location.file` builds a File object (the walk over a TU's top-level declarations, which
    include every header's and the precompiled prelude's, spent most of its time there)."""
    return bool(lib().clang_Location_isFromMainFile(c.location))


def version() -> str:
    fn = ci.conf.lib.clang_getClangVersion
    fn.restype = ci._CXString
    return _text(fn())


def specialized_template(c):
    """The template a specialisation instantiates, None where there is none. Older bindings
    (LLVM 18) have the entry point but neither the property nor `Cursor.is_null`."""
    if hasattr(ci.Cursor, "specialized_template"):
        tmpl = c.specialized_template
    else:
        tmpl = ci.conf.lib.clang_getSpecializedCursorTemplate(c)
    return None if tmpl is None or _is_null(tmpl) else tmpl


def is_virtual_base(c) -> bool:
    if hasattr(ci.Cursor, "is_virtual_base"):
        return c.is_virtual_base()
    return bool(ci.conf.lib.clang_isVirtualBase(c))


def base_offset_bits(base, parent) -> int | None:
    """Bits from the start of record `parent` to its non-virtual base class `base` (a
    CXX_BASE_SPECIFIER), or None where this libclang cannot say (LLVM 18's bindings lack the
    method; its library may lack the function)."""
    if hasattr(ci.Cursor, "get_base_offsetof"):
        return base.get_base_offsetof(parent)
    fn = getattr(ci.conf.lib, "clang_getOffsetOfBase", None)
    if fn is None:
        return None
    fn.argtypes, fn.restype = [ci.Cursor, ci.Cursor], ctypes.c_longlong
    return fn(parent, base)


_PROBE = """#if !__has_include(<stddef.h>)
#error cudalint-probe: no builtin headers
#endif
#if !__has_include(<__clang_cuda_runtime_wrapper.h>)
#error cudalint-probe: no CUDA wrapper headers
#endif
"""


@lru_cache(maxsize=1)
def resource_headers() -> tuple[bool, bool]:
    """(clang's builtin headers, its CUDA wrapper headers) are found by this libclang. The
    `libclang` package (LLVM 18, what TensorFlow installs) ships neither; libclang-ng both."""
    try:
        tu = new_index().parse("cudalint_probe.c", args=["-x", "c"], unsaved_files=[("cudalint_probe.c", _PROBE)])
    except ci.TranslationUnitLoadError:
        return False, False
    said = " ".join(d.spelling for d in tu.diagnostics)
    return "no builtin headers" not in said, "no CUDA wrapper headers" not in said


def new_index() -> ci.Index:
    """An index whose translation units list only their own top-level declarations, not the
    precompiled prelude's (thousands per file, each a callback and a location test to skip)."""
    lib()
    return ci.Index.create(excludeDecls=True)


def implicit_instantiation(c) -> bool:
    """Whether the cursor is a template's implicit instantiation (`f<int>` made from `f<T>`),
    which a unit's own top-level declarations list beside the template: it stands where its
    template's definition does, where an explicit specialization stands apart."""
    pattern = specialized_template(c)
    if pattern is None:
        return False
    pattern._tu = c._tu  # the bare entry point's cursor lacks it, and get_definition needs it
    defined = pattern.get_definition()
    return c.location == pattern.location or defined is not None and c.location == defined.location


_EVAL_INT, _EVAL_FLOAT = 1, 2  # CXEvalResultKind


def _evaluated(cur: ci.Cursor, read):
    """read(result, kind) of libclang's evaluation of the expression or const variable, else None."""
    lib()
    res = _lib.clang_Cursor_Evaluate(cur)
    if not res:
        return None
    try:
        return read(res, _lib.clang_EvalResult_getKind(res))
    finally:
        _lib.clang_EvalResult_dispose(res)


def const_int(cur: ci.Cursor) -> int | None:
    """The integer value of a constant expression or const variable, else None."""
    return _evaluated(cur, lambda res, kind: _lib.clang_EvalResult_getAsLongLong(res) if kind == _EVAL_INT else None)


def const_real(cur: ci.Cursor) -> float | None:
    """The value of a constant floating-point (or integer) expression, else None."""
    def read(res, kind):
        if kind == _EVAL_INT:
            return float(_lib.clang_EvalResult_getAsLongLong(res))
        return _lib.clang_EvalResult_getAsDouble(res) if kind == _EVAL_FLOAT else None
    return _evaluated(cur, read)


def operator(cur: ci.Cursor) -> str:
    """'+', '+=', '<', '*', 'post++' ... for operator cursors."""
    lib()
    if cur.kind == CursorKind.UNARY_OPERATOR:
        kind = _lib.clang_getCursorUnaryOperatorKind(cur)
        return _UNARY.get(kind) or _text(_lib.clang_getUnaryOperatorKindSpelling(kind))
    kind = _lib.clang_getCursorBinaryOperatorKind(cur)
    return _text(_lib.clang_getBinaryOperatorKindSpelling(kind))


# CXUnaryOperatorKind values whose spellings ('++' for both) would lose the prefix/postfix split.
_UNARY = {1: "post++", 2: "post--", 3: "pre++", 4: "pre--", 5: "&", 6: "*", 7: "+", 8: "-",
          9: "~", 10: "!"}
STEPS = ("pre++", "pre--", "post++", "post--")  # operator() of ++ and --, the assignments among unary operators


def written_operands(c: ci.Cursor, unary=STEPS):
    """The left operand (first child, None where it has none) of each assignment inside c, in
    preorder: `=`, every `op=`, and the unary operators named in `unary` (++ and -- unless told)."""
    for n in c.walk_preorder():
        k = n.kind
        if k not in (CursorKind.BINARY_OPERATOR, CursorKind.COMPOUND_ASSIGNMENT_OPERATOR, CursorKind.UNARY_OPERATOR):
            continue
        op = operator(n)
        if k == CursorKind.BINARY_OPERATOR and op != "=" or k == CursorKind.UNARY_OPERATOR and op not in unary:
            continue
        kids = list(n.get_children())
        yield kids[0] if kids else None


def file_position(loc: ci.SourceLocation) -> tuple[str | None, int, int]:
    """(file handle, line, column) where the token is written, even inside a macro argument."""
    lib()
    _lib.clang_getFileLocation(loc, *_POSITION_REFS)  # read at once: the next call overwrites them
    return _POSITION[0].value, _POSITION[1].value, _POSITION[2].value


# clang_getFileLocation's out-parameters, made once (a model asks a hundred thousand positions)
_POSITION = (ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint())
_POSITION_REFS = tuple(ctypes.byref(x) for x in _POSITION)


def spelled(loc: ci.SourceLocation, length: int = 64) -> str:
    """Up to `length` bytes of source text from where the token at `loc` is spelled: inside a
    macro's definition for a token of its body (`#define ROW (blockIdx.y * blockDim.y + ...)`),
    where file_position gives the macro's use. "" where that is no file's text (a pasted token)."""
    lib()
    _lib.clang_getSpellingLocation(loc, *_POSITION_REFS)
    path, offset = file_name(_POSITION[0].value), _POSITION[3].value
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read(length).decode("utf-8", errors="replace")
    except (OSError, TypeError):
        return ""


def file_name(handle) -> str | None:
    """The path of a file handle from file_position()."""
    if not handle:
        return None
    lib()
    return _text(_lib.clang_getFileName(handle)) or None


def tokens(cur: ci.Cursor) -> list[str]:
    """Token spellings of a cursor's range, safe when the range starts inside a macro."""
    ext, file = cur.extent, cur.extent.start.file
    if file is None:
        return []
    tu = cur.translation_unit
    rng = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(tu, file, ext.start.offset),
        ci.SourceLocation.from_offset(tu, file, ext.end.offset))
    return [t.spelling for t in tu.get_tokens(extent=rng)]


def names_word(cur: ci.Cursor, word: str) -> bool:
    """`word in tokens(cur)`, for a cursor in a header read from the header's text (a location for
    an offset in a header takes libclang milliseconds: it looks the file up among every header
    the PCH holds; the main file it finds at once)."""
    ext, file = cur.extent, cur.extent.start.file
    if file is None or file.name == cur.translation_unit.spelling:
        return word in tokens(cur)
    start, end = ext.start.offset, ext.end.offset
    try:
        with open(file.name, "rb") as fh:
            fh.seek(start)
            text = fh.read(end - start + len(word) + 1)  # enough of the token at `end` to tell it from `word`
    except OSError:
        return False
    return any(m.group() == word.encode() for m in _TOKEN.finditer(text) if m.start() <= end - start)


_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.]*|\S")


def for_parts(c: ci.Cursor):
    """(init, cond, inc, body) cursors of a FOR_STMT, None where absent: libclang omits empty
    parts, so children are placed by the offsets of the two `;` inside the parentheses."""
    kids = list(c.get_children())
    body = kids[-1] if kids else None
    semis, close, depth = [], None, 0
    for tk in c.translation_unit.get_tokens(extent=c.extent):
        s = tk.spelling
        if s == "(":
            depth += 1
        elif s == ")":
            depth -= 1
            if depth == 0:
                close = tk.extent.start.offset
                break
        elif s == ";" and depth == 1:
            semis.append(tk.extent.start.offset)
    if len(semis) != 2 or close is None:
        return None, None, None, body
    init = cond = inc = None
    for ch in kids[:-1]:
        start = ch.extent.start.offset
        if start > close:
            continue
        if start < semis[0]:
            init = ch
        elif start < semis[1]:
            cond = ch
        else:
            inc = ch
    return init, cond, inc, body
