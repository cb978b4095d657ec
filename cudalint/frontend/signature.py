"""Kernel parameters typed from libclang: what a caller must pass for each (cudalint.model.Param)."""

from __future__ import annotations

from cudalint.frontend.clang import CursorKind as K, TypeKind as T, base_offset_bits, is_virtual_base
from cudalint.frontend.values import _parameters
from cudalint.model import Field, Param

_POINTING = (T.POINTER, T.CONSTANTARRAY, T.INCOMPLETEARRAY)
_QUALIFIERS = ("const", "volatile", "restrict", "__restrict")
# structs that kernels use as scalars: one field each, laid out whole
_KEPT_WHOLE = ("__half", "__nv_bfloat16")
MAX_FIELDS = 64  # a larger struct is not synthesised field by field
MAX_UNROLLED = 16  # elements of an array of pointers or structs laid out one by one


def signature(fn) -> tuple:
    """Param per parameter of the function (of the instantiation, for a template's)."""
    return tuple(_param(p) for p in _parameters(fn))


def _param(p) -> Param:
    t, depth = _pointee(p.type)
    size, align = t.get_size(), t.get_align()
    element = _spelling(t)
    record, fields = "", ()
    if depth == 0 and t.kind == T.RECORD and element not in _KEPT_WHOLE:
        record = "union" if _is_union(t) else "struct"
        fields = _fields(t) if record == "struct" else ()
    return Param(p.spelling, p.type.spelling, element, depth, max(size, 0), max(align, 1),
                 t.is_const_qualified(), record, fields)


def _pointee(t):
    """(innermost canonical type, pointer depth) of a type; an array counts as a pointer."""
    t, depth = t.get_canonical(), 0
    while t.kind in _POINTING:
        t = (t.get_pointee() if t.kind == T.POINTER else t.element_type).get_canonical()
        depth += 1
    return t, depth


def _spelling(t) -> str:
    """A canonical type's name without qualifiers; an enum passes as its underlying integer."""
    if t.kind == T.ENUM:
        t = t.get_declaration().enum_type.get_canonical()
    return " ".join(w for w in t.spelling.split() if w not in _QUALIFIERS)


def _is_union(t) -> bool:
    return t.get_declaration().kind == K.UNION_DECL


def _fields(t) -> tuple:
    out: list[Field] = []
    _lay_out(t, 0, "", out)
    if len(out) > MAX_FIELDS:
        return (Field("", 0, _spelling(t), 0, 0, 1, unsupported=f"a struct of more than {MAX_FIELDS} fields"),)
    return tuple(out)


def _lay_out(t, at: int, prefix: str, out: list) -> None:
    """Append the fields of record type `t` placed at byte `at`, named `prefix` + field name."""
    decl = t.get_declaration()
    for base in (c for c in decl.get_children() if c.kind == K.CXX_BASE_SPECIFIER):
        bits = -1 if is_virtual_base(base) else base_offset_bits(base, decl)
        if bits is None or bits < 0:
            why = "a virtual base class" if bits is not None else "a base class whose offset this libclang does not report"
            out.append(Field(prefix.rstrip(".") or base.type.spelling, at, _spelling(base.type.get_canonical()),
                             0, 0, 1, unsupported=why))
            continue
        _lay_out(base.type.get_canonical(), at + bits // 8, prefix, out)
    for f in t.get_fields():
        bits = f.get_field_offsetof()
        ft = f.type.get_canonical()
        anonymous = ft.kind == T.RECORD and ft.get_declaration().is_anonymous()
        name = prefix.rstrip(".") if anonymous else prefix + f.spelling
        if bits < 0 or f.is_bitfield():
            why = "a bit-field" if f.is_bitfield() else "a field libclang cannot place"
            out.append(Field(name, at, _spelling(ft), 0, 0, 1, unsupported=why))
            continue
        _field(ft, at + bits // 8, name, out, prefix if anonymous else None)


def _field(ft, at: int, name: str, out: list, anonymous_prefix: str | None = None) -> None:
    size, align = max(ft.get_size(), 0), max(ft.get_align(), 1)
    if ft.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        out.append(Field(name, at, _spelling(ft), 0, size, align, unsupported="a reference"))
    elif ft.kind == T.POINTER:
        inner, depth = _pointee(ft)
        out.append(Field(name, at, _spelling(inner), depth, max(inner.get_size(), 0), max(inner.get_align(), 1),
                         unsupported=f"a pointer to pointers (`{ft.spelling}`)" if depth > 1 else ""))
    elif ft.kind == T.CONSTANTARRAY:
        elem, n = ft.element_type.get_canonical(), ft.element_count
        if elem.kind not in (T.RECORD, T.POINTER, T.CONSTANTARRAY) or _spelling(elem) in _KEPT_WHOLE:
            out.append(Field(name, at, _spelling(elem), 0, max(elem.get_size(), 0), max(elem.get_align(), 1), n))
        elif n > MAX_UNROLLED:
            out.append(Field(name, at, _spelling(elem), 0, 0, 1,
                             unsupported=f"an array of {n} pointers or structs (at most {MAX_UNROLLED} are laid out)"))
        else:
            for i in range(n):
                _field(elem, at + i * max(elem.get_size(), 0), f"{name}[{i}]", out)
    elif ft.kind == T.RECORD and _spelling(ft) not in _KEPT_WHOLE:
        if _is_union(ft):
            out.append(Field(name, at, _spelling(ft), 0, size, align, unsupported="a union"))
        else:
            _lay_out(ft, at, anonymous_prefix if anonymous_prefix is not None else name + ".", out)
    elif ft.kind in (T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY):
        out.append(Field(name, at, _spelling(ft), 0, 0, 1, unsupported="an array of unknown size"))
    else:
        out.append(Field(name, at, _spelling(ft), 0, size, align))
