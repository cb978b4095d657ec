"""Kernel parameters typed from libclang: what a caller must pass for each (cudalint.model.Param)."""

from __future__ import annotations

from cudalint.frontend.clang import TypeKind as T
from cudalint.frontend.values import _parameters
from cudalint.model import Param

_POINTING = (T.POINTER, T.CONSTANTARRAY, T.INCOMPLETEARRAY)
_QUALIFIERS = ("const", "volatile", "restrict", "__restrict")


def signature(fn) -> tuple:
    """Param per parameter of the function (of the instantiation, for a template's)."""
    return tuple(_param(p) for p in _parameters(fn))


def _param(p) -> Param:
    t, depth = p.type.get_canonical(), 0
    while t.kind in _POINTING:
        t = (t.get_pointee() if t.kind == T.POINTER else t.element_type).get_canonical()
        depth += 1
    element = " ".join(w for w in t.spelling.split() if w not in _QUALIFIERS)
    size, align = t.get_size(), t.get_align()
    return Param(p.spelling, p.type.spelling, element, depth, max(size, 0), max(align, 1),
                 t.is_const_qualified())
