"""Bad input never crashes the run: each gets a clear message and the rest goes on."""

from __future__ import annotations

from workflow_helpers import BUGGY, run, work  # noqa: F401


def _with_bug(work, name, data):
    (work / "bug.cu").write_text(BUGGY)
    p = work / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data)


def test_binary_file(work, capsys):
    _with_bug(work, "blob.cu", b"\x7fELF\0\0\0\x01\x02")
    code, out, err = run(capsys, "-q", "blob.cu", "bug.cu")
    assert code == 2
    assert "blob.cu: error: binary file (contains NUL bytes); skipped" in err
    assert "bug.cu:2:14: CUDA101" in out


def test_non_utf8_file_is_analysed_with_a_warning(work, capsys):
    latin1 = BUGGY.replace("__global__", "// caf\xe9\n__global__").encode("latin-1")
    (work / "latin.cu").write_bytes(latin1)
    code, out, err = run(capsys, "-q", "latin.cu")
    assert "latin.cu:1:0: warning: not valid UTF-8 (byte 0xe9 at line 1); analysed with replacement characters" in err
    assert code == 1
    assert "latin.cu:3:14: CUDA101" in out  # the comment moved the kernel down one line


def test_empty_file(work, capsys):
    (work / "empty.cu").write_text("")
    code, out, err = run(capsys, "empty.cu")
    assert (code, out, err) == (0, "No findings in 1 file.\n", "")


def test_directory_without_cuda_files(work, capsys):
    (work / "src").mkdir()
    (work / "src" / "main.cpp").write_text("int main() {}\n")
    code, out, err = run(capsys, "src")
    assert code == 0
    assert "cudalint: src: no CUDA files (.cu, .cuh) found" in err
    assert out == "No findings in 0 files.\n"


def test_missing_include_is_reported_and_analysis_goes_on(work, capsys):
    (work / "inc.cu").write_text('#include "project_config.h"\n#include <cub/not_a_header.cuh>\n' + BUGGY)
    code, out, err = run(capsys, "inc.cu")
    assert "inc.cu:1:10: error: 'project_config.h' file not found" in err
    assert "inc.cu:2:10: error: 'cub/not_a_header.cuh' file not found" in err  # KeepGoing: both reported
    assert code == 2  # findings, but the file was not fully checked
    assert "inc.cu:4:14: CUDA101" in out
    assert out.endswith("1 file not fully checked (1 with parse errors); their findings may be incomplete. "
                        "Headers were not found: pass -I DIR, or -p BUILD_DIR for compile_commands.json.\n")


def test_syntax_error_is_reported_and_other_kernels_are_checked(work, capsys):
    (work / "syn.cu").write_text("__global__ void broken(int* p) { p[0] = ; }\n" + BUGGY)
    code, out, err = run(capsys, "syn.cu")
    assert "syn.cu:1:41: error: expected expression" in err
    assert code == 2
    assert "syn.cu:3:14: CUDA101" in out


def test_a_file_cut_short_keeps_its_error_and_the_parse_its_end_mark_to_itself(work, capsys):
    """The #error cudalint puts after a file's last line (cudalint.frontend.parse.END_MARK) is
    never reported; an error at the end of the file's own text still is."""
    (work / "cut.cu").write_text(BUGGY + "__global__ void cut(int* p) {\n  p[0] = 1;")  # no newline, no brace
    (work / "whole.cu").write_text(BUGGY.rstrip("\n"))  # no newline at its end
    (work / "continued.cu").write_text(BUGGY + "#define LAST 1 \\\n")  # a #define continued past the end
    code, out, err = run(capsys, "cut.cu", "whole.cu", "continued.cu")
    assert "cudalint: end of file" not in out + err
    assert [line for line in err.splitlines() if ": error: " in line] == \
        [f"cut.cu:{BUGGY.count(chr(10)) + 2}:12: error: expected '}}'"]
    assert code == 2
    assert all(f"{name}.cu:2:14: CUDA101" in out for name in ("cut", "whole", "continued"))


def test_huge_file_is_skipped(work, capsys):
    (work / "huge.cu").write_text("// x\n" * (2 * 1024 * 1024))
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "-q", "huge.cu", "bug.cu")
    assert "huge.cu: error: file is 10485760 bytes, over the 8388608-byte limit; skipped" in err
    assert code == 2


def test_file_nested_deeper_than_libclang_parses_is_skipped(work, capsys):
    # libclang's parser overflows its stack at about 2000 nested brackets (a dead worker)
    (work / "deep.cu").write_text("__global__ void k(int* p) { p[0] = " + "(" * 3000 + "1" + ")" * 3000 + "; }\n")
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "-q", "deep.cu", "bug.cu")
    assert "deep.cu: error: brackets nest 3001 deep, more than the 1000 libclang can parse without crashing; skipped" in err
    assert "bug.cu:2:14: CUDA101" in out  # the rest of the run goes on
    assert code == 2


def test_nonexistent_path_is_reported_and_others_still_checked(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "-q", "nope.cu", "bug.cu")
    assert code == 2
    assert "cudalint: nope.cu: no such file or directory" in err
    assert "bug.cu:2:14: CUDA101" in out


def test_unknown_select_code(work, capsys):
    code, out, err = run(capsys, "--select", "CUDA999", ".")
    assert code == 2
    assert "unknown rule code or prefix: 'CUDA999'" in err


def test_directory_with_gitignore(work, capsys):
    (work / "src").mkdir()
    (work / "src" / "bug.cu").write_text(BUGGY)
    (work / "src" / "gen").mkdir()
    (work / "src" / "gen" / "bug.cu").write_text(BUGGY)
    (work / "src" / ".gitignore").write_text("gen/\n")
    code, out, err = run(capsys, "-q", "src")
    assert code == 1
    assert out.count("CUDA101") == 1 and "src/bug.cu:2:14" in out
