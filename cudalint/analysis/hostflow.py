"""Path-sensitive lifetime analysis of host functions (CUDA401–CUDA404).

The statement tree of `cudalint.frontend.host` is lowered to a small control-flow graph; the
graph is then explored path by path with a state per path: which variable holds which
allocation, each allocation's status (live / freed / escaped), which `cudaError_t` variable holds
which call's result, which host buffers an async copy or kernel may still be writing, and the
values of side-effect-free conditions already decided on this path. Equal states at a node are
merged, so loops run as many times as it takes for their state to repeat (0, 1, 2, …) and the
exploration is finite; a step budget bounds it anyway.

What ends an obligation: a release, a failed allocation (`if (cudaMalloc(&p, n) != cudaSuccess)`,
directly or through an error variable; a null test for malloc/new), and an escape: returned,
stored in a member/global/out-parameter/container, or passed to a function cudalint cannot see.
Kernel launches and the CUDA runtime's copy/set calls use a pointer without owning it. `exit`,
`abort` and calls declared `noreturn` end the path without a leak (the process ends), and so does
returning from `main`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudalint.frontend import host as H
from cudalint.model import Loc

ALLOC_OUT = {  # allocation written through the first argument
    "cudaMalloc": "device", "cudaMallocManaged": "managed", "cudaMallocPitch": "device",
    "cudaMalloc3D": "device", "cudaMallocHost": "pinned", "cudaHostAlloc": "pinned",
    "cudaMallocAsync": "async", "cudaMallocFromPoolAsync": "async", "cudaMallocArray": "array",
    "cudaMalloc3DArray": "array", "cudaMallocMipmappedArray": "mipmapped",
}
ALLOC_RET = {"malloc": "malloc", "calloc": "malloc", "aligned_alloc": "malloc"}
RELEASE = {
    "cudaFree": {"device", "managed", "async"},
    "cudaFreeAsync": {"device", "managed", "async"},
    "cudaFreeHost": {"pinned"},
    "cudaFreeArray": {"array"},
    "cudaFreeMipmappedArray": {"mipmapped"},
    "free": {"malloc"},
    "delete": {"new"},
    "delete[]": {"new[]"},
}
CUDA_KINDS = {"device", "managed", "pinned", "async", "array", "mipmapped"}
KIND_NAMES = {"device": "device memory", "managed": "managed memory", "pinned": "pinned host memory",
              "async": "stream-ordered device memory", "array": "a CUDA array",
              "mipmapped": "a mipmapped CUDA array", "malloc": "malloc'd host memory",
              "new": "`new` memory", "new[]": "`new[]` memory"}
RIGHT_RELEASE = {"device": "cudaFree", "managed": "cudaFree", "async": "cudaFreeAsync",
                 "pinned": "cudaFreeHost", "array": "cudaFreeArray", "mipmapped": "cudaFreeMipmappedArray",
                 "malloc": "free", "new": "delete", "new[]": "delete[]"}
_API = re.compile(r"^(cuda|cublas|cusparse|cufft|curand|cusolver|nccl|cu)[A-Z]")
_API_OWNING = {"cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaGraphAddMemFreeNode",
               "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelExC"}
_HARMLESS = {"printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "fflush", "memcpy", "memset",
             "memcmp", "memmove", "strlen", "assert", "dim3", "get", "data", "size"}
_SYNC_ALL = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaMemcpy", "cudaMemcpy2D",
             "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaFree", "cudaFreeHost",
             "cudaDeviceReset"}
_ASYNC_D2H = {"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpyFromSymbolAsync", "cudaMemcpyPeerAsync"}
MAX_STEPS = 40000


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Leak:
    name: str
    kind: str
    alloc: str  # the allocating call
    alloc_loc: Loc
    exit_loc: Loc
    implicit: bool  # fell off the end
    path: tuple  # decisions after the allocation, as text


@dataclass(frozen=True)
class DoubleFree:
    name: str
    alloc: str
    alloc_loc: Loc
    first: str
    first_loc: Loc
    second: str
    second_loc: Loc
    path: tuple = ()  # decisions between the two releases


@dataclass(frozen=True)
class Mismatch:
    name: str
    kind: str
    alloc: str
    alloc_loc: Loc
    release: str
    release_loc: Loc


@dataclass(frozen=True)
class Unsync:
    var: str
    access_loc: Loc
    text: str
    write: bool
    source: str  # the call that may still be writing
    source_loc: Loc
    stream: str
    path: tuple = ()  # decisions between the write and the access


@dataclass
class FlowResult:
    leaks: list
    double_frees: list
    mismatches: list
    unsync: list
    truncated: bool = False


# ---------------------------------------------------------------------------- the graph


@dataclass(frozen=True)
class Decision:
    text: str  # how the path reads: "`cudaMemcpy` fails at line 41"
    test: H.Test | None = None
    sense: str | None = None  # the test's sense on this edge
    fact: tuple | None = None  # (cond text, value) for side-effect-free conditions


class _Graph:
    def __init__(self):
        self.ev: list = []  # event or None
        self.edges: list = []  # [(target, Decision | None)]
        self.labels: dict = {}
        self.gotos: list = []

    def new(self, ev=None, edges=()):
        self.ev.append(ev)
        self.edges.append(list(edges))
        return len(self.ev) - 1

    def chain(self, events, k):
        for e in reversed(events):
            k = self.new(e, [(k, None)]) if not (isinstance(e, H.Call) and e.noreturn) else self.new(e)
        return k

    def block(self, stmts, k, ctx):
        for s in reversed(stmts):
            k = self.lower(s, k, ctx)
        return k

    def lower(self, s, k, ctx):
        if isinstance(s, H.Block):
            return self.block(s.stmts, k, ctx)
        if isinstance(s, H.If):
            t = self.block(s.then.stmts, k, ctx)
            e = self.block(s.orelse.stmts, k, ctx) if s.orelse is not None else k
            pure = not s.cond
            b = self.new(None, [(t, _decision(s, True, pure)), (e, _decision(s, False, pure))])
            return self.chain(s.cond, b)
        if isinstance(s, H.Loop):
            if s.once:
                return self.block(s.body.stmts, k, dict(ctx, brk=k, cont=k))
            head = self.new()
            cond = self.chain(s.cond, head)
            step = self.chain(s.step, cond)
            cont = cond if s.do_while else step
            body = self.block(s.body.stmts, cont, dict(ctx, brk=k, cont=cont))
            self.edges[head] = [(body, None)] if s.infinite else [(body, None), (k, None)]
            return body if s.do_while else cond
        if isinstance(s, H.Switch):
            sw = self.new()
            cases: list = []
            self.block(s.body.stmts, k, dict(ctx, brk=k, cases=cases))
            edges = [(n, Decision(f"`switch ({s.text})` takes `{text}` at line {loc.line}")) for n, text, loc in cases]
            if not any(text == "default" for _, text, _ in cases):
                edges.append((k, Decision(f"`switch ({s.text})` matches no case at line {s.loc.line}")))
            self.edges[sw] = sorted(edges, key=lambda e: e[0])
            return self.chain(s.cond, sw)
        if isinstance(s, H.Case):
            n = self.new(None, [(k, None)])
            if "cases" in ctx:
                ctx["cases"].append((n, s.text, s.loc))
            return n
        if isinstance(s, (H.Return, H.Exit)):
            return self.new(s)
        if isinstance(s, H.Jump):
            if s.kind == "goto":
                n = self.new()
                self.gotos.append((n, s.label))
                return n
            target = ctx.get("brk" if s.kind == "break" else "cont")
            return self.new(None, [(target, None)] if target is not None else [])
        if isinstance(s, H.Label):
            n = self.new(None, [(k, None)])
            self.labels[s.name] = n
            return n
        return self.chain([s], k)


def _decision(s: H.If, taken: bool, pure: bool) -> Decision:
    t = s.test
    fact = (s.text, taken) if pure and t is None else None
    if t is None:
        return Decision(f"`{s.text}` is {'true' if taken else 'false'} at line {s.loc.line}", fact=fact)
    sense = t.sense if taken else {"fail": "ok", "ok": "fail", "null": "nonnull", "nonnull": "null"}[t.sense]
    return Decision("", test=t, sense=sense, fact=(s.text, taken) if pure else None)


def build_graph(fn_body: H.Block) -> tuple[_Graph, int]:
    g = _Graph()
    end = g.new()  # unreachable sink (bodies end with an implicit Return)
    entry = g.block(fn_body.stmts, end, {})
    for n, label in g.gotos:
        if label in g.labels:
            g.edges[n] = [(g.labels[label], None)]
    return g, entry


# ---------------------------------------------------------------------------- the state


class _State:
    __slots__ = ("binds", "allocs", "results", "pending", "facts", "trail", "born", "_key")

    def __init__(self):
        self.binds = {}  # var -> alloc site
        self.allocs = {}  # site -> (status, kind, name, alloc call, loc, release name, release loc)
        self.results = {}  # var -> call id whose cudaError_t it holds
        self.pending = {}  # (var, source id) -> (stream, events, source name, loc)
        self.facts = {}  # cond text -> bool
        self.trail = ()  # decisions taken, as text
        self.born = {}  # site -> len(trail) when allocated
        self._key = None  # set once the state is on the walk's stack (never changed after that)

    def copy(self):
        s = _State()
        s.binds, s.allocs, s.results = dict(self.binds), dict(self.allocs), dict(self.results)
        s.pending, s.facts, s.trail, s.born = dict(self.pending), dict(self.facts), self.trail, dict(self.born)
        return s

    def key(self):
        if self._key is None:
            self._key = (frozenset(self.binds.items()), frozenset((k, v[0]) for k, v in self.allocs.items()),
                         frozenset(self.results.items()), frozenset(self.pending.items()),
                         frozenset(self.facts.items()))
        return self._key


def stream_text(t: str | None) -> str:
    t = (t or "").strip()
    return "0" if t in ("", "0", "nullptr", "NULL", "cudaStreamLegacy", "(cudaStream_t)0") else t


# ---------------------------------------------------------------------------- the analysis


class _Flow:
    def __init__(self, fn, launch_writes):
        self.fn = fn
        self.launch_writes = launch_writes or (lambda call, i: True)
        self.out = FlowResult([], [], [], [])
        self.seen = set()
        self.calls = {}

    def run(self, g, entry):
        for e in g.ev:
            if isinstance(e, H.Call):
                self.calls[e.id] = e
        stack = [(entry, _State())]
        visited = set()
        steps = 0
        while stack:
            node, st = stack.pop()
            key = (node, st.key())
            if key in visited:
                continue
            visited.add(key)
            steps += 1
            if steps > MAX_STEPS:
                self.out.truncated = True
                break
            ev = g.ev[node]
            if ev is not None:
                if not _inert(ev):
                    st = st.copy()
                if not self.event(ev, st):
                    continue
            for target, dec in reversed(g.edges[node]):
                nst = st
                if dec is not None:
                    nst = self.decide(dec, st)
                    if nst is None:
                        continue
                stack.append((target, nst))
        return self.out

    # -- branches ----------------------------------------------------------
    def decide(self, dec: Decision, st: _State):
        if dec.fact is not None:
            text, val = dec.fact
            if st.facts.get(text, val) != val:
                return None  # contradicts what this path already decided
        s = st.copy()
        if dec.fact is not None:
            s.facts[dec.fact[0]] = dec.fact[1]
        t = dec.test
        if t is None:
            if dec.text:
                s.trail += (dec.text,)
            return s
        subject = t.subject
        if subject[0] == "var" and t.kind == "status":
            cid = s.results.get(subject[1])
            subject = ("call", cid) if cid is not None else None
        if subject is None:
            return s
        if t.kind == "status":
            cid = subject[1]
            call = self.calls.get(cid)
            if dec.sense == "fail" and call is not None:
                if cid in s.allocs:
                    self.drop(s, cid)
                s.trail += (f"`{call.name}` fails at line {call.loc.line}",)
            return s
        site = s.binds.get(subject[1])
        if site is not None and dec.sense == "null" and s.allocs.get(site, ("",))[0] == "live":
            self.drop(s, site)
        return s

    def drop(self, s: _State, site):
        s.allocs.pop(site, None)
        for v in [v for v, x in s.binds.items() if x == site]:
            del s.binds[v]

    # -- events ------------------------------------------------------------
    def event(self, ev, st: _State) -> bool:
        """Apply ev to st; False when the path ends here."""
        if isinstance(ev, H.Call):
            return self.call(ev, st)
        if isinstance(ev, H.Assign):
            self.assign(ev, st)
        elif isinstance(ev, H.Access):
            for (var, src), (stream, _, name, loc) in st.pending.items():
                if var == ev.var and (ev.loc, src) not in self.seen:
                    self.seen.add((ev.loc, src))
                    path = st.trail[st.born.get(("pend", var, src), len(st.trail)):]
                    self.out.unsync.append(Unsync(var, ev.loc, ev.text, ev.write, name, loc, stream, path))
        elif isinstance(ev, H.Delete):
            self.release(ev.arg, "delete[]" if ev.array else "delete", ev.loc, ev.id, st)
        elif isinstance(ev, H.Return):
            if ev.value is not None:
                for n in _names(ev.value):
                    self.escape(n, st)
            if self.fn.name != "main":
                self.leaks(ev, st)
            return False
        elif isinstance(ev, H.Exit):
            return False
        return True

    def call(self, c: H.Call, st: _State) -> bool:
        if c.noreturn:
            return False
        name, args = c.name, c.args
        if name in ALLOC_OUT and args:
            a0 = args[0]
            if a0.kind == "addr" and a0.scope == "local":
                self.bind(st, a0.name, c.id)
                st.allocs[c.id] = ("live", ALLOC_OUT[name], a0.name, name, c.loc, None, None)
                st.born[c.id] = len(st.trail)
            for a in args[1:]:
                if a.kind == "addr":
                    self.escape(a.name, st)
            return True
        if name in RELEASE and args:
            self.release(args[0], name, c.loc, c.id, st)
            if name in _SYNC_ALL:
                st.pending.clear()
            return True
        if c.launch:
            for i, a in enumerate(args):
                var = a.name if a.kind == "var" else a.root
                site = st.binds.get(var) if var else None
                if site is not None and st.allocs.get(site, ("",))[1] == "managed" and self.launch_writes(c, i):
                    st.pending[(var, c.id)] = (c.stream or "0", frozenset(), f"kernel `{name}`", c.loc)
                    st.born[("pend", var, c.id)] = len(st.trail)
            return True
        if _API.match(name) and name not in _API_OWNING:
            self.api(c, st)
            return True
        if name in _HARMLESS:
            return True
        for a in list(args) + ([c.receiver] if c.receiver is not None and name != "operator=" else []):
            for n in _names(a):
                self.escape(n, st)
        st.pending.clear()  # a function we cannot see may synchronize
        return True

    def api(self, c: H.Call, st: _State):
        name, args = c.name, c.args
        for a in args:
            if a.kind == "addr" and a.scope == "local":  # cudaMemcpyToSymbol(sym, &d, ...) copies the pointer
                self.escape(a.name, st)
        if name in _SYNC_ALL:
            st.pending.clear()
        elif name == "cudaStreamSynchronize" and args:
            s = stream_text(args[0].text)
            for k in [k for k, v in st.pending.items() if v[0] == s or s == "0"]:
                del st.pending[k]
        elif name == "cudaEventRecord" and args:
            e = args[0].text
            s = stream_text(args[1].text) if len(args) > 1 else "0"
            for k, v in list(st.pending.items()):
                if v[0] == s or s == "0":
                    st.pending[k] = (v[0], v[1] | {e}, v[2], v[3])
        elif name == "cudaEventSynchronize" and args:
            e = args[0].text
            for k in [k for k, v in st.pending.items() if e in v[1]]:
                del st.pending[k]
        elif name in _ASYNC_D2H and args and any("DeviceToHost" in a.text for a in args):
            dst = args[0].name if args[0].kind == "var" else args[0].root
            if dst:
                s = stream_text(args[-1].text) if len(args) >= 5 and "DeviceToHost" not in args[-1].text else "0"
                st.pending[(dst, c.id)] = (s, frozenset(), f"`{name}`", c.loc)
                st.born[("pend", dst, c.id)] = len(st.trail)

    def assign(self, a: H.Assign, st: _State):
        v, t = a.value, a.target
        site = None
        if v.kind == "var":
            site = st.binds.get(v.name)
        elif v.kind == "call" and v.name in ALLOC_RET:
            site = ("ret", v.call_id)
        elif v.kind in ("new", "new[]"):
            site = ("new", v.call_id)
        local = t.kind == "var" and t.scope == "local"
        if not local:
            for n in _names(v):
                self.escape(n, st)
            return
        if site is not None and site not in st.allocs:  # a fresh malloc/new
            kind = "malloc" if site[0] == "ret" else v.kind
            st.allocs[site] = ("live", kind, t.name, v.name if site[0] == "ret" else v.kind, a.loc, None, None)
            st.born[site] = len(st.trail)
        self.bind(st, t.name, site)
        if v.kind == "call" and v.call_id is not None:
            st.results[t.name] = v.call_id
        elif v.kind == "var" and v.name in st.results:
            st.results[t.name] = st.results[v.name]
        else:
            st.results.pop(t.name, None)
        for text in [x for x in st.facts if _mentions(x, t.name)]:
            del st.facts[text]

    def bind(self, st: _State, name: str, site):
        old = st.binds.pop(name, None)
        for k in [k for k in st.binds if k.startswith(name + ".")]:
            del st.binds[k]
        if old is not None and old not in st.binds.values():
            rec = st.allocs.get(old)
            if rec is not None and rec[0] == "live":  # overwritten while live: lost; we stay quiet
                st.allocs[old] = ("escaped",) + rec[1:]
        if site is not None:
            st.binds[name] = site

    def escape(self, name: str | None, st: _State):
        if not name:
            return
        for v, site in list(st.binds.items()):
            if v == name or v.startswith(name + "."):
                rec = st.allocs.get(site)
                if rec is not None and rec[0] == "live":
                    st.allocs[site] = ("escaped",) + rec[1:]

    def release(self, arg: H.Arg, rel: str, loc: Loc, rid, st: _State):
        site = None
        for n in _names(arg):
            site = st.binds.get(n)
            if site is None and "." in n:
                site = st.binds.get(n.rsplit(".", 1)[0])
            if site is not None:
                break
        if site is None or site not in st.allocs:
            return
        status, kind, name, alloc, aloc, first, first_loc = st.allocs[site]
        if status == "freed":
            if (rid, site, "df") not in self.seen:
                self.seen.add((rid, site, "df"))
                path = st.trail[st.born.get(("freed", site), len(st.trail)):]
                self.out.double_frees.append(DoubleFree(name, alloc, aloc, first, first_loc, rel, loc, path))
            return
        if kind not in RELEASE[rel] and (rid, site, "mm") not in self.seen:
            self.seen.add((rid, site, "mm"))
            self.out.mismatches.append(Mismatch(name, kind, alloc, aloc, rel, loc))
        st.allocs[site] = ("freed", kind, name, alloc, aloc, rel, loc)
        st.born[("freed", site)] = len(st.trail)

    def leaks(self, ret: H.Return, st: _State):
        for site, (status, kind, name, alloc, aloc, _, _) in st.allocs.items():
            if status != "live" or kind not in CUDA_KINDS:
                continue
            key = (ret.loc, site, "leak")
            if key in self.seen:
                continue
            self.seen.add(key)
            path = st.trail[st.born.get(site, 0):]
            self.out.leaks.append(Leak(name, kind, alloc, aloc, ret.loc, ret.implicit, path))


def _inert(ev) -> bool:
    """Events that leave the state as it is (the walk then shares it instead of copying)."""
    if isinstance(ev, H.Access):
        return True  # reported against the state, never changes it
    return (isinstance(ev, H.Call) and ev.name in _HARMLESS and not ev.noreturn and not ev.launch
            and ev.name not in ALLOC_OUT and ev.name not in RELEASE and not (_API.match(ev.name) and
                                                                              ev.name not in _API_OWNING))


def _names(a: H.Arg | None):
    if a is None:
        return []
    if a.kind in ("var", "addr"):
        return [a.name]
    return [a.root] if a.root else []


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def analyze(fn, launch_writes=None) -> FlowResult:
    """Leaks, double frees, mismatched frees and unsynchronized host accesses of one host
    function (a `cudalint.model.HostFunction` whose body the front end built)."""
    if fn.body is None:
        return FlowResult([], [], [], [])
    g, entry = build_graph(fn.body)
    if not _touches_memory(g):
        return FlowResult([], [], [], [])
    return _Flow(fn, launch_writes).run(g, entry)


_MEMORY_CALLS = set(ALLOC_OUT) | set(ALLOC_RET) | set(RELEASE) | _ASYNC_D2H


def _touches_memory(g) -> bool:
    """Whether the function (its graph) allocates, frees or copies asynchronously at all: the
    path walk of a large host file's other functions finds nothing and costs seconds."""
    for e in g.ev:
        if isinstance(e, H.Call) and e.name in _MEMORY_CALLS or isinstance(e, H.Delete):
            return True
        if isinstance(e, H.Assign) and e.value is not None and (e.value.kind in ("new", "new[]") or
                                                              e.value.kind == "call" and e.value.name in ALLOC_RET):
            return True
    return False


def analyze_file(ctx):
    """Every host function of the file, once per file (the four rules share it)."""
    def compute():
        writes = _launch_writes(ctx.model)
        return [(fn, analyze(fn, writes)) for fn in ctx.model.host_functions]
    return ctx.shared("hostflow", compute)


def _launch_writes(model):
    """(launch, argument index) -> whether the kernel may write through that argument."""
    from cudalint.model import Access
    kernels = {}
    for k in model.kernels:
        kernels.setdefault(k.name.split("<")[0], []).append(k)

    def writes(call, i):
        ks = kernels.get(call.name)
        if not ks:
            return True
        for k in ks:
            if i >= len(k.params):
                return True
            p = k.params[i]
            if any(isinstance(e, Access) and e.array.name == p and e.kind != "read" for e in k.events):
                return True
        return False
    return writes
