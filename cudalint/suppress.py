"""Inline suppressions, applied after the rules have run (a post-filter, as clang-tidy's NOLINT).

Forms understood (in `//` or `/* */` comments):

- `// cudalint: ignore[CUDA101] reason` — trailing on a line: that line; alone on a line: the next
  line that holds code. Without `[...]` it covers every rule.
- `// cudalint: disable[CUDA2]` … `// cudalint: enable[CUDA2]` — a range (to the end of the file
  when no `enable` follows).
- `// cudalint: file-ignore[CUDA3]` — the whole file.
- clang-tidy's `// NOLINT`, `// NOLINT(cudalint-misaligned-vector-access)`,
  `// NOLINTNEXTLINE(cudalint-CUDA101)`, `// NOLINTBEGIN(cudalint-*)` … `// NOLINTEND(...)`.
  Names other than `cudalint-…` belong to clang-tidy and are left alone.

Codes accept prefixes (`CUDA1`), rule names (`misaligned-vector-access`), `ALL` and `*`; in NOLINT
lists, globs over `cudalint-<name>` and `cudalint-<code>`.

A suppression that suppresses nothing becomes a CUDA901 `unused-suppression` finding, when every rule
it names ran (bare `NOLINT` and NOLINT lists without `cudalint-` names are never reported: they may
be there for clang-tidy).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from cudalint.findings import Finding

_CUDALINT = re.compile(r"cudalint:\s*(ignore|disable|enable|file-ignore)\b(?:\[([^\]]*)\])?", re.I)
_NOLINT = re.compile(r"\bNOLINT(NEXTLINE|BEGIN|END)?\b(?:\(([^)]*)\))?")
_COMMENT = re.compile(r"//(.*)$|/\*(.*?)\*/")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"' + r"|'(?:\\.|[^'\\])*'")
_NOT_CODE = re.compile(r"^\s*(//.*|/\*.*\*/\s*)?$")

UNUSED_CODE = "CUDA901"


@dataclass
class Directive:
    line: int  # where the comment is
    column: int
    text: str  # the directive as written, e.g. "cudalint: ignore[CUDA101]"
    kind: str  # ignore | disable | enable | file-ignore | nolint | nolintnextline | nolintbegin | nolintend
    tokens: tuple[str, ...]  # () = every rule
    clang_tidy: bool  # a NOLINT form
    used: set = field(default_factory=set)  # tokens (or "*") that suppressed something


@dataclass
class _Span:
    directive: Directive
    token: str
    first: int
    last: int  # inclusive


def token_matches(token: str, finding: Finding, clang_tidy: bool) -> bool:
    """Does a code/prefix/name/glob from a suppression cover this finding?"""
    t = token.strip()
    if clang_tidy and t == "*":  # a bare NOLINT: every check
        return True
    if clang_tidy:
        if not t.lower().startswith("cudalint-"):
            return False
        names = (f"cudalint-{finding.name}", f"cudalint-{finding.rule.lower()}")
        if any(ch in t for ch in "*?["):
            return any(fnmatch.fnmatchcase(n, t.lower()) for n in names)
        t = t[len("cudalint-"):]
    if t in ("*", "") or t.upper() == "ALL":
        return True
    return finding.rule.startswith(t.upper()) or finding.name == t.lower()


def _comments(lines):
    """(line number, column, comment text, code-before-comment) of each comment."""
    in_block = False
    for n, raw in enumerate(lines, 1):
        if in_block:
            end = raw.find("*/")
            yield n, 1, raw if end < 0 else raw[:end], False
            if end < 0:
                continue
            in_block = False
            raw = " " * (end + 2) + raw[end + 2:]
        masked = _STRING.sub(lambda m: " " * len(m.group(0)), raw)
        pos = 0
        while True:
            i = masked.find("/", pos)
            if i < 0 or i + 1 >= len(masked):
                break
            nxt = masked[i + 1]
            if nxt == "/":
                yield n, i + 1, raw[i + 2:], bool(masked[:i].strip())
                break
            if nxt == "*":
                end = masked.find("*/", i + 2)
                if end < 0:
                    yield n, i + 1, raw[i + 2:], bool(masked[:i].strip())
                    in_block = True
                    break
                yield n, i + 1, raw[i + 2:end], bool(masked[:i].strip()) or bool(masked[end + 2:].strip())
                pos = end + 2
                continue
            pos = i + 1


def _split_tokens(s: str | None) -> tuple[str, ...]:
    if s is None:
        return ()
    return tuple(t.strip() for t in re.split(r"[,\s]+", s) if t.strip())


def parse_directives(lines: list[str]) -> list[tuple[Directive, bool]]:
    """Every suppression directive with whether code precedes it on its line."""
    out = []
    for n, col, text, trailing in _comments(lines):
        for m in _CUDALINT.finditer(text):
            kind = m.group(1).lower()
            toks = _split_tokens(m.group(2))
            out.append((Directive(n, col, m.group(0).strip(), kind, toks, False), trailing))
        for m in _NOLINT.finditer(text):
            kind = "nolint" + (m.group(1) or "").lower()
            toks = _split_tokens(m.group(2))
            out.append((Directive(n, col, m.group(0).strip(), kind, toks, True), trailing))
    return out


class FileSuppressions:
    """The directives of one file and the line spans they cover."""

    def __init__(self, lines: list[str]):
        self.directives: list[Directive] = []
        self.spans: list[_Span] = []
        self.problems: list[tuple[Directive, str]] = []  # unmatched enable/END
        n_lines = len(lines)
        open_ranges: dict[tuple[bool, str], list[tuple[Directive, int]]] = {}
        for d, trailing in parse_directives(lines):
            self.directives.append(d)
            toks = d.tokens or ("*",)
            if d.kind in ("ignore", "nolint"):
                target = d.line if trailing else _next_code_line(lines, d.line)
                if d.kind == "nolint":
                    target = d.line  # clang-tidy: NOLINT covers its own line only
                self.spans += [_Span(d, t, target, target) for t in toks]
            elif d.kind == "nolintnextline":
                self.spans += [_Span(d, t, d.line + 1, d.line + 1) for t in toks]
            elif d.kind == "file-ignore":
                self.spans += [_Span(d, t, 1, max(n_lines, 1)) for t in toks]
            elif d.kind in ("disable", "nolintbegin"):
                for t in toks:
                    open_ranges.setdefault((d.clang_tidy, t.lower()), []).append((d, d.line))
            elif d.kind in ("enable", "nolintend"):
                for t in toks:
                    stack = open_ranges.get((d.clang_tidy, t.lower()))
                    if stack:
                        start_d, start = stack.pop()
                        self.spans.append(_Span(start_d, t, start, d.line))
                    else:
                        self.problems.append((d, t))
        for (_, t), stack in open_ranges.items():
            for start_d, start in stack:  # no `enable`: to the end of the file
                self.spans.append(_Span(start_d, t if t != "*" else "*", start, max(n_lines, 1)))

    def suppresses(self, f: Finding) -> bool:
        hit = False
        for s in self.spans:
            if s.first <= f.line <= s.last and token_matches(s.token, f, s.directive.clang_tidy):
                s.directive.used.add(s.token.lower())
                hit = True
        return hit


def _next_code_line(lines, line: int) -> int:
    for i in range(line, len(lines)):  # lines[i] is line i + 1
        if not _NOT_CODE.match(lines[i]):
            return i + 1
    return line + 1


def apply(path: str, lines: list[str], findings: list[Finding], ran_codes: set[str],
          all_codes: dict[str, str], unused_rule=None) -> tuple[list[Finding], int]:
    """(kept findings + CUDA901 findings, number suppressed).

    ran_codes: codes of the rules that ran; all_codes: every registered code -> name.
    unused_rule: the CUDA901 Rule (None: do not report unused suppressions).
    """
    sup = FileSuppressions(lines)
    if not sup.directives:
        return findings, 0
    kept, n = [], 0
    for f in findings:
        if sup.suppresses(f):
            n += 1
        else:
            kept.append(f)
    if unused_rule is None:
        return kept, n
    for d in sup.directives:
        if d.kind in ("enable", "nolintend"):
            continue
        toks = d.tokens or ("*",)
        unused = []
        for t in toks:
            if t.lower() in d.used:
                continue
            if d.clang_tidy:
                if not t.lower().startswith("cudalint-"):
                    continue  # clang-tidy's own check, or a bare NOLINT
                covered = _codes_for(t, all_codes, True)
            elif t == "*" or t.upper() == "ALL":
                covered = set(all_codes) - {UNUSED_CODE}
            else:
                covered = _codes_for(t, all_codes, False)
            if covered and not covered <= set(ran_codes):
                continue  # some rule it names did not run: cannot tell
            unused.append((t, bool(covered)))
        if not unused:
            continue
        what = ", ".join(t if known else f"{t} (no such rule)" for t, known in unused if t != "*")
        msg = f"unused suppression `{d.text}`: no finding {'of ' + what + ' ' if what else ''}to suppress"
        line_text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        end_col = len(line_text) + 1 if line_text else d.column + 1
        kept.append(Finding(rule=unused_rule.code, name=unused_rule.name, category=unused_rule.category,
                            severity=unused_rule.severity, path=path, line=d.line, column=d.column,
                            end_line=d.line, end_column=max(end_col, d.column + 1), message=msg))
    for d, t in sup.problems:
        line_text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        kept.append(Finding(rule=unused_rule.code, name=unused_rule.name, category=unused_rule.category,
                            severity=unused_rule.severity, path=path, line=d.line, column=d.column,
                            end_line=d.line, end_column=max(len(line_text) + 1, d.column + 1),
                            message=f"`{d.text}` closes no open range for {t}"))
    kept.sort(key=Finding.sort_key)
    return kept, n


def _codes_for(token: str, all_codes: dict[str, str], clang_tidy: bool) -> set[str]:
    probe = lambda code, name: Finding(code, name, "", "note", "", 0, 0, 0, 0, "")  # noqa: E731
    return {c for c, name in all_codes.items() if token_matches(token, probe(c, name), clang_tidy)}
