"""Path-sensitive lifetime analysis of host functions (CUDA401–CUDA404).

The statement tree of `cudalint.host_model` is lowered to a small control-flow graph
(`hostgraph`); the graph is then explored path by path with a state per path: which variable
holds which allocation, each allocation's status, which `cudaError_t` variable holds which call's
result, which host buffers an async copy or kernel may still be writing, and the values of
side-effect-free conditions already decided on this path. Equal states at a node are merged, so
loops run as many times as it takes for their state to repeat (0, 1, 2, …) and the exploration
is finite; a step budget bounds it anyway (a walk cut short leaves its file reported not fully
checked), and a path goes through at most MAX_FAILURES failed calls. What a path's state holds,
and what binding, handing on and releasing an allocation do to it, is `hoststate`; this module
walks the graph and says what each event means.

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

import gc
import re
from contextlib import contextmanager
from functools import lru_cache

from cudalint import host_model as H
from cudalint.analysis import summaries as S
from cudalint.analysis.hostgraph import Decision, build_graph, switch_fact
from cudalint.analysis.hostkinds import (ALLOC_OUT, ALLOC_RET, API, ASYNC_D2H, HARMLESS, LAST_ERROR, MEMORY_CALLS,
                                         RELEASE, SYNC_ALL, USES, FlowResult, Unsync, is_api)
from cudalint.analysis.hoststate import Ownership, PathState
from cudalint.host_model import stream_text

MAX_STEPS = 40000
# A path is followed through at most this many failed calls. A check that reports a failure and
# carries on forks the walk at each call it wraps, into paths that never meet again (the buffer
# is held on one and not on the other): mergeVS's 20 checked allocations and releases made 2^20
# paths, and the walk stopped at MAX_STEPS. The bugs of error handling (a leak on an early
# return, a buffer freed in the handler and again later) show on a path where one call failed.
MAX_FAILURES = 1


class _Flow(Ownership):
    def __init__(self, fn, launch_writes, summary_of=None, leaks_in_main=True):
        super().__init__(fn)
        self.launch_writes = launch_writes or (lambda call, i: True)
        self.summary_of = summary_of or (lambda call: None)
        self.leaks_in_main = leaks_in_main
        self.calls = {}
        self.status_vars = frozenset()  # the variables a branch tests as a call's status (run)
        self.returned = {}  # call id -> (kind, alloc text) of a helper that returns an allocation

    def run(self, g, entry):
        for e in g.ev:
            if isinstance(e, H.Call):
                self.calls[e.id] = e
        self.status_vars = _status_vars(g)
        with _collector_paused():
            self.walk(g, entry)
        return self.out

    def walk(self, g, entry):
        stack = [(entry, self.initial())]
        visited = set()
        steps = 0
        tested = _tested_ahead(g)
        copies = [ev is not None and not _inert(ev) for ev in g.ev]  # per node: its event changes the state
        # a call's failure is explored last: where paths meet in one state, the first to get
        # there is the witness, and the one where every call succeeds reads best
        order = [sorted(reversed(edges), key=_fails_first) for edges in g.edges]
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
                if copies[node]:
                    st = st.copy()
                if not self.event(ev, st):
                    continue
            for target, dec in order[node]:
                if dec is None:
                    stack.append((target, _without_dead_facts(st, tested[target])))
                    continue
                nst = self.decide(dec, st)
                if nst is not None:  # a copy of its own: dead facts can go in place
                    _drop_dead_facts(nst, tested[target])
                    stack.append((target, nst))

    def initial(self) -> PathState:
        """Each parameter holds something the caller owns: tracked so the summary can say
        whether this function frees it, keeps it, or hands it on."""
        st = PathState()
        for name in self.params:
            self.param_site(st, name)
        return st

    # -- branches ----------------------------------------------------------
    def decide(self, dec: Decision, st: PathState):
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
                if len(s.fails) >= MAX_FAILURES:
                    return None
                # `cudaMalloc(&a); if (cudaGetLastError() != cudaSuccess)`: the allocation failed
                failed = {cid, s.last_call} if call.name in LAST_ERROR else {cid}
                for site in [x for x in s.allocs if x in failed or (isinstance(x, tuple) and x[:2] == ("sum", cid))]:
                    self.drop(s, site)
                for site in [x for x in s.allocs if _released_by(s.born.get(("freed by", x)), cid)]:
                    self.drop(s, site)  # a release that failed (a bad pointer, a dead context): nothing to judge
                s.born[("failed", call.text, call.loc)] = True
                s.fails += ((len(s.trail), call.shown_name, call.loc),)
                s.trail += (f"`{call.shown_name}` fails at line {call.loc.line}",)
            return s
        if subject[0] != "var":  # a null test of a call's result (`strstr(..) != NULL`): nothing it returns is held
            return s
        site = s.binds.get(subject[1]) or self.lazy_param_site(s, subject[1])
        if site is not None and dec.sense == "null" and s.allocs.get(site, ("",))[0] in ("live", "param"):
            self.drop(s, site)
        return s

    # -- events ------------------------------------------------------------
    def event(self, ev, st: PathState) -> bool:
        """Apply ev to st; False when the path ends here."""
        if isinstance(ev, H.Call):
            return self.call(ev, st)
        if isinstance(ev, H.Assign):
            self.assign(ev, st)
        elif isinstance(ev, H.HostAccess):
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

    def call(self, c: H.Call, st: PathState) -> bool:
        if c.noreturn:
            return False
        if ("failed", c.text, c.loc) in st.born:  # a check macro evaluating the failed call again
            return True  # (`fprintf(.., cudaGetErrorString(status))` with status `cudaMalloc(..)`)
        name, args = c.name, c.args
        if (API.match(name) or c.launch) and name not in LAST_ERROR:
            st.last_call = c.id
        for a in args:  # `cudaGetDeviceCount(&n)`, `memset(&ok, ..)`: what the path knew of n is gone
            if a.kind == "addr" and a.name:
                _forget(st, a.name)
        if c.launch or name in USES:
            self.note_uses(c, st)
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

    def apply(self, summary: S.Summary, c: H.Call, st: PathState):
        """A call to a function of this file: what its summary says it does to each argument."""
        for k, e in enumerate(summary.effects):
            arg = c.args[e.param] if e.param < len(c.args) else None
            target = S.caller_name(arg, e) if arg is not None else None
            shown = f"{e.call}` in `{summary.name}"
            if target is None:
                for n in _names(arg):
                    self.escape(n, st)
            elif e.action == "free":  # e.call is "cudaFree` in `inner" where the callee frees through a helper
                self.release(H.HostArg("var", target, root=target.split(".")[0]), e.call.split("`")[0], c.loc,
                             (c.id, k), st, shown)
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

    def api(self, c: H.Call, st: PathState):
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

    def assign(self, a: H.Assign, st: PathState):
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
        # only a status test reads which call a variable holds the result of: `k = atof(argv[1])`
        # on one path and not on another does not keep the paths apart
        if t.name in self.status_vars:
            if v.kind == "call" and v.call_id is not None:
                st.results[t.name] = v.call_id
            elif v.kind == "var" and v.name in st.results:
                st.results[t.name] = st.results[v.name]
            else:
                st.results.pop(t.name, None)
        _forget(st, t.name)
        constant = _CONSTANT.fullmatch(v.text.strip())
        if local and constant:  # a flag: `owned = 0` decides `if (owned)`
            st.facts[t.name] = constant.group() == "true" or bool(constant.group(1) and int(constant.group(1)))


_CONSTANT = re.compile(r"(-?\d+)[uUlL]*|true|false")


def _fails_first(edge) -> bool:
    """Sort key that puts the edges where a call fails before the others on the stack."""
    dec = edge[1]
    return not (dec is not None and dec.sense == "fail")


def _status_vars(g) -> frozenset:
    """The variables some branch of the graph tests as the status of the call they hold
    (`if (err != cudaSuccess)`): only those need the call they hold (PathState.results)."""
    return frozenset(dec.test.subject[1] for edges in g.edges for _, dec in edges
                     if dec is not None and dec.test is not None and dec.test.kind == "status"
                     and dec.test.subject[0] == "var")


def _tested_ahead(g) -> list:
    """Per node, the conditions (fact keys) that a branch reachable from it decides on before an
    assignment makes the path forget them: what a path knows of any other condition can no
    longer keep it from a branch."""
    tested = [set() for _ in g.edges]
    before = [[] for _ in g.edges]
    for node, edges in enumerate(g.edges):
        for target, _ in edges:
            before[target].append(node)
    # a backward fixed point (loops carry what their later branches test): a node is looked at
    # again only when what a successor tests has grown
    todo = list(range(len(g.edges)))  # popped from the end: the last node first
    waiting = set(todo)
    while todo:
        node = todo.pop()
        waiting.discard(node)
        ahead = set()
        for target, dec in g.edges[node]:
            ahead |= tested[target]
            if dec is not None and dec.fact is not None:
                ahead.add(dec.fact[0])
            if dec is not None and dec.case is not None:
                ahead.add(dec.case.key)
        forgotten = _forgotten_by(g.ev[node])
        if forgotten:
            ahead = {text for text in ahead if not _mentions(text, forgotten)}
        if ahead != tested[node]:
            tested[node] = ahead
            for prev in before[node]:
                if prev not in waiting:
                    waiting.add(prev)
                    todo.append(prev)
    return [frozenset(t) for t in tested]


def _forgotten_by(ev) -> str | None:
    """The variable an event always makes the path forget conditions on (Flow.assign)."""
    if isinstance(ev, H.Assign) and ev.target.kind == "var" and ev.target.scope == "local":
        return ev.target.name
    return None


def _without_dead_facts(st: PathState, tested: frozenset) -> PathState:
    """`st` less what it knows of conditions no branch ahead decides on, so that paths which
    differ only there merge (a dozen checked calls made `main`'s walk 2^12 paths, all alike)."""
    if st.facts.keys() <= tested:
        return st
    s = st.copy()
    _drop_dead_facts(s, tested)
    return s


def _drop_dead_facts(st: PathState, tested: frozenset) -> None:
    for text in [text for text in st.facts if text not in tested]:
        del st.facts[text]


@contextmanager
def _collector_paused():
    """The walk makes no reference cycles, yet the collector's passes over the keys it keeps
    (tens of thousands) were a quarter of mergeVS's walk; a walk inside a walk (a helper's
    summary) leaves the collector to the outer one."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _forget(st: PathState, name: str) -> None:
    """What the path knew of conditions on `name`: gone once it is assigned or passed by address."""
    for text in [x for x in st.facts if _mentions(x, name)]:
        del st.facts[text]


def _alloc_target(a0: H.HostArg) -> str | None:
    """The variable an allocation call writes: `&p` -> p, `&s.p` -> s.p, `out` (a `T**`) -> *out."""
    if a0.kind == "addr":
        return a0.name
    if a0.kind == "var" and a0.scope in ("param", "member", "global"):
        return "*" + a0.name
    return None


def _inert(ev) -> bool:
    """Events that leave the state as it is (the walk then shares it instead of copying)."""
    if isinstance(ev, H.HostAccess):
        return True  # reported against the state, never changes it
    return (isinstance(ev, H.Call) and ev.name in HARMLESS and not ev.noreturn and not ev.launch
            and ev.name not in ALLOC_OUT and ev.name not in RELEASE and not is_api(ev.name)
            and not any(a.kind == "addr" for a in ev.args))  # `memset(&ok, ..)` forgets facts on ok


_names = S.names_of


@lru_cache(maxsize=1 << 16)  # the fixed point of _tested_ahead asks the same pairs on every round
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


def functions_read(host_calls) -> set:
    """Indices of the host functions (`tu.HostCalls`, what each calls) whose statement trees the
    host analyses read: those that may touch memory (`_touches_memory`: a memory call, new or
    delete, or a call of a function of the file that may), the functions they call (for their
    summaries), and every one where a destructor is among them (`copies`: copies of a class that
    frees in its destructor, anywhere in the file). The others' trees would be built for nothing
    (half the host functions of the HeCBench sample, a fifth of the time their trees took)."""
    by_name: dict = {}
    for i, f in enumerate(host_calls):
        by_name.setdefault(f.name, []).append(i)
    touching = {i for i, f in enumerate(host_calls) if f.allocates or f.calls & MEMORY_CALLS}
    grown = True
    while grown:  # a caller of a function that may touch memory may too
        more = {i for i, f in enumerate(host_calls) if i not in touching
                and any(j in touching for name in f.calls for j in by_name.get(name, ()))}
        touching |= more
        grown = bool(more)
    if any(host_calls[i].name.startswith("~") for i in touching):
        return set(range(len(host_calls)))
    return touching | {j for i in touching for name in host_calls[i].calls for j in by_name.get(name, ())}


def analyze_file(ctx):
    """Every host function of the file, once per file (the four rules share it)."""
    def compute():
        writes = _launch_writes(ctx.model)
        leaks_in_main = ctx.settings.host_leaks_at_exit
        results = S.analyze_all(ctx.model.host_functions, lambda fn, summary_of: analyze(
            fn, writes, summary_of, leaks_in_main))
        for fn, res in results:
            if res.truncated:  # its paths past the cap were not walked: the file is not fully checked
                ctx.capped(f"host function `{fn.name}`", f"stopped after {MAX_STEPS} steps along its paths")
        return results
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
