"""NumPy dtypes of the C types kernels take, and the values ``--confirm`` gives scalars of them."""

from __future__ import annotations

from .launch_shape import LaunchShape

# numpy dtype of an element type (its libclang spelling, cudalint.model.Param.element)
_SCALAR_DTYPES = {
    "bool": "?", "char": "i1", "signed char": "i1", "unsigned char": "u1", "short": "i2",
    "unsigned short": "u2", "int": "i4", "unsigned int": "u4", "long": "i8", "unsigned long": "u8",
    "long long": "i8", "unsigned long long": "u8", "float": "f4", "double": "f8", "__half": "f2",
    "__nv_bfloat16": "bf16",
}
# CUDA's vector types: float4 is four f4 lanes
_VECTOR_DTYPES = {"char": "i1", "uchar": "u1", "short": "i2", "ushort": "u2", "int": "i4", "uint": "u4",
                  "long": "i8", "ulong": "u8", "longlong": "i8", "ulonglong": "u8", "float": "f4",
                  "double": "f8"}
_PAIRS = {"__half2": "f2", "__nv_bfloat162": "bf16"}
FLOATS = ("f4", "f8", "f2", "bf16")


def lanes(param) -> tuple[str | None, int]:
    """(numpy dtype of one scalar lane, lanes per element) of a parameter's (or a struct field's)
    element type; dtype None: a struct the runner cannot synthesise. `void *` buffers hold floats."""
    e = param.element
    if e in _SCALAR_DTYPES:
        return _SCALAR_DTYPES[e], 1
    if e in _PAIRS:
        return _PAIRS[e], 2
    if e[-1:] in "1234" and e[:-1] in _VECTOR_DTYPES:
        return _VECTOR_DTYPES[e[:-1]], int(e[-1])
    if e == "void" and param.pointer:
        return "f4", 1
    return None, 1


def default_scalar(dtype: str, geom: LaunchShape):
    """(value, why) of a scalar nothing pins: values that make typical guards true."""
    if dtype in FLOATS:
        return 1.5, "default"
    if dtype == "?":
        return 1, "default"
    n = max(1, geom.threads) * 4
    if dtype in ("i1", "u1"):
        return 100, "default"
    if dtype in ("i2", "u2"):
        return min(n, 30000), "default"
    return min(n, 1 << 24), "default (4 x threads, so size guards hold)"
