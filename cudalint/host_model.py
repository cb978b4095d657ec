"""Host functions as small frozen statement trees, for the host-memory analyses (issue 5).

The front end (`cudalint.frontend.host`) builds one per host function; the path-sensitive
analysis (`cudalint.analysis.hostflow`) and the CUDA4xx rules read only these, never cursors.
Expressions are flattened into events in evaluation order (`Call`, `Assign`, `HostAccess`,
`Delete`, `Copy`); statements keep their structure (`Block`, `If`, `HostLoop`, `Switch`, …).
Macro expansions such as `CUDA_CHECK(...)` are already expanded; locations are spelling
positions, so a call inside a macro argument points at the user's text, and a `return` from a
macro body points at the macro's use. The `Host` prefix sets apart the names the device model
(`cudalint.model`) also uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudalint.model import Loc


@dataclass(frozen=True)
class HostArg:
    """An operand as the analyses see it.

    kind: var (a variable or `v.member` of a local `v`), addr (`&name`), null, call (the result of
    call `call_id`), new / new[] (a new-expression), expr (anything else). `scope` of a name:
    local | param | global | member (of `this` or of a non-local object). `root` is the pointer
    variable an expression is based on (`h` in `h + 4`, `(void*)h`, `&h[0]`, `h.data()`)."""
    kind: str
    name: str | None = None
    scope: str | None = None
    text: str = ""
    call_id: int | None = None
    root: str | None = None


@dataclass(frozen=True)
class Call:
    id: int
    name: str
    args: tuple  # HostArg
    loc: Loc
    text: str
    launch: bool = False  # a kernel launch `k<<<...>>>(...)`
    stream: str | None = None  # launch stream text ('0' when omitted)
    noreturn: bool = False
    receiver: HostArg | None = None  # `obj` in `obj.method(...)`

    @property
    def shown_name(self) -> str:
        """The name messages give the call: libclang's, else the one it is written with. libclang
        leaves a call with type-dependent arguments in a template unresolved and unnamed; it is
        only named, never taken for the allocation or release its name says (its arguments did
        not resolve either)."""
        m = re.match(r"\s*(?:::)?([A-Za-z_]\w*)\s*\(", self.text or "")
        return self.name or (m.group(1) if m else "")


def stream_text(t: str | None) -> str:
    """A stream as `Call.stream` names it: every spelling of the default stream is '0'."""
    t = (t or "").strip()
    return "0" if t in ("", "0", "nullptr", "NULL", "cudaStreamLegacy", "(cudaStream_t)0") else t


@dataclass(frozen=True)
class Assign:
    target: HostArg  # kind var (scope tells local/global/...) or expr (deref, subscript, ...)
    value: HostArg
    loc: Loc
    decl: bool = False  # a declaration's initialiser


@dataclass(frozen=True)
class HostAccess:
    """A host dereference of a pointer variable: `h[i]`, `*h`, `h->x`, `v[i]` (operator[])."""
    var: str
    write: bool
    loc: Loc
    text: str


@dataclass(frozen=True)
class Delete:
    id: int
    arg: HostArg
    array: bool
    loc: Loc
    text: str


@dataclass(frozen=True)
class Copy:
    """A shallow copy of a class object: its implicit (or defaulted) copy constructor or copy
    assignment runs, e.g. for a by-value parameter, `T b = a;`, `b = a;`, `v.push_back(a)`."""
    cls: str
    loc: Loc
    text: str


@dataclass(frozen=True)
class Test:
    """What the true branch of a condition means. kind: status (a cudaError_t compared with
    cudaSuccess; sense 'fail' or 'ok') | null (a pointer compared with null; sense 'null' or
    'nonnull'). subject: ('call', id) or ('var', name)."""
    kind: str
    subject: tuple
    sense: str


@dataclass(frozen=True)
class Block:
    stmts: tuple


@dataclass(frozen=True)
class If:
    cond: tuple  # events evaluated by the condition
    test: Test | None
    then: Block
    orelse: Block | None
    loc: Loc
    text: str


@dataclass(frozen=True)
class HostLoop:
    cond: tuple  # events of the condition (evaluated before every iteration)
    body: Block
    step: tuple  # events of a for-loop's increment
    loc: Loc
    text: str
    do_while: bool = False
    infinite: bool = False  # `for (;;)`, `while (true)`
    once: bool = False  # `do { ... } while (0)`: the body runs exactly once


@dataclass(frozen=True)
class Switch:
    cond: tuple
    body: Block  # contains Case markers
    loc: Loc
    text: str


@dataclass(frozen=True)
class Case:
    loc: Loc
    text: str  # "case 2" | "default"


@dataclass(frozen=True)
class Return:
    value: HostArg | None
    loc: Loc
    implicit: bool = False  # falling off the end (loc: the closing brace)


@dataclass(frozen=True)
class Exit:
    loc: Loc
    text: str


@dataclass(frozen=True)
class Jump:
    kind: str  # break | continue | goto
    loc: Loc
    label: str | None = None


@dataclass(frozen=True)
class Label:
    name: str
    loc: Loc
