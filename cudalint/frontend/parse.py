"""Parsing one file with libclang: flags, guards against bad input, diagnostics."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass

import clang.cindex as ci

from cudalint.diagnostics import Diagnostic
from cudalint.frontend import clang as cx, preamble, prelude
from cudalint.frontend.depth import MAX_PARSE_NESTING, nesting
from cudalint.frontend.flags import COMPAT_DIR, base_args, file_args, resolve_mode
from cudalint.settings import Settings

MAX_BYTES = 8 * 1024 * 1024
_local = threading.local()


@dataclass
class Parsed:
    path: str
    text: str
    tu: ci.TranslationUnit | None
    mode: str
    diagnostics: list[Diagnostic]
    headers: tuple = ()  # every header the parse read, those inside the prelude PCH included
    nesting: int = 0  # the deepest bracket nesting of the text (no function of it nests deeper)


def read_source(path: str) -> tuple[str | None, Diagnostic | None]:
    """The file's text, or why it is not analysed."""
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            return None, Diagnostic(path, 0, 0, "error", f"file is {size} bytes, over the {MAX_BYTES}-byte limit; skipped",
                                    "input")
        data = open(path, "rb").read()
    except OSError as exc:
        return None, Diagnostic(path, 0, 0, "error", f"cannot read file: {exc.strerror or exc}", "input")
    if b"\0" in data[:65536]:
        return None, Diagnostic(path, 0, 0, "error", "binary file (contains NUL bytes); skipped", "input")
    try:
        text, problem = data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        text, problem = data.decode("utf-8", errors="replace"), Diagnostic(
            path, line, 0, "warning", f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}); "
                                      "analysed with replacement characters", "input")
    return text, problem


def _index() -> ci.Index:
    idx = getattr(_local, "index", None)
    if idx is None:
        idx = _local.index = cx.new_index()
    return idx


def prepare(path: str, settings: Settings) -> None:
    """Build the precompiled prelude `path` will use, if any, so that a parse's time is the
    file's own (workers call this before a file's time budget starts)."""
    if not settings.pch:
        return
    try:
        mode, root = resolve_mode(settings)
        text, _ = read_source(path)
        if text is not None:
            _pch_args(path, text, file_args(settings, path, mode, root), settings.include_dirs)
    except (ValueError, OSError):
        pass  # parse() reports it


_prepared: dict = {}  # the last file's prelude choice: prepare() makes it, parse() comes next


def _pch_args(path: str, text: str, args: list, include_dirs) -> list[str]:
    """prelude.pch_args_for, once for a file that prepare() and then parse() are given (reading
    its text and its own headers for the choice is a millisecond or two)."""
    key = (path, text, tuple(args), tuple(include_dirs), prelude.cache_dir())
    if key not in _prepared:
        _prepared.clear()
        _prepared[key] = prelude.pch_args_for(path, text, args, include_dirs)
    return list(_prepared[key])


def parse(path: str, settings: Settings) -> Parsed:
    text, problem = read_source(path)
    diags = [problem] if problem else []
    deep = nesting(text) if text is not None else 0
    if deep > MAX_PARSE_NESTING:
        text = None
        diags.append(Diagnostic(path, 0, 0, "error", f"brackets nest {deep} deep, more than the {MAX_PARSE_NESTING} "
                                "libclang can parse without crashing; skipped", "input"))
    if text is None:
        return Parsed(path, "", None, "none", diags)
    mode, root = resolve_mode(settings)
    args = file_args(settings, path, mode, root)
    extra = gpuverify_args(text)  # after the prelude PCH, which must come first
    unsaved = [(path, with_end_mark(text))]
    attempts = [args + extra] + ([base_args(mode, root) + extra] if base_args(mode, root) != args else [])
    pch = _pch_args(path, text, args, settings.include_dirs) if settings.pch else []
    if pch:
        attempts.insert(0, args + pch + extra)
    tu, attempt = None, None
    if preamble.bodies_skippable(path, text, settings.include_dirs):
        tu, attempt = _first_parse(path, attempts, unsaved, cx.KEEP_GOING | preamble.SKIP_PREAMBLE_BODIES)
        if tu is not None and any(map(_reported, tu.diagnostics)):  # reported as the plain parse reports them
            tu = None
    if tu is None:
        tu, attempt = _first_parse(path, attempts, unsaved, cx.KEEP_GOING)
    if tu is None:
        diags.append(Diagnostic(path, 0, 0, "error", "libclang could not parse this file at all "
                                f"(flags: {' '.join(args)})"))
        return Parsed(path, text, None, mode, diags, nesting=deep)
    if len(attempts) > 1 and attempt is attempts[-1]:  # an arch or flag clang rejects
        diags.append(Diagnostic(path, 0, 0, "warning", "libclang rejected the configured flags; "
                                "parsed with cudalint's defaults instead"))
    diags += _diagnostics(tu, path, text)
    headers = set(prelude.resolved(inc.include.name for inc in tu.get_includes()))
    if "-include-pch" in attempt:  # the PCH's headers are not listed by get_includes()
        headers.update(prelude.headers_of(attempt[attempt.index("-include-pch") + 1]))
    return Parsed(path, text, tu, mode, diags, tuple(sorted(headers)), deep)


_GPUVERIFY = re.compile(r"\b__(requires|ensures|invariant|global_invariant|requires_fresh_array|axiom|assume|"
                        r"implies|enabled|(read|write)_offset_bytes|(read|write)_implies|uniform_(int|bool)|"
                        r"distinct_(int|bool)|no_(read|write)|return_val_(int|bool)|assert)\s*\(")


_CUDA_H = re.compile(r'#\s*include\s*[<"]cuda\.h[>"]')
_CUDA_H_NAMES = re.compile(r"\b(curand\w*|cooperative_groups|this_thread_block|this_grid)\b")
_OWN_HEADERS = re.compile(r'#\s*include\s*[<"](curand_kernel|cooperative_groups)\.h[>"]')


def gpuverify_args(text: str) -> list[str]:
    """Kernels written for GPUVerify parse with its specification functions declared (they use
    `__requires(n > 0)`, `__invariant(...)`) and with what its cuda.h declares (they name cuRAND
    or cooperative groups after including only <cuda.h>); other files are parsed as they are."""
    extra = ["-include", str(COMPAT_DIR / "gpuverify.h")] if _GPUVERIFY.search(text) else []
    if _CUDA_H.search(text) and _CUDA_H_NAMES.search(text) and not _OWN_HEADERS.search(text):
        extra += ["-include", str(COMPAT_DIR / "gpuverify_cuda.h")]
    return extra


# At the end of a translation unit clang looks at every unused static function and variable it
# has seen, for warnings cudalint never reads; the prelude's CUDA headers hold thousands of them,
# a third of a typical file's parse (15 of 50 ms). It skips that once an error has occurred: an
# `#error` after the file's last line, which none of the file's code can see, is that error, and
# the parse's diagnostics leave it out (is_end_mark); an error clang places at the end of the
# input (`expected '}'`) is placed where the file's own text ends (within_text).
END_MARK = "cudalint: end of file"


def with_end_mark(text: str) -> str:
    # on a line of its own even after a last line that ends in a backslash (a continued #define)
    return text + f"\n\n#error {END_MARK}\n"


def is_end_mark(d) -> bool:
    return d.spelling == END_MARK and d.option == "" and d.category_name == "User-Defined Issue"


def within_text(line: int, column: int, text: str) -> tuple[int, int]:
    """A position in the parsed input, as one in the file's own text: past its end, its end
    (columns in bytes, as libclang's)."""
    end = (text.count("\n") + 1, len(text[text.rfind("\n") + 1:].encode()) + 1)
    return min((line, column), end)


def _first_parse(path: str, attempts: list, unsaved: list, opts: int):
    """(the unit, the flags) of the first of `attempts` libclang parses (and whose prelude PCH it
    takes); (None, None) where none."""
    for attempt in attempts:
        try:
            tu = _index().parse(path, args=attempt, unsaved_files=unsaved, options=opts)
        except ci.TranslationUnitLoadError:
            continue
        if "-include-pch" in attempt and _pch_rejected(tu):
            continue
        return tu, attempt
    return None, None


def _reported(d) -> bool:
    """A diagnostic of the parse the file's result carries: an error, not the end mark."""
    return d.severity >= ci.Diagnostic.Error and not is_end_mark(d)


def _pch_rejected(tu) -> bool:
    return any(d.severity >= ci.Diagnostic.Fatal and ("precompiled" in d.spelling or "PCH" in d.spelling)
               for d in tu.diagnostics)


def _diagnostics(tu, path, text) -> list[Diagnostic]:
    out = []
    own = {path: True}  # a file name as clang gives it -> whether it is this file (realpath is slow)
    for d in tu.diagnostics:
        if not _reported(d):
            continue
        loc = d.location
        if loc.file is None:
            out.append(Diagnostic(path, 0, 0, "error", f"compiler flags: {d.spelling}"))
            continue
        where = loc.file.name
        msg = d.spelling
        if where not in own:
            own[where] = os.path.realpath(where) == os.path.realpath(path)
        if not own[where]:
            msg = f"{msg} (in {where}:{loc.line})"
            out.append(Diagnostic(path, 0, 0, "error", msg))
        else:
            out.append(Diagnostic(path, *within_text(loc.line, loc.column, text), "error", msg))
    return out[:20] + ([Diagnostic(path, 0, 0, "error", f"... and {len(out) - 20} more errors")] if len(out) > 20 else [])
