"""Shim and toolkit modes agree on every fixture: the shim is a faithful stand-in."""

from __future__ import annotations

import pytest

from cudalint.engine import analyze_file
from cudalint.frontend.flags import find_toolkit
from cudalint.settings import Settings
from markers import FIXTURE_BUDGET_S, FIXTURES, fixture_files

pytestmark = pytest.mark.skipif(find_toolkit(None) is None, reason="no CUDA toolkit on this machine")


def _key(f):
    return (f.rule, f.line, f.column, f.message)


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_shim_and_toolkit_agree(path):
    shim = analyze_file(str(path), Settings(cuda_mode="shim", file_budget_s=FIXTURE_BUDGET_S))
    toolkit = analyze_file(str(path), Settings(cuda_mode="toolkit", file_budget_s=FIXTURE_BUDGET_S))
    assert not [d for d in toolkit.diagnostics if d.severity == "error"], toolkit.diagnostics
    assert sorted(map(_key, shim.findings)) == sorted(map(_key, toolkit.findings))


def test_thread_ids_behind_macros_are_coordinates_in_toolkit_mode():
    """`#define tidy threadIdx.y`: the toolkit's headers give the member no name, and the text at
    the cursor is the macro's; the macro's definition says the axis."""
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    from cudalint.model import Access, syms
    model = build_model(parse(str(FIXTURES / "races" / "macro_ids.cu"), Settings(cuda_mode="toolkit")))
    names = {s.name for k in model.kernels for e in k.events if isinstance(e, Access) for s in syms(e.offset)}
    assert names == {"threadIdx.x", "threadIdx.y"}
