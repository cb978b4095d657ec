"""Structs passed by value under ``--confirm`` (``__global__ void k(const Graph g, ...)``).

The struct goes to the kernel as one argument holding its bytes, laid out as libclang lays it out
(cudalint.model.Field: offsets, the struct's size): scalar fields get values as scalar parameters
do, pointer fields the address of a buffer of their own, named by the field's path (`g.nlist`, as
the model names the memory an access through it reaches), planned and filled like a pointer
parameter's buffer (cudalint.gpu.arguments). A field that cannot be synthesised (a reference, a
bit-field, a union, a pointer to pointers) makes the kernel unsupported, with a reason that names
the field; unions and pointers to pointers can be pinned by a comment (`g.rows=0`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .launch_shape import LaunchShape, c_eval
from .scalars import FLOATS, default_scalar, lanes

_PINNABLE = ("a union", "a pointer to pointers")  # fields a comment can give raw bytes


@dataclass(frozen=True)
class FieldArg:
    """One field of a synthesised struct: a scalar value (repeated `count` times for an array), or
    (`buffer`) the address of the buffer argument of the same name."""
    name: str  # the path from the parameter: "g.nodes", "g.box.lo", "g.rows[1]"
    offset: int  # bytes from the start of the struct
    dtype: str  # numpy dtype of one element; "u8" (the address) for a pointer
    count: int = 1
    value: int | float | None = None
    buffer: bool = False
    source: str = ""  # why this value

    def describe(self) -> str:
        return self.name.partition(".")[2] if self.buffer else f"{self.name.partition('.')[2]}={self.value}"


@dataclass(frozen=True)
class StructLayout:
    """A by-value struct's bytes before its buffers are planned: its size, its scalar fields with
    their values, and its pointer fields (FieldArg, cudalint.model.Field) that need buffers."""
    itemsize: int
    scalars: tuple
    pointers: tuple

    def integer_values(self) -> dict:
        """(byte offset, value) of every integer scalar element, for pinning the kernel's loads."""
        return {f.offset + i * int(f.dtype[1:]): int(f.value) for f in self.scalars
                if f.dtype[:1] in "iu" for i in range(f.count)}


def _raw_dtype(size: int) -> str:
    """An unsigned integer as wide as `size` bytes allow (the pinned bytes of a union)."""
    return next(f"u{n}" for n in (8, 4, 2, 1) if n <= max(size, 1))


def struct_layout(p, geom: LaunchShape, ovr: dict) -> StructLayout | str:
    """The layout of by-value struct parameter `p` (cudalint.model.Param with `fields`), or why it
    cannot be synthesised."""
    where = f"parameter `{p.name}` (`{p.type}`)"
    if p.record == "union":
        if p.name in ovr:
            return StructLayout(p.size, (FieldArg(p.name, 0, _raw_dtype(p.size), 1, int(c_eval(ovr[p.name])),
                                                  source="comment"),), ())
        return (f"{where} is a union, which cannot be synthesised (pin its bytes with a "
                f"`// cudalint-confirm: {p.name}=VALUE` comment)")
    scalars, pointers = [], []
    for f in p.fields:
        path = f"{p.name}.{f.name}" if f.name else p.name
        what = f"field `{path}` of {where}" if f.name else f"the member at byte {f.offset} of {where}"
        if f.unsupported and f.unsupported.startswith(_PINNABLE) and f.name:
            if path not in ovr:
                return (f"{what} is {f.unsupported}, which cannot be synthesised (pin it with a "
                        f"`// cudalint-confirm: {path}=VALUE` comment; 0 for a null pointer)")
            dtype = "u8" if f.pointer else _raw_dtype(f.size)
            scalars.append(FieldArg(path, f.offset, dtype, 1, int(c_eval(ovr[path])), source="comment"))
            continue
        if f.unsupported:
            return (f"{what} is {f.unsupported}, which cannot be synthesised (skip the kernel with a "
                    f"`// cudalint-confirm: skip` comment)")
        if f.pointer:
            pointers.append((FieldArg(path, f.offset, "u8", buffer=True), f))
            continue
        dtype, n = lanes(f)
        if dtype is None or n != 1:
            return f"{what} has type `{f.element}`, which cannot be synthesised (skip the kernel with a `// cudalint-confirm: skip` comment)"
        if path in ovr:
            value, why = c_eval(ovr[path]), "comment"
        else:
            value, why = default_scalar(dtype, geom)
        value = float(value) if dtype in FLOATS else int(value)
        scalars.append(FieldArg(path, f.offset, dtype, f.count, value, source=why))
    return StructLayout(p.size, tuple(scalars), tuple(pointers))
