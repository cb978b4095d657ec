"""Which precompiled prelude a file gets (cudalint.frontend.prelude): none where a macro the file
defines could change the prelude's headers, the one with CUB and Thrust where it reaches them."""

from __future__ import annotations

import json
import os

from cudalint.frontend import prelude


def test_a_define_before_an_include_keeps_the_prelude_out():
    assert not prelude.usable_for("#define _USE_MATH_DEFINES\n#include <cmath>\n")
    assert prelude.usable_for("#include <cmath>\n#define TILE 16\n__global__ void k() {}\n")


def test_an_include_guard_is_no_such_define():
    assert prelude.usable_for("#ifndef UTIL_H\n#define UTIL_H\n\n#include <vector>\n#endif\n")
    assert prelude.usable_for("#if !defined(UTIL_H)\n#define UTIL_H\n#include <vector>\n#endif\n")
    # a guard that defines something else, or a value, is a define like any other
    assert not prelude.usable_for("#ifndef UTIL_H\n#define OTHER\n#include <vector>\n#endif\n")
    assert not prelude.usable_for("#ifndef N\n#define N 4\n#include <vector>\n#endif\n")


def test_cub_or_thrust_reached_through_the_files_own_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "common.h").write_text("#pragma once\n#include <thrust/device_vector.h>\n")
    (tmp_path / "utils.h").write_text('#ifndef UTILS_H\n#define UTILS_H\n#include "common.h"\n#endif\n')
    main = tmp_path / "main.cu"
    main.write_text('#include <cstdio>\n#include "utils.h"\n__global__ void k() {}\n')
    assert prelude.reaches_cccl(str(main), main.read_text(), (str(tmp_path / "inc"),))
    assert not prelude.reaches_cccl(str(main), main.read_text(), ())  # common.h not found
    assert prelude.reaches_cccl(str(main), "#include <cub/cub.cuh>\n", ())
    assert prelude.reaches_cccl(str(main), "#include <cuda/atomic>\n", ())  # libcu++
    assert not prelude.reaches_cccl(str(main), "#include <cuda_runtime.h>\n#include <cuda.h>\n", ())


def test_a_header_that_configures_thrust_first_is_parsed_as_it_is(tmp_path):
    (tmp_path / "cfg.h").write_text("#define THRUST_DEVICE_SYSTEM 3\n#include <thrust/sort.h>\n")
    main = tmp_path / "main.cu"
    main.write_text('#include "cfg.h"\n')
    assert not prelude.reaches_cccl(str(main), main.read_text(), ())


def test_the_plain_prelude_where_the_one_with_cub_cannot_be_built_or_holds_a_macro_of_the_file(monkeypatch):
    built = {prelude.PRELUDE: "/cache/plain.pch", prelude.CCCL_PRELUDE: None}
    names = {"/cache/plain.pch": frozenset({"size_t"}), "/cache/cccl.pch": frozenset({"size_t", "CUB_STDERR"})}
    monkeypatch.setattr(prelude, "_pch_for", lambda args, text=prelude.PRELUDE, kind="prelude": built.get(text))
    monkeypatch.setattr(prelude, "names_of", names.get)
    cub, plain = "#include <cub/cub.cuh>\n", "#include <cstdio>\n"
    assert prelude.pch_args_for("k.cu", cub, ["-x", "cuda"], ()) == ["-include-pch", "/cache/plain.pch"]
    built[prelude.CCCL_PRELUDE] = "/cache/cccl.pch"
    assert prelude.pch_args_for("k.cu", cub, ["-x", "cuda"], ()) == ["-include-pch", "/cache/cccl.pch"]
    assert prelude.pch_args_for("k.cu", plain, ["-x", "cuda"], ()) == ["-include-pch", "/cache/plain.pch"]
    # rle: CUB names CUB_STDERR, the plain prelude does not; no variant could be built
    assert prelude.pch_args_for("k.cu", "#define CUB_STDERR\n" + cub, ["-x", "cuda"], ()) == \
        ["-include-pch", "/cache/plain.pch"]
    # ... and with one: the prelude with CUB, CUB_STDERR defined first
    built["#define CUB_STDERR\n" + prelude.CCCL_PRELUDE] = "/cache/variant.pch"
    assert prelude.pch_args_for("k.cu", "#define CUB_STDERR\n" + cub, ["-x", "cuda"], ()) == \
        ["-include-pch", "/cache/variant.pch"]


def test_a_file_that_starts_by_configuring_a_header_gets_a_prelude_with_its_macros():
    names = frozenset({"CUB_STDERR", "NDEBUG", "N", "size_t"})
    start = "/* licence\n   text */\n// print errors\n#define CUB_STDERR\n#define TILE 16\n"
    assert prelude.leading_macros(start + "#include <cub/cub.cuh>\n#define N 4\n", names) == "#define CUB_STDERR\n"
    assert prelude.leading_macros("#undef NDEBUG\n#define CUB_STDERR 1 // on\n#include <cstdio>\n", names) == \
        "#undef NDEBUG\n#define CUB_STDERR 1\n"
    assert prelude.leading_macros('#define CUB_STDERR "http://x" /* on */\n#include <cstdio>\n', names) == \
        '#define CUB_STDERR "http://x"\n'  # a // in a literal is no comment
    assert prelude.leading_macros("#define TILE 16\n#include <cstdio>\n", names) is None  # nothing to configure
    assert prelude.leading_macros("#define NDEBUG\n", names) is None  # no include
    assert prelude.leading_macros("#define NDEBUG\n#include <cassert>\n", None) is None  # names unknown
    # what the start holds beside macros, or a later define before an include: parsed as it is
    assert prelude.leading_macros("#define NDEBUG\nint x;\n#include <cassert>\n", names) is None
    assert prelude.leading_macros("#ifdef DBG\n#define NDEBUG\n#endif\n#include <cassert>\n", names) is None
    assert prelude.leading_macros("#define N \\\n 4\n#include <vector>\n", names) is None
    assert prelude.leading_macros("#define NDEBUG\n#include <cassert>\n#define N 4\n#include <vector>\n", names) is None
    # a kept macro whose value is another of the file's macros, which the variant would not have
    assert prelude.leading_macros("#define TILE 16\n#define N TILE\n#include <vector>\n", names) is None


def test_a_variant_prelude_holds_the_files_leading_macros(tmp_path, monkeypatch):
    from cudalint.frontend.clang import CursorKind
    from cudalint.frontend.parse import parse
    from cudalint.settings import Settings
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    prelude._pch_for.cache_clear()
    main = tmp_path / "main.cu"
    main.write_text("#define NDEBUG\n#include <cassert>\nint f(int x) { assert(x > 0); return x; }\n")
    tu = parse(str(main), Settings(cuda_mode="shim")).tu
    assert len(list((tmp_path / "cache" / "pch").glob("variant-*.pch"))) == 1
    calls = [c.spelling for c in tu.cursor.walk_preorder() if c.kind == CursorKind.CALL_EXPR]
    assert calls == []  # NDEBUG took effect: assert() is no call
    main.write_text("#include <cassert>\nint f(int x) { assert(x > 0); return x; }\n")
    tu = parse(str(main), Settings(cuda_mode="shim")).tu
    assert [c.spelling for c in tu.cursor.walk_preorder() if c.kind == CursorKind.CALL_EXPR] == ["__assert_fail"]
    prelude._pch_for.cache_clear()


def test_variant_preludes_stop_at_a_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(prelude, "MAX_VARIANTS", 2)
    prelude._pch_for.cache_clear()
    folder = prelude.cache_dir()
    folder.mkdir(parents=True)
    for n in range(2):
        (folder / f"variant-{n}.pch").write_bytes(b"")
    assert prelude._pch_for(("-x", "cuda"), "#define A\n", prelude.VARIANT) is None
    assert not list(folder.glob("*.json"))  # nothing built
    prelude._pch_for.cache_clear()


def test_a_macro_the_preludes_headers_never_name_keeps_the_prelude():
    """A macro changes only the text that names it: defined before an include, it keeps the
    prelude out only if the prelude's headers hold its name."""
    names = frozenset({"size_t", "M_PI", "N", "vector"})
    assert prelude.usable_for('#define TILE 16\n#define nx 680\n#include <vector>\n#include "kernel.h"\n', names)
    assert not prelude.usable_for("#define N 4\n#include <vector>\n", names)
    assert not prelude.usable_for("#undef M_PI\n#include <cmath>\n", names)
    assert not prelude.usable_for("#define TILE 16\n#define N 4\n#include <vector>\n", names)
    assert not prelude.usable_for("#define TILE 16\n#include <vector>\n")  # names unknown: any macro


def test_a_preludes_names_are_its_headers_identifiers_read_once(tmp_path):
    (tmp_path / "a.h").write_text("#ifndef A_H\nstruct vec { int size_; };\n// M_PI in a comment\n#endif\n")
    (tmp_path / "b.h").write_text("#if defined(_GNU_SOURCE)\nint f2(int x);\n#endif\n")
    pch = tmp_path / "prelude-k.pch"
    pch.with_suffix(".json").write_text(json.dumps([[str(tmp_path / "a.h"), 0, 0], [str(tmp_path / "b.h"), 0, 0]]))
    prelude.names_of.cache_clear()
    names = prelude.names_of(str(pch))
    assert names == {"ifndef", "A_H", "struct", "vec", "int", "size_", "M_PI", "in", "a", "comment", "endif", "if",
                     "defined", "_GNU_SOURCE", "f2", "x"}
    assert set(pch.with_suffix(".names").read_text().split()) == names  # kept beside the PCH
    prelude.names_of.cache_clear()
    (tmp_path / "a.h").unlink()
    assert prelude.names_of(str(pch)) == names  # from the kept list, not the headers
    prelude.names_of.cache_clear()
    assert prelude.names_of(str(tmp_path / "none.pch")) is None  # no sidecar: unknown


def _called_body_kinds(tmp_path, text: str, callee: str, **settings) -> list:
    """The kinds of the children of `callee`'s declaration, as a file calling it sees it when
    parsed with its prelude (a fresh cache)."""
    from cudalint.frontend.clang import CursorKind
    from cudalint.frontend.parse import parse
    from cudalint.settings import Settings
    main = tmp_path / "main.cu"
    main.write_text(text)
    parsed = parse(str(main), Settings(cuda_mode="shim", **settings))
    calls = [c for c in parsed.tu.cursor.walk_preorder() if c.kind == CursorKind.CALL_EXPR and c.spelling == callee]
    return [k.kind for k in calls[0].referenced.get_children()]


def test_the_prelude_holds_declarations_and_a_projects_own_copy_of_a_header_its_bodies(tmp_path, monkeypatch):
    from cudalint.frontend.clang import CursorKind
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    prelude._pch_for.cache_clear()
    # the C++ library's headers: called, never walked
    kinds = _called_body_kinds(tmp_path, "#include <vector>\nvoid add(std::vector<int>& v) { v.push_back(1); }\n",
                               "push_back")
    assert CursorKind.PARM_DECL in kinds and CursorKind.COMPOUND_STMT not in kinds
    # the project's own cuda_fp16.h, found through -I before the toolkit's: its code
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "cuda_fp16.h").write_text(
        "#pragma once\ninline int half_add(int a, int b) { return a + b; }\n")
    kinds = _called_body_kinds(tmp_path, "#include <cuda_fp16.h>\nint twice(int a) { return half_add(a, a); }\n",
                               "half_add", include_dirs=(str(tmp_path / "third_party"),))
    assert CursorKind.COMPOUND_STMT in kinds
    prelude._pch_for.cache_clear()


def test_headers_resolve_as_realpath_does_through_linked_directories_files_and_dotdot(tmp_path):
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "a.h").write_text("")
    (tmp_path / "real" / "sub" / "b.h").write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "alias.h").symlink_to(tmp_path / "real" / "sub" / "b.h")
    paths = [str(tmp_path / p) for p in ("linked/a.h", "linked/sub/../a.h", "linked/sub/b.h", "real/alias.h",
                                         "linked/alias.h", "linked/sub/..", "missing/x.h")] + ["rel.h", ""]
    assert prelude.resolved(paths) == tuple(os.path.realpath(p) for p in paths)
    assert prelude.resolved(paths)[:2] == (str(tmp_path / "real" / "a.h"),) * 2


def test_a_workers_prepare_then_parse_choose_the_prelude_once(tmp_path, monkeypatch):
    from cudalint.frontend import parse as parsing
    from cudalint.settings import Settings
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* p) { p[threadIdx.x] = 0; }\n")
    asked = []
    real = prelude.pch_args_for
    monkeypatch.setattr(prelude, "pch_args_for", lambda *a: asked.append(a[0]) or real(*a))
    settings = Settings(cuda_mode="shim")
    parsing.prepare(str(src), settings)
    assert parsing.parse(str(src), settings).tu is not None
    assert asked == [str(src)]
    src.write_text("__global__ void k(float* p) { p[0] = 1; }\n")  # changed: chosen again
    parsing.parse(str(src), settings)
    assert asked == [str(src)] * 2
