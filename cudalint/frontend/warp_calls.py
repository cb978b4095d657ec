"""Recognising warp-synchronous intrinsics in the device walk: the `*_sync` shuffles and votes,
their cooperative-groups tile forms, `cg::reduce` on a tile, and the legacy forms without a mask.
`KernelBuilder.call()` asks `warp_call()` first; a recognised call becomes a `WarpSync` event."""

from __future__ import annotations

import re

from cudalint.frontend.clang import CursorKind as K
from cudalint.model import THREAD, Const, WarpSync

# intrinsic -> (family, position of the lane/delta argument, position of width)
_SYNC = {
    "__shfl_sync": ("shfl", 2, 3), "__shfl_up_sync": ("shfl_up", 2, 3),
    "__shfl_down_sync": ("shfl_down", 2, 3), "__shfl_xor_sync": ("shfl_xor", 2, 3),
    "__ballot_sync": ("vote", None, None), "__any_sync": ("vote", None, None),
    "__all_sync": ("vote", None, None), "__uni_sync": ("vote", None, None),
    "__match_any_sync": ("match", None, None), "__match_all_sync": ("match", None, None),
    "__reduce_add_sync": ("reduce", None, None), "__reduce_min_sync": ("reduce", None, None),
    "__reduce_max_sync": ("reduce", None, None), "__reduce_and_sync": ("reduce", None, None),
    "__reduce_or_sync": ("reduce", None, None), "__reduce_xor_sync": ("reduce", None, None),
}
# legacy forms (no mask): the lane argument sits one place earlier
_LEGACY = {"__shfl": ("shfl", 1, 2), "__shfl_up": ("shfl_up", 1, 2), "__shfl_down": ("shfl_down", 1, 2),
           "__shfl_xor": ("shfl_xor", 1, 2), "__ballot": ("vote", None, None),
           "__any": ("vote", None, None), "__all": ("vote", None, None)}
# members of thread_block_tile<N>: (family, position of the lane argument)
_TILE = {"shfl": ("shfl", 1), "shfl_up": ("shfl_up", 1), "shfl_down": ("shfl_down", 1),
         "shfl_xor": ("shfl_xor", 1), "ballot": ("vote", None), "any": ("vote", None),
         "all": ("vote", None), "match_any": ("match", None), "match_all": ("match", None)}
_TILE_SIZE = re.compile(r"thread_block_tile(?:_base)?<\s*(\d+)")  # toolkit: the member sits on a base class


def warp_call(builder, c, name: str, kids: list, args: list, env):
    """The value of call `c` when it is a warp-synchronous intrinsic (its WarpSync recorded on
    `builder`), else None."""
    if (name in _SYNC or name in _LEGACY) and not _user_defined(c):
        family, lane_at, width_at = _SYNC.get(name) or _LEGACY[name]
        vals = [builder.expr(a, env) if _written(a) else None for a in args]
        mask = None if name in _LEGACY else _value(vals, 0)
        return _record(builder, c, name, family, mask, _value(vals, lane_at),
                       _value(vals, width_at) or Const(32), None, name in _LEGACY)
    if name in _TILE and kids and kids[0].kind == K.MEMBER_REF_EXPR:
        obj = list(kids[0].get_children())
        tile = _tile_size(obj[0].type.spelling) if obj else None
        if tile is None:
            return None
        family, lane_at = _TILE[name]
        vals = [builder.expr(a, env) for a in args]
        return _record(builder, c, name, family, None, _value(vals, lane_at), Const(tile), tile, False)
    if name == "reduce" and args and _tile_size(args[0].type.spelling) is not None:
        for a in args[1:]:
            builder.expr(a, env)
        return _record(builder, c, name, "reduce", None, None, None, _tile_size(args[0].type.spelling), False)
    return None


def _user_defined(c) -> bool:
    """A function of the user's own with an intrinsic's name (a `__shfl_down(float4, ...)` overload
    built on `__shfl_down_sync`): the walk inlines it like any helper."""
    ref = c.referenced
    body = ref.get_definition() if ref is not None else None
    return body is not None and not body.location.is_in_system_header


def _record(builder, c, name, family, mask, lane, width, tile, legacy):
    builder.events.append(WarpSync(
        name=name, family=family, mask=mask, lane=lane, shfl_width=width, tile=tile, legacy=legacy,
        loc=builder.loc(c), guard=tuple(builder.guard), loops=tuple(builder.loop_stack),
        text=builder.text_of(c), exits=tuple(builder.exits), via=builder.via))
    return builder.fresh(name, THREAD, c)


def _written(a) -> bool:
    """Not a default argument (those have no position in the file)."""
    return a.extent.start.file is not None


def _value(vals, at):
    """An argument's value when it is an integer expression (not a pointer, not absent)."""
    if at is None or at >= len(vals):
        return None
    v = vals[at]
    return v if hasattr(v, "scope") else None


def _tile_size(type_spelling: str) -> int | None:
    m = _TILE_SIZE.search(type_spelling)
    return int(m.group(1)) if m and 0 < int(m.group(1)) <= 32 else None
