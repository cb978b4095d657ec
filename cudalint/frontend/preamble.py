"""A host file that includes a big header-only library (CImg, CLI11, GLEW) parsed without the
library's function bodies.

The rules read the file's own functions: its kernels (and the device functions they call, which
may live in headers) and its host functions (whose calls into headers are opaque). A file with no
device code of its own therefore needs no function body of any header, and clang can skip those
of the headers its leading `#include` block reads: libclang's precompiled preamble with function
bodies skipped in it alone (`SKIP_PREAMBLE_BODIES`). bm3d's main.cu, which includes CImg.h (2.4 MB
of template code), parses in 0.25 s instead of 1.3 s. Building the preamble costs about what it
saves on a small header, so only files whose leading includes reach at least `BIG_HEADERS` bytes
of the project's own headers take this way; the others are parsed as before.
"""

from __future__ import annotations

import os
import re

from cudalint.frontend.depth import COMMENT_OR_LITERAL

# CXTranslationUnit_PrecompiledPreamble | CreatePreambleOnFirstParse | SkipFunctionBodies |
# LimitSkipFunctionBodiesToPreamble: the leading #include block becomes a preamble built at once,
# declarations only; the file's own text keeps its bodies.
SKIP_PREAMBLE_BODIES = 0x04 | 0x100 | 0x40 | 0x800
BIG_HEADERS = 256 * 1024
MAX_SCANNED = 64
_DEVICE_CODE = re.compile(r"\b__(?:global|device)__\b")
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def bodies_skippable(path: str, text: str, include_dirs) -> bool:
    """Whether `path` (its text) may be parsed with the bodies of its leading headers skipped:
    it holds no device code itself, and the project headers its leading #include block reaches
    (directly or through each other) are at least BIG_HEADERS bytes."""
    if _DEVICE_CODE.search(text):
        return False
    here = os.path.dirname(os.path.abspath(path))
    todo = [(here, quoted, name) for quoted, name in _includes(_leading_directives(text))]
    seen, size = set(), 0
    while todo and len(seen) < MAX_SCANNED and size < BIG_HEADERS:
        folder, quoted, name = todo.pop()
        header = _resolve(folder, quoted, name, include_dirs)
        if header is None or header in seen:
            continue
        seen.add(header)
        try:
            with open(header, encoding="utf-8", errors="replace") as fh:
                body = fh.read()
        except OSError:
            continue
        size += len(body)
        todo += [(os.path.dirname(header), q, n) for q, n in _includes(body)]
    return size >= BIG_HEADERS


def _leading_directives(text: str) -> str:
    """The start of the text that clang's preamble covers: preprocessor lines, comments and blank
    lines up to the first line of code."""
    lines = COMMENT_OR_LITERAL.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else m.group(0),
                                   text).split("\n")
    end, continued = 0, False
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not (continued or not stripped or stripped.startswith("#")):
            break
        continued = stripped.endswith("\\")
        end = n + 1
    return "\n".join(lines[:end])


def _includes(text: str):
    return [(kind == '"', name.strip()) for kind, name in _INCLUDE.findall(text)]


def _resolve(folder: str, quoted: bool, name: str, include_dirs) -> str | None:
    """A project header: found beside the including file (a quoted include) or in a `-I`
    directory; None for the system's and the toolkit's (what libclang finds elsewhere)."""
    for d in ((folder,) if quoted else ()) + tuple(include_dirs):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(cand):
            return cand
    return None
