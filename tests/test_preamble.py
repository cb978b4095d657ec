"""A host file that includes a big header-only library is parsed without the library's function
bodies (cudalint.frontend.preamble), and reports what the full parse reports."""

from __future__ import annotations

from cudalint.engine import analyze_file
from cudalint.frontend import preamble
from cudalint.frontend.clang import CursorKind
from cudalint.frontend.parse import parse
from cudalint.settings import Settings

# A header-only library: a few hundred kilobytes of host code, no device code.
LIBRARY = "#pragma once\n#include <vector>\nnamespace lib {\n" + "".join(
    f"inline int helper{i}(const std::vector<int>& v) {{ int s = 0; for (int x : v) s += x * {i}; return s; }}\n"
    for i in range(3000)) + "}\n"

HOST = """\
#include <cstdio>
#include "lib.h"
#include <cuda_runtime.h>

int leaky(int n) {
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  std::vector<int> v(n);
  return lib::helper7(v);
}
"""


def _project(tmp_path, main_text: str, library: str = LIBRARY):
    (tmp_path / "lib.h").write_text(library)
    main = tmp_path / "main.cu"
    main.write_text(main_text)
    return main


def test_only_a_file_without_device_code_whose_leading_headers_are_big(tmp_path):
    main = _project(tmp_path, HOST)
    assert len(LIBRARY) >= preamble.BIG_HEADERS
    assert preamble.bodies_skippable(str(main), HOST, ())
    # device code of its own: a kernel may call a function of the headers
    assert not preamble.bodies_skippable(str(main), HOST + "__global__ void k() {}\n", ())
    # small headers: building the preamble costs what it saves
    (tmp_path / "small").mkdir()
    small = _project(tmp_path / "small", HOST, "#pragma once\n")
    assert not preamble.bodies_skippable(str(small), HOST, ())
    # the big header included after the first line of code is not in the preamble
    late = 'int before = 1;\n#include "lib.h"\n'
    assert not preamble.bodies_skippable(str(_project(tmp_path, late)), late, ())


def test_a_big_header_is_found_through_the_files_own_headers_and_include_dirs(tmp_path):
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "big.hpp").write_text(LIBRARY)
    (tmp_path / "common.h").write_text("#pragma once\n#include <big.hpp>\n")
    text = '// a comment first\n#include "common.h"\n#define N 4\nint main() { return N; }\n'
    main = _project(tmp_path, text, "")
    assert preamble.bodies_skippable(str(main), text, (str(tmp_path / "third_party"),))
    assert not preamble.bodies_skippable(str(main), text, ())  # big.hpp not found: a system header


def test_the_headers_bodies_are_skipped_and_the_files_own_kept(tmp_path, monkeypatch):
    main = _project(tmp_path, HOST)
    tu = parse(str(main), Settings(cuda_mode="shim")).tu
    leaky = next(c for c in tu.cursor.get_children() if c.spelling == "leaky")
    call = next(c for c in leaky.walk_preorder() if c.kind == CursorKind.CALL_EXPR and c.spelling == "helper7")
    assert CursorKind.COMPOUND_STMT in [k.kind for k in leaky.get_children()]
    assert [k.kind for k in call.referenced.get_children()] == [CursorKind.PARM_DECL]
    monkeypatch.setattr(preamble, "bodies_skippable", lambda *a: False)  # the full parse: its body
    tu = parse(str(main), Settings(cuda_mode="shim")).tu
    leaky = next(c for c in tu.cursor.get_children() if c.spelling == "leaky")
    call = next(c for c in leaky.walk_preorder() if c.kind == CursorKind.CALL_EXPR and c.spelling == "helper7")
    assert [k.kind for k in call.referenced.get_children()] == [CursorKind.PARM_DECL, CursorKind.COMPOUND_STMT]


def test_findings_and_the_headers_read_are_those_of_the_full_parse(tmp_path, monkeypatch):
    main = _project(tmp_path, HOST)
    settings = Settings(cuda_mode="shim")
    skipped = analyze_file(str(main), settings)
    monkeypatch.setattr(preamble, "bodies_skippable", lambda *a: False)
    full = analyze_file(str(main), settings)
    assert [(f.rule, f.line) for f in full.findings] == [("CUDA401", 9)]
    assert skipped.findings == full.findings and skipped.diagnostics == full.diagnostics == []
    assert str(tmp_path / "lib.h") in skipped.includes  # the result cache's dependencies


def test_a_file_with_errors_is_parsed_again_in_full_for_its_diagnostics(tmp_path, monkeypatch):
    text = HOST.replace('#include "lib.h"\n', '#include "lib.h"\n#include "missing.h"\n')
    main = _project(tmp_path, text)
    settings = Settings(cuda_mode="shim")
    opts = []
    from cudalint.frontend import parse as parsing
    real = parsing._first_parse
    monkeypatch.setattr(parsing, "_first_parse", lambda *a: opts.append(a[3]) or real(*a))
    skipped = analyze_file(str(main), settings)
    assert [o & preamble.SKIP_PREAMBLE_BODIES for o in opts] == [preamble.SKIP_PREAMBLE_BODIES, 0]
    monkeypatch.setattr(preamble, "bodies_skippable", lambda *a: False)
    full = analyze_file(str(main), settings)
    assert [d.message for d in skipped.diagnostics] == [d.message for d in full.diagnostics]
    assert any("missing.h" in d.message for d in full.diagnostics)
