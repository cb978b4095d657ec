"""Global-memory races shown by logging the flagged accesses as they happen (``--confirm``).

No NVIDIA tool sees a race on global memory (racecheck covers shared memory only), and
differential runs show one only where its outcome changes: a plain read of a counter that other
blocks update with `atomicMax` gives the same result in every order. So the runner rewrites the
accesses on a global race finding's lines to record (site, block, thread, address) in a device log
as each happens (:func:`log_variant`), runs the kernel once, and the child reports every address
two different blocks touched through a pair of those accesses that race: a plain write with any
access, or an atomic with a plain one. Nothing orders threads of two blocks within one launch,
whether the blocks ran at the same time or one after the other, so such a pair is the race itself.
Within one block, each thread also counts the `__syncthreads()` it has passed (its barrier epoch,
kept with every record): two warps of one block at one address in the same epoch had no barrier
between them. Lanes of one warp are not judged (one instruction may serve both).

Shared memory is logged the same way for a race that involves an atomic, which racecheck does
not track: each block has its own, so its records are compared within one block only (two warps,
one address, one barrier epoch).

A kernel with a fence or a grid-wide sync is left to the differential runs: there a flag
protocol (`__threadfence()`, then a flag other blocks wait for) may order the two blocks. A kernel
with barriers the epochs do not count (PTX `bar.sync`, named barriers) gets no same-block verdict.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from cudalint.findings import Confirmation, Finding

from .views import view_row

SLOTS = 1 << 22  # logged accesses (16 bytes each: 64 MiB of device memory)
MAX_SITES = 255
# what may order two blocks inside one launch; with any of these the log proves nothing
_ORDERING = re.compile(r"\b(__threadfence\w*|atomic_thread_fence|fence_\w+|this_grid|grid_group)\b|\.\s*sync\s*\(")
# barriers inside a block that the epoch count does not see
_UNCOUNTED_BARRIERS = re.compile(r"\bbar(rier)?\.(sync|arrive|red)\b|\b__barrier_sync\b|\bbarrier_sync\b")
_SYNCTHREADS = re.compile(r"\b__syncthreads(_count|_and|_or)?(?=\s*\()")
EPOCH_SLOTS = 1 << 22  # threads whose barrier count is kept (2 bytes each)


@dataclass(frozen=True)
class Site:
    """One logged access (`text`, as the model has it) on source line `line`, whose address is
    named by the characters [start, end) of the line."""
    id: int
    line: int
    start: int
    end: int
    kind: str  # read | write | atomic
    text: str
    width: int = 1  # bytes it touches from its address
    shift: int = 0  # ... starting this many bytes past the address the text names (a field of it)


def races(a: Site, b: Site) -> bool:
    """Whether the two accesses race when they touch one address from two blocks."""
    return "write" in (a.kind, b.kind) or {a.kind, b.kind} == {"atomic", "read"}


def _top_level(text: str, stop) -> int | None:
    """Index of the first character outside brackets where stop(text, i) holds."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and stop(text, i):
            return i
    return None


def _assigns(text: str, i: int) -> bool:
    """text[i] is the `=` of an assignment (`=`, `+=`, `<<=`; not `==`, `<=`, `!=`)."""
    if text[i] != "=" or text[i + 1:i + 2] == "=":
        return False
    before = text[:i].rstrip()
    if before.endswith(("<<", ">>")):
        return True
    return not before.endswith(("=", "!", "<", ">"))


def _lvalue_span(acc) -> tuple[int, int] | None:
    """Where in `acc.text` the memory it touches is named: an atomic's first argument, else the
    lvalue the text reads or writes."""
    text = acc.text
    if acc.kind == "atomic":
        m = re.match(r"\s*(atomic\w+|__\w*atomic\w*)\s*\(", text)
        if not m or not text.rstrip().endswith(")"):
            return None
        inner = text[m.end():text.rstrip().rfind(")")]
        comma = _top_level(inner, lambda t, i: t[i] == ",")
        if comma is None:
            return None
        return m.end(), m.end() + len(inner[:comma].rstrip())
    # a read or write: the left side of an assignment (`a[i] += v` reads and writes a[i]), the
    # operand of `++`/`--`, else the whole text
    eq = _top_level(text, _assigns)
    if eq is not None:
        lhs = text[:eq].rstrip()
        lhs = lhs[:-2] if lhs.endswith(("<<", ">>")) else \
            lhs[:-1] if lhs.endswith(("+", "-", "*", "/", "%", "&", "|", "^")) else lhs
        start, end = 0, len(lhs.rstrip())
    else:
        m = re.fullmatch(r"(\s*(?:\+\+|--)?\s*)(.*?)\s*(?:\+\+|--)?\s*", text)
        start, end = m.end(1), m.end(2)
    return (start, end) if _plain_lvalue(text[start:end]) else None


def _plain_lvalue(text: str) -> bool:
    """An expression whose address can be taken: not a call (`__ldg(p)`), not empty."""
    t = text.strip()
    return bool(t) and not re.match(r"[\w:<>]+\s*\(", t) and _top_level(t, lambda s, i: s[i] in ",;?") is None


def log_sites(kernel, path: str, lines: set[int], arrays: set[tuple[str, str]], source_lines: list[str]) -> list[Site]:
    """The kernel's accesses to `arrays` ((memory space, name): global or generic, shared) on
    `lines` of `path` that can be rewritten to log themselves: the text where the model puts it,
    one line, an address that can be taken."""
    found: dict = {}  # (line, start, end, shift) -> (kind, text, width)

    def add(key, kind, text, width):  # a read and a write of one lvalue log once, as the write
        old = found.get(key)
        if old is None or kind == "write":
            found[key] = (kind, text, max(width, old[2] if old else 0))

    for acc in getattr(kernel, "events", ()):
        if not hasattr(acc, "width"):
            continue
        space = "global" if acc.array.space == "generic" else acc.array.space
        if (space, acc.array.name) not in arrays:
            continue
        loc = acc.loc
        call = acc.via[0] if getattr(acc, "via", ()) else None
        if call is not None and not _same_file(loc.path, path) and _same_file(call.path, path) and call.line in lines:
            # in a function of another file the kernel calls: the argument at the call names the memory
            row = source_lines[call.line - 1] if 0 < call.line <= len(source_lines) else ""
            shift = _field_offset(acc)
            for start, end in _subscripts(row, acc.array.name) if shift is not None else ():
                add((call.line, start, end, shift), acc.kind, row[start:end], acc.width)
            continue
        if loc.line not in lines or loc.end_line != loc.line or not _same_file(loc.path, path):
            continue
        row = source_lines[loc.line - 1] if 0 < loc.line <= len(source_lines) else ""
        if row[loc.column - 1:loc.end_column - 1] != acc.text:
            continue  # a macro, or columns that are not characters: leave it out
        span = _lvalue_span(acc)
        if span is None:
            continue
        add((loc.line, loc.column - 1 + span[0], loc.column - 1 + span[1], 0), acc.kind, acc.text, acc.width)
    return [Site(i, line, start, end, kind, text, width, shift)
            for i, ((line, start, end, shift), (kind, text, width)) in enumerate(list(found.items())[:MAX_SITES])]


def _field_offset(acc) -> int | None:
    """Where in its element an access starts (`color.z` of a uchar4: 2): the byte offset with
    every unknown at 1 (or 0), modulo the element size; None when neither can be evaluated."""
    from collections import defaultdict

    from cudalint.analysis.banks import Unbound, evaluate
    if not acc.array.elem_size:
        return None
    for unknown in (1, 0):
        try:
            return evaluate(acc.offset, defaultdict(lambda: unknown)) % acc.array.elem_size
        except (Unbound, TypeError, ValueError):
            continue
    return None


def _subscripts(row: str, array: str) -> list[tuple[int, int]]:
    """[start, end) of each `array[...]` on the row (an argument a call passes: `f(dst[i - 1])`)."""
    out = []
    for m in re.finditer(rf"(?<![\w.>]){re.escape(array)}\s*\[", row):
        depth, i = 0, m.end() - 1
        for i in range(m.end() - 1, len(row)):
            depth += (row[i] == "[") - (row[i] == "]")
            if depth == 0:
                break
        if depth == 0:
            out.append((m.start(), i + 1))
    return out


def _same_file(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def race_pairs(sites: list[Site]) -> list[tuple[int, int]]:
    return [(a.id, b.id) for a in sites for b in sites if a.id <= b.id and races(a, b)]


def may_order_blocks(view: str) -> bool:
    return bool(_ORDERING.search(view))


def epochs_count_every_barrier(view: str) -> bool:
    """Whether every barrier inside a block is a `__syncthreads*()` (which the log counts)."""
    return not _UNCOUNTED_BARRIERS.search(view)


_LOG = """extern "C" {{ __device__ unsigned long long cudalint_log_count; __device__ unsigned long long cudalint_log[{slots}];
  __device__ unsigned short cudalint_epoch[{epochs}]; }}
static __device__ __forceinline__ unsigned long long cudalint_block() {{
  return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}}
static __device__ __forceinline__ unsigned long long cudalint_thread() {{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}}
static __device__ __forceinline__ unsigned long long cudalint_thread_id() {{
  return cudalint_block() * (blockDim.x * blockDim.y * blockDim.z) + cudalint_thread();
}}
static __device__ __forceinline__ void cudalint_tick() {{  // after each __syncthreads(): one more epoch
  unsigned long long g = cudalint_thread_id();
  if (g < {epochs}ULL && cudalint_epoch[g] < 0xFFEu) cudalint_epoch[g]++;
}}
static __device__ __forceinline__ void cudalint_syncthreads() {{ __syncthreads(); cudalint_tick(); }}
static __device__ __forceinline__ int cudalint_syncthreads_count(int p) {{ int r = __syncthreads_count(p); cudalint_tick(); return r; }}
static __device__ __forceinline__ int cudalint_syncthreads_and(int p) {{ int r = __syncthreads_and(p); cudalint_tick(); return r; }}
static __device__ __forceinline__ int cudalint_syncthreads_or(int p) {{ int r = __syncthreads_or(p); cudalint_tick(); return r; }}
template <class T> static __device__ __forceinline__ T *cudalint_note(T *p, unsigned int site) {{
  // shared memory is each block's own: its addresses are compared within one block only
  unsigned long long shared = __isShared((const void *)p) ? 1ULL : 0ULL;
  if (!shared && !__isGlobal((const void *)p)) return p;
  unsigned long long k = atomicAdd(&cudalint_log_count, 1ULL);
  if (k < {half}ULL) {{
    unsigned long long block = cudalint_block(), thread = cudalint_thread();
    unsigned long long g = cudalint_thread_id();
    unsigned long long epoch = g < {epochs}ULL ? cudalint_epoch[g] : 0xFFFu;
    cudalint_log[2 * k] = (unsigned long long)(const volatile void *)p;
    // site 8 bits, barrier epoch 12, shared 1, thread 11, block 32 (unpacked by child._unpack)
    cudalint_log[2 * k + 1] = ((unsigned long long)site << 56) | (epoch << 44) | (shared << 43)
        | ((thread & 0x7FFu) << 32) | (block & 0xFFFFFFFFu);
  }}
  return p;
}}
"""


def log_variant(view: str, offset: int, sites: list[Site]) -> str:
    """The device view with each site logging itself: a read or write `E` becomes
    `(*cudalint_note(&(E), id))`, an atomic's address argument `p` becomes `cudalint_note(p, id)`;
    sites nest (`a[b[i]]`) as their spans do. Each `__syncthreads*()` also counts the thread's
    barrier epoch."""
    rows = view.split("\n")
    by_row: dict[int, list] = {}
    for s in sites:
        k = view_row(rows, offset, s.line)
        if k is not None:
            by_row.setdefault(k, []).append(s)
    for k, group in by_row.items():
        inserts = []
        for s in group:
            opening, closing = ("cudalint_note(", f", {s.id}u)") if s.kind == "atomic" else \
                ("(*cudalint_note(&(", f"), {s.id}u))")
            width = s.end - s.start
            inserts.append((s.start, 1, -width, opening))  # at one place: outer spans open first
            inserts.append((s.end, 0, width, closing))  # and close last
        row = rows[k]
        for pos, _, _, text in sorted(inserts, reverse=True):
            row = row[:pos] + text + row[pos:]
        rows[k] = row
    body = _SYNCTHREADS.sub(lambda m: "cudalint_syncthreads" + (m.group(1) or ""), "\n".join(rows))
    return _LOG.format(slots=2 * SLOTS, half=SLOTS, epochs=EPOCH_SLOTS) + body


# ----------------------------------------------------------------------------- judging


def _coords(linear: int, dims) -> str:
    x, y = dims[0], dims[1]
    return f"({linear % x},{linear // x % y},{linear // (x * y)})"


_VERB = {"read": "reads", "write": "writes", "atomic": "updates atomically"}


def judge_access_log(f: Finding, job, lines: set[int]) -> Confirmation | None:
    """confirmed when two blocks (or two warps of one block between the same two barriers)
    touched one address through a racing pair of the logged accesses on the finding's lines (one
    of them on its own line); None when the log shows none."""
    r = job.runs.get("access-log")
    log = (r.result.get("access_log") if r is not None and not r.timed_out else None) or {}
    sites = {s.id: s for s in job.log_sites}
    for hit in log.get("pairs", ()):
        a, b = sites.get(hit["sites"][0]), sites.get(hit["sites"][1])
        if a is None or b is None or not hit.get("addresses"):
            continue
        if f.line not in (a.line, b.line) or not {a.line, b.line} <= lines:
            continue
        ex, g = hit["example"], job.geometry
        where = f"byte {ex['offset']} of `{ex['buffer']}`" if ex.get("buffer") else "the same address"
        first = f"thread {_coords(ex['first'][1], g.block)} of block {_coords(ex['first'][0], g.grid)}"
        second = f"thread {_coords(ex['second'][1], g.block)}"
        if ex.get("same_block"):
            who, why = "two warps of one block touch between the same two barriers", \
                "no __syncthreads() between them, and warps do not run in lockstep"
        else:
            second += f" of block {_coords(ex['second'][0], g.grid)}"
            who, why = "two blocks touch", "nothing orders threads of different blocks"
        return Confirmation("confirmed", "access-log", (
            f"in one launch {first} {_VERB[a.kind]} `{a.text}` (line {a.line}) and {second} {_VERB[b.kind]} "
            f"`{b.text}` (line {b.line}), both at {where} ({hit['addresses']} address(es) {who} through these "
            f"accesses); {why} ({g.describe()})"))
    return None


def log_summary(job) -> str:
    """What the log showed, for a finding it did not confirm ("" when there was no log)."""
    r = job.runs.get("access-log")
    if r is None:
        return ""
    if r.timed_out or r.result.get("error"):
        why = "timed out" if r.timed_out else r.result.get("error")
        return f"; the run that logs the flagged accesses failed ({why})"
    log = r.result.get("access_log") or {}
    if not log:
        return ""
    dropped = f", {log['dropped']} more not logged (log full)" if log.get("dropped") else ""
    scope = "two blocks, or two warps of one block between the same barriers," if job.log_same_block else "two blocks"
    return (f"; the flagged accesses, logged ({log.get('records', 0)} records{dropped}), show no address {scope} "
            f"touch through a racing pair")
