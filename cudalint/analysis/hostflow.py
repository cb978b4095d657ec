"""Path-sensitive lifetime analysis of host functions (CUDA401–CUDA404).

The statement tree of `cudalint.frontend.host` is lowered to a small control-flow graph
(`hostgraph`); the graph is then explored path by path with a state per path: which variable
holds which allocation, each allocation's status, which `cudaError_t` variable holds which call's
result, which host buffers an async copy or kernel may still be writing, and the values of
side-effect-free conditions already decided on this path. Equal states at a node are merged, so
loops run as many times as it takes for their state to repeat (0, 1, 2, …) and the exploration
is finite; a step budget bounds it anyway.

Statuses: live (the function must release it), freed, escaped (handed on: returned, stored in a
member/global/container, given to a function cudalint cannot see), out (allocated straight into
a member, global or out-parameter: someone else releases it, but a second release is still a
double free), and for the function's own parameters: param / null.

What ends an obligation: a release, a failed allocation (`if (cudaMalloc(&p, n) != cudaSuccess)`,
directly or through an error variable; a null test for malloc/new), and an escape. Calls to
functions of the same file apply their summaries (`summaries`): a helper that frees its
argument frees it, one that only reads it leaves the obligation with the caller. Kernel
launches and the CUDA runtime's copy/set calls use a pointer without owning it. `exit`, `abort`
and calls declared `noreturn` end the path without a leak (the process ends).
"""

from __future__ import annotations

import re

from cudalint.analysis import summaries as S
from cudalint.analysis.hostgraph import Decision, build_graph, switch_fact
from cudalint.analysis.hostkinds import (ALLOC_OUT, ALLOC_RET, ASYNC_D2H, CUDA_KINDS, HARMLESS, KIND_NAMES,  # noqa: F401
                                         MEMORY_CALLS, RELEASE, RIGHT_RELEASE, SYNC_ALL, DoubleFree, FlowResult,
                                         Leak, Mismatch, Unsync, is_api)
from cudalint.frontend import host as H
from cudalint.model import Loc

MAX_STEPS = 40000


class _State:
    __slots__ = ("binds", "allocs", "results", "pending", "facts", "trail", "born", "_key")

    def __init__(self):
        self.binds = {}  # var -> alloc site
        self.allocs = {}  # site -> (status, kind, name, alloc call, loc, release name, release loc)
        self.results = {}  # var -> call id whose cudaError_t it holds
        self.pending = {}  # (var, source id) -> (stream, events, source name, loc)
        self.facts = {}  # cond text -> bool (switches: -> ("is", label) | ("not", labels))
        self.trail = ()  # decisions taken, as text
        self.born = {}  # site -> len(trail) when allocated; also what freed a site, which calls failed
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


class _Flow:
    def __init__(self, fn, launch_writes, summary_of=None, leaks_in_main=True):
        self.fn = fn
        self.launch_writes = launch_writes or (lambda call, i: True)
        self.summary_of = summary_of or (lambda call: None)
        self.leaks_in_main = leaks_in_main
        self.out = FlowResult([], [], [], [], outcomes=[])
        self.seen = set()
        self.calls = {}
        self.returned = {}  # call id -> (kind, alloc text) of a helper that returns an allocation
        self.params = {name: i for i, (name, _) in enumerate(getattr(fn, "params", ()))}

    def run(self, g, entry):
        for e in g.ev:
            if isinstance(e, H.Call):
                self.calls[e.id] = e
        stack = [(entry, self.initial())]
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

    def initial(self) -> _State:
        """Each parameter holds something the caller owns: tracked so the summary can say
        whether this function frees it, keeps it, or hands it on."""
        st = _State()
        for name in self.params:
            self.param_site(st, name)
        return st

    def param_site(self, st: _State, name: str):
        site = ("param", name)
        st.allocs[site] = ("param", "param", name, "parameter", self.fn.loc, None, None)
        st.binds[name] = site
        return site

    def lazy_param_site(self, st: _State, name: str):
        """A field or pointee of a parameter, tracked from its first mention."""
        root = S.slot_parts(name)[0]
        return self.param_site(st, name) if name != root and root in self.params else None

    # -- branches ----------------------------------------------------------
    def decide(self, dec: Decision, st: _State):
        if dec.fact is not None:
            text, val = dec.fact
            if st.facts.get(text, val) != val:
                return None  # contradicts what this path already decided
        known = None
        if dec.case is not None:
            known = switch_fact(st.facts.get(dec.case.key), dec.case)
            if known is None:
                return None  # the same unchanged value took another case before
        s = st.copy()
        if dec.fact is not None:
            s.facts[dec.fact[0]] = dec.fact[1]
        if known is not None:
            s.facts[dec.case.key] = known
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
                for site in [x for x in s.allocs if x == cid or (isinstance(x, tuple) and x[:2] == ("sum", cid))]:
                    self.drop(s, site)
                for site in [x for x in s.allocs if _released_by(s.born.get(("freed by", x)), cid)]:
                    self.drop(s, site)  # a release that failed (a bad pointer, a dead context): nothing to judge
                s.born[("failed", call.text, call.loc)] = True
                s.trail += (f"`{call.name}` fails at line {call.loc.line}",)
            return s
        if subject[0] != "var":  # a null test of a call's result (`strstr(..) != NULL`): nothing it returns is held
            return s
        site = s.binds.get(subject[1]) or self.lazy_param_site(s, subject[1])
        if site is not None and dec.sense == "null" and s.allocs.get(site, ("",))[0] in ("live", "param"):
            self.drop(s, site)
        return s

    def drop(self, s: _State, site):
        rec = s.allocs.get(site)
        if rec is not None and rec[0] == "param":  # a null parameter: releasing it is a no-op
            s.allocs[site] = ("null",) + rec[1:]
            return
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
            self.out.outcomes.append(S.path_outcome(st, ev, self.params))
            if ev.value is not None:
                for n in _names(ev.value):
                    self.escape(n, st)
            if self.fn.name != "main" or self.leaks_in_main:
                self.leaks(ev, st)
            return False
        elif isinstance(ev, H.Exit):
            return False
        return True

    def call(self, c: H.Call, st: _State) -> bool:
        if c.noreturn:
            return False
        if ("failed", c.text, c.loc) in st.born:  # a check macro evaluating the failed call again
            return True  # (`fprintf(.., cudaGetErrorString(status))` with status `cudaMalloc(..)`)
        name, args = c.name, c.args
        if name in ALLOC_OUT and args:
            target = _alloc_target(args[0])
            if target is not None:
                self.allocate(st, target, c.id, ALLOC_OUT[name], name, c.loc, self.owned_here(target, args[0]))
            for a in args[1:]:
                if a.kind == "addr":
                    self.escape(a.name, st)
            return True
        if name in RELEASE and args:
            self.release(args[0], name, c.loc, c.id, st)
            if name in SYNC_ALL:
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
        if is_api(name):
            self.api(c, st)
            return True
        if name in HARMLESS:
            return True
        summary = self.summary_of(c) if c.receiver is None else None
        if summary is not None:
            self.apply(summary, c, st)
            return True
        for a in list(args) + ([c.receiver] if c.receiver is not None and name != "operator=" else []):
            for n in _names(a):
                self.escape(n, st, may_reassign=a.kind == "addr" or a.name != a.root)
        st.pending.clear()  # a function we cannot see may synchronize
        return True

    def apply(self, summary: S.Summary, c: H.Call, st: _State):
        """A call to a function of this file: what its summary says it does to each argument."""
        for k, e in enumerate(summary.effects):
            arg = c.args[e.param] if e.param < len(c.args) else None
            target = S.caller_name(arg, e) if arg is not None else None
            shown = f"{e.call}` in `{summary.name}"
            if target is None:
                for n in _names(arg):
                    self.escape(n, st)
            elif e.action == "free":
                self.release(H.Arg("var", target, root=target.split(".")[0]), e.call, c.loc, (c.id, k), st, shown)
            else:
                local = arg.scope == "local"
                self.allocate(st, target, ("sum", c.id, k), e.kind, shown, c.loc, local, report=False)
        for i in summary.escapes:
            if i < len(c.args):
                for n in _names(c.args[i]):
                    self.escape(n, st, may_reassign=True)
        for a in c.args[len(summary.params):]:
            for n in _names(a):
                self.escape(n, st)
        if summary.returns is not None:
            self.returned[c.id] = (summary.returns[0], f"{summary.returns[1]}` in `{summary.name}")
        st.pending.clear()

    def owned_here(self, target: str, a0: H.Arg) -> bool:
        """Whether an allocation into `target` is this function's to release."""
        return a0.kind == "addr" and a0.scope == "local" and target.split(".")[0] not in self.params

    def allocate(self, st, target, site, kind, alloc, loc, owned, report=True):
        self.bind(st, target, site, loc, f"`{alloc}`" if report else None)
        st.allocs[site] = ("live" if owned else "out", kind, target, alloc, loc, None, None)
        st.born[site] = len(st.trail)

    def api(self, c: H.Call, st: _State):
        name, args = c.name, c.args
        for a in args:
            if a.kind == "addr" and a.scope == "local":  # cudaMemcpyToSymbol(sym, &d, ...) copies the pointer
                self.escape(a.name, st)
        if name in SYNC_ALL:
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
        elif name in ASYNC_D2H and args and any("DeviceToHost" in a.text for a in args):
            dst = args[0].name if args[0].kind == "var" else args[0].root
            if dst:
                s = stream_text(args[-1].text) if len(args) >= 5 and "DeviceToHost" not in args[-1].text else "0"
                st.pending[(dst, c.id)] = (s, frozenset(), f"`{name}`", c.loc)
                st.born[("pend", dst, c.id)] = len(st.trail)

    def assign(self, a: H.Assign, st: _State):
        v, t = a.value, a.target
        site, kind, alloc = None, None, None
        if v.kind == "var":
            site = st.binds.get(v.name)
        elif v.kind == "call" and v.name in ALLOC_RET:
            site, kind, alloc = ("ret", v.call_id), "malloc", v.name
        elif v.kind == "call" and v.call_id in self.returned:
            site, (kind, alloc) = ("ret", v.call_id), self.returned[v.call_id]
        elif v.kind in ("new", "new[]"):
            site, kind, alloc = ("new", v.call_id), v.kind, v.kind
        local = t.kind == "var" and t.scope == "local"
        if not local:
            for n in _names(v):
                self.escape(n, st)
            if t.kind == "var" and kind is not None:  # a member, global or out-parameter owns it
                self.allocate(st, t.name, site, kind, alloc, a.loc, False, report=False)
            return
        if kind is not None:  # a fresh allocation, also on a later iteration of a loop
            self.allocate(st, t.name, site, kind, alloc, a.loc, True)
        else:
            by = None if v.root == t.name else "an assignment"
            self.bind(st, t.name, site, a.loc, by, decl=a.decl)
        if v.kind == "call" and v.call_id is not None:
            st.results[t.name] = v.call_id
        elif v.kind == "var" and v.name in st.results:
            st.results[t.name] = st.results[v.name]
        else:
            st.results.pop(t.name, None)
        for text in [x for x in st.facts if _mentions(x, t.name)]:
            del st.facts[text]

    def bind(self, st: _State, name: str, site, loc=None, by=None, decl=False):
        """`name` now holds `site`; a live allocation it held and nothing else holds is lost:
        a leak at this line (`by` says what overwrote it; None: stay quiet). Reported only when
        no branch was decided since that allocation: whether a branch that frees it can be
        skipped usually hangs on values (a loop counter) the walk does not follow."""
        old = st.binds.pop(name, None)
        for k in [k for k in st.binds if k.startswith(name + ".")]:
            del st.binds[k]
        if old is not None and old not in st.binds.values():
            rec = st.allocs.get(old)
            if rec is not None and rec[0] == "live":
                st.allocs[old] = ("escaped",) + rec[1:]
                if by is not None and rec[1] in CUDA_KINDS and len(st.trail) == st.born.get(old, 0):
                    self.overwritten(st, old, rec, loc, by, decl)
        if site is not None:
            st.binds[name] = site

    def overwritten(self, st, site, rec, loc, by, decl):
        key = (loc, site, "lost")
        if key in self.seen:
            return
        self.seen.add(key)
        _, kind, name, alloc, aloc, _, _ = rec
        how = (f"the next iteration declares `{name}` again at line {loc.line}" if decl
               else f"{by} at line {loc.line} overwrites `{name}`")
        path = st.trail[st.born.get(site, 0):]
        self.out.leaks.append(Leak(name, kind, alloc, aloc, loc, False, path, overwritten_by=how))

    def escape(self, name: str | None, st: _State, may_reassign=False):
        """`name` (and what it contains) is handed on. may_reassign: the receiver can also store
        a new pointer there, so what this path knew was freed is forgotten."""
        if not name:
            return
        for v, site in list(st.binds.items()):
            if v == name or v.startswith(name + "."):
                rec = st.allocs.get(site)
                if rec is None:
                    continue
                if rec[0] in ("live", "param", "null"):
                    st.allocs[site] = ("escaped",) + rec[1:]
                elif rec[0] == "freed" and may_reassign:
                    del st.binds[v]

    def release(self, arg: H.Arg, rel: str, loc: Loc, rid, st: _State, shown=None):
        shown = shown or rel
        site = None
        for n in _names(arg):
            site = st.binds.get(n)
            if site is None and "." in n:
                parent = st.binds.get(n.rsplit(".", 1)[0])
                site = None if _is_param_site(parent) else parent
            site = site or self.lazy_param_site(st, n)
            if site is not None:
                break
        if site is None or site not in st.allocs:
            return
        status, kind, name, alloc, aloc, first, first_loc = st.allocs[site]
        if status == "freed":
            if (rid, site, "df") not in self.seen:
                self.seen.add((rid, site, "df"))
                path = st.trail[st.born.get(("freed", site), len(st.trail)):]
                self.out.double_frees.append(DoubleFree(name, alloc, aloc, first, first_loc, shown, loc, path))
            return
        if kind != "param" and kind not in RELEASE[rel] and (rid, site, "mm") not in self.seen:
            self.seen.add((rid, site, "mm"))
            self.out.mismatches.append(Mismatch(name, kind, alloc, aloc, shown, loc))
        st.born[("freed by", site)] = rid
        st.allocs[site] = ("freed", kind, name, alloc, aloc, shown, loc)
        st.born[("freed", site)] = len(st.trail)

    def leaks(self, ret: H.Return, st: _State):
        in_main = self.fn.name == "main"
        for site, (status, kind, name, alloc, aloc, _, _) in st.allocs.items():
            if status != "live" or kind not in CUDA_KINDS:
                continue
            key = (ret.loc, site, "leak")
            if key in self.seen:
                continue
            self.seen.add(key)
            path = st.trail[st.born.get(site, 0):]
            self.out.leaks.append(Leak(name, kind, alloc, aloc, ret.loc, ret.implicit, path, in_main=in_main))


def _is_param_site(site) -> bool:
    return isinstance(site, tuple) and site[0] == "param"


def _alloc_target(a0: H.Arg) -> str | None:
    """The variable an allocation call writes: `&p` -> p, `&s.p` -> s.p, `out` (a `T**`) -> *out."""
    if a0.kind == "addr":
        return a0.name
    if a0.kind == "var" and a0.scope in ("param", "member", "global"):
        return "*" + a0.name
    return None


def _inert(ev) -> bool:
    """Events that leave the state as it is (the walk then shares it instead of copying)."""
    if isinstance(ev, H.Access):
        return True  # reported against the state, never changes it
    return (isinstance(ev, H.Call) and ev.name in HARMLESS and not ev.noreturn and not ev.launch
            and ev.name not in ALLOC_OUT and ev.name not in RELEASE and not is_api(ev.name))


_names = S.names_of


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def analyze(fn, launch_writes=None, summary_of=None, leaks_in_main=True) -> FlowResult:
    """Leaks, double frees, mismatched frees and unsynchronized host accesses of one host
    function (a `cudalint.model.HostFunction` whose body the front end built); `summary_of`
    gives the summary of a called function of the same file (None: not known)."""
    if fn.body is None:
        return FlowResult([], [], [], [])
    g, entry = build_graph(fn.body)
    if not _touches_memory(g, summary_of):
        return FlowResult([], [], [], [])
    return _Flow(fn, launch_writes, summary_of, leaks_in_main).run(g, entry)


def _touches_memory(g, summary_of=None) -> bool:
    """Whether the function (its graph) allocates, frees or copies asynchronously at all, itself
    or through a helper of this file: the path walk of a large host file's other functions finds
    nothing and costs seconds."""
    for e in g.ev:
        if isinstance(e, H.Call) and (e.name in MEMORY_CALLS or summary_of is not None and summary_of(e)
                                      and summary_of(e).acts) or isinstance(e, H.Delete):
            return True
        if isinstance(e, H.Assign) and e.value is not None and (e.value.kind in ("new", "new[]") or
                                                              e.value.kind == "call" and e.value.name in ALLOC_RET):
            return True
    return False


def analyze_file(ctx):
    """Every host function of the file, once per file (the four rules share it)."""
    def compute():
        writes = _launch_writes(ctx.model)
        leaks_in_main = ctx.settings.host_leaks_at_exit
        return S.analyze_all(ctx.model.host_functions, lambda fn, summary_of: analyze(
            fn, writes, summary_of, leaks_in_main))
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


def _released_by(rid, call_id) -> bool:
    """A release's id is its call's, or (call id, argument index) for a call that frees several."""
    return rid == call_id or (isinstance(rid, tuple) and rid[:1] == (call_id,))
