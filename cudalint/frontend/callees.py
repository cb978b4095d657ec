"""Calls the kernel walk does not inline: barriers, cooperative-group extents, callee scopes, MTGP32 words."""

from __future__ import annotations

import re
from dataclasses import replace

from cudalint.frontend.clang import CursorKind as K
from cudalint.frontend.values import Ptr, _builtin, _linear, _strip, add, mul
from cudalint.model import BLOCK, THREAD, UNIFORM, Const, Op

_BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
                   "__barrier_sync"}
_GROUP_SYNCS = {"sync", "synchronize", "barrier_wait"}


_PER_THREAD_NAMES = {"threadIdx", "thread_rank", "laneid", "lane_id", "__lane_id", "__activemask", "clock",
                     "clock64", "curand", "curand_uniform", "atomicAdd", "atomicInc", "atomicSub", "atomicExch",
                     "atomicCAS", "atomicMin", "atomicMax"}


def _mtgp32_word(state: Ptr) -> Ptr:
    """An MTGP32 state is one block's: each of up to 256 threads of that block advances its own
    word of it (cuRAND's contract), so two threads meet on one word when a block has more than
    256 threads or two blocks share the state."""
    lane = Op.make("%", _linear("threadIdx", "blockDim"), Const(256))
    return replace(state, offset=add(state.offset, mul(lane, Const(4))))


def _callee_scope(ref, seen: dict, depth: int = 0) -> int:
    """How widely the result of a call that is not inlined can differ, from what its body reads
    (`seen`: a cache by USR): a method returning `grid.thread_rank()` differs by thread although
    its object does not."""
    if ref is None or depth > 2:
        return UNIFORM
    usr = ref.get_usr()
    if usr in seen:
        return seen[usr]
    seen[usr] = UNIFORM  # recursion
    definition = ref.get_definition() or ref
    body = next((ch for ch in definition.get_children() if ch.kind == K.COMPOUND_STMT), None)
    scope = UNIFORM
    if body is not None:
        tokens = {t.spelling for t in body.get_tokens()}
        scope = THREAD if _PER_THREAD_NAMES & tokens else BLOCK if "blockIdx" in tokens else UNIFORM
        for call in body.walk_preorder():
            if scope == THREAD:
                break
            if call.kind == K.CALL_EXPR and call.referenced is not None:
                scope = max(scope, _callee_scope(call.referenced, seen, depth + 1))
    seen[usr] = scope
    return scope


def _callee_barrier(ref) -> str | None:
    """The widest barrier a function not inlined always runs: one at the top level of its body
    (`__syncthreads()`, `grid.sync()`), not under a condition or in a loop."""
    definition = ref.get_definition() if ref is not None else None
    body = next((ch for ch in definition.get_children() if ch.kind == K.COMPOUND_STMT), None) \
        if definition is not None else None
    found = []
    for stmt in body.get_children() if body is not None else ():
        call = _strip(stmt)
        if call.kind != K.CALL_EXPR:
            continue
        kids = list(call.get_children())
        callee = kids[0] if kids else None
        if call.spelling in _BLOCK_BARRIERS:
            found.append("block")
        elif call.spelling in _GROUP_SYNCS and callee is not None and _strip(callee).kind == K.MEMBER_REF_EXPR:
            obj = list(_strip(callee).get_children())
            found.append(_group_barrier(obj[0].type) if obj else None)
    return "grid" if "grid" in found else "block" if "block" in found else None


def _group_extent(t, method: str):
    """thread_rank() / size() of a thread block or the grid, in coordinates; else None."""
    spelling = t.get_canonical().spelling if t is not None else ""
    per_block = mul(mul(_builtin("blockDim", "x"), _builtin("blockDim", "y")), _builtin("blockDim", "z"))
    if "grid_group" in spelling:
        if method == "thread_rank":
            return add(mul(_linear("blockIdx", "gridDim"), per_block), _linear("threadIdx", "blockDim"))
        blocks = mul(mul(_builtin("gridDim", "x"), _builtin("gridDim", "y")), _builtin("gridDim", "z"))
        return mul(blocks, per_block)
    tile = re.search(r"thread_block_tile<\s*(\d+)", spelling)
    if tile:  # tiles of N consecutive threads of the block
        n = Const(int(tile.group(1)))
        rank = _linear("threadIdx", "blockDim")
        return {"thread_rank": Op.make("%", rank, n), "meta_group_rank": Op.make("/", rank, n)}.get(method, n)
    if "thread_block" in spelling:
        return _linear("threadIdx", "blockDim") if method == "thread_rank" else per_block
    return None


def _group_barrier(t) -> str | None:
    """The barrier kind a cooperative group's sync is: a block's orders the block, a grid's the
    whole launch; a tile's (at most a warp) or a coalesced group's, its lanes; a `thread_group` of
    unknown extent ("group") orders what a barrier would for races and is not checked for
    divergence."""
    spelling = t.get_canonical().spelling if t is not None else ""
    if "thread_block_tile" in spelling or "coalesced_group" in spelling or "tiled_partition" in spelling:
        return "warp"
    if "grid_group" in spelling:
        return "grid"
    if "thread_block" in spelling:
        return "block"
    if "thread_group" in spelling:
        return "group"
    return None
