"""Either libclang distribution: `libclang-ng` (the dependency: LLVM 22 with clang's resource
directory) or `libclang` (LLVM 18, what TensorFlow installs: no resource directory, older
bindings). .ci/run runs this file and the fixture markers a second time with `libclang` installed
and CUDALINT_EXPECT_BINDINGS=libclang."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest

from cudalint.frontend import clang as cx
from cudalint.frontend import flags
from cudalint.frontend.parse import parse
from cudalint.settings import Settings


def _installed(name: str) -> bool:
    try:
        importlib.metadata.distribution(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def test_the_expected_bindings_are_loaded():
    expected = os.environ.get("CUDALINT_EXPECT_BINDINGS", "libclang-ng")
    assert _installed(expected)
    headers = cx.resource_headers()
    assert headers == ((True, True) if expected == "libclang-ng" else (False, False))
    if expected == "libclang":
        assert cx.version().startswith("clang version 18")
        assert flags.resolve_mode(Settings()) == ("shim", None)
        assert str(flags.BUILTIN_DIR) in flags.base_args("shim", None)


def test_without_cuda_wrappers_auto_is_shim_and_toolkit_says_why(monkeypatch):
    monkeypatch.setattr(cx, "resource_headers", lambda: (False, False))
    assert flags.resolve_mode(Settings(cuda_mode="auto")) == ("shim", None)
    with pytest.raises(ValueError, match="no CUDA wrapper headers .* install libclang-ng, or use --cuda-mode shim"):
        flags.resolve_mode(Settings(cuda_mode="toolkit"))


LIMITS = """#include <cstddef>
#include <climits>
#include <cfloat>
#include <cstdarg>
#include <cstdio>
#include <stdbool.h>
struct S { char c; double d; };
static_assert(INT_MAX == 2147483647 && LLONG_MIN < 0 && CHAR_BIT == 8 && UINT_MAX == 4294967295U, "limits");
static_assert(FLT_MAX > 1e38f && DBL_EPSILON < 1e-15 && FLT_MANT_DIG == 24, "float");
static_assert(offsetof(S, d) == 8 && sizeof(std::max_align_t) >= 16 && NULL == 0, "stddef");
int sum(int n, ...) { va_list ap; va_start(ap, n); int s = va_arg(ap, int); va_end(ap); return s + n; }
__global__ void k(float* p) { p[threadIdx.x] = FLT_MAX; }
"""


def test_cudalints_own_builtin_headers_stand_in_for_clangs(tmp_path):
    """Given first on the search path, they shadow clang's (here or in the `libclang` run)."""
    src = tmp_path / "limits.cu"
    src.write_text(LIMITS)
    parsed = parse(str(src), Settings(cuda_mode="shim", extra_args=("-isystem", str(flags.BUILTIN_DIR)), pch=False))
    assert [d.message for d in parsed.diagnostics if d.severity == "error"] == []
    assert any(h.endswith("builtin/limits.h") for h in parsed.headers)


def test_cursor_members_run_without_the_null_guard_and_a_null_cursors_kind_still_raises():
    import clang.cindex as ci
    guarded = [name for name, member in vars(ci.Cursor).items()
               if getattr(member.fget if isinstance(member, property) else member, "__qualname__", "")
               .startswith("cursor_null_guard.")]
    assert guarded == []
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "races" / "after_loop.cu"
    tu = parse(str(fixture), Settings(cuda_mode="shim")).tu
    assert tu.cursor.spelling.endswith("after_loop.cu")
    with pytest.raises(Exception, match="null-cursor"):
        ci.conf.lib.clang_getNullCursor().kind  # noqa: B018


TREE = """
int twice(int x) { return 2 * x; }
struct Box { int v; int get() const { return v; } };
__global__ void k(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    auto add = [=](int y) { return y + i; };
    for (int j = 0; j < 3; ++j)
        if (i < n) p[i] = twice(i) + add(j) + Box{j}.get();
}
"""


def test_a_functions_tree_read_in_one_visit_is_the_one_read_a_level_at_a_time(tmp_path):
    """While children are remembered, a function's tree is read with one visit of libclang's
    (lambda captures included, which that visit cannot place: their function is read a level at
    a time); outside, a cursor at a time. The same tree either way, in either distribution."""
    src = tmp_path / "tree.cu"
    src.write_text(TREE)
    tu = parse(str(src), Settings(cuda_mode="shim", pch=False)).tu
    fns = [c for c in tu.cursor.get_children() if c.location.file and c.location.file.name == str(src)]

    def shape(c):
        return (c.kind, c.extent.start.offset, c.extent.end.offset, tuple(shape(k) for k in c.get_children()))
    plain = [shape(fn) for fn in fns]
    with cx.remembered_children():
        assert [shape(fn) for fn in fns] == plain
    assert len(plain) == 3 and sum(1 for _ in _nodes(plain)) > 60


def _nodes(tree):
    for kind, _, _, kids in tree:
        yield kind
        yield from _nodes(kids)
