"""One path of the host walk (hostflow): its state, and what each change of ownership does to it.

A `PathState` says which variable holds which allocation and each allocation's status (see
hostflow for the statuses). `Ownership` applies what the walk meets: an allocation bound to a
variable, handed on, released or lost; double frees, mismatched releases and leaks are
reported into the walk's `FlowResult` as they happen, once per place.
"""

from __future__ import annotations

from cudalint import host_model as H
from cudalint.analysis import summaries as S
from cudalint.analysis.hostkinds import (CUDA_KINDS, RELEASE, DoubleFree, FlowResult, MemoryLeak, Mismatch,
                                         UseAfterFree)
from cudalint.analysis.hostparts import Part, Statuses
from cudalint.model import Loc


class PathState:
    """What one path of the walk knows; equal states at a node are merged (`key`)."""

    __slots__ = ("binds", "allocs", "results", "pending", "facts", "trail", "fails", "born", "last_call", "_key")

    def __init__(self):
        self.binds = Part.empty()  # var -> alloc site
        self.allocs = Statuses.empty()  # site -> (status, kind, name, alloc call, loc, release name, release loc)
        self.results = Part.empty()  # var -> call id whose cudaError_t it holds
        self.pending = Part.empty()  # (var, source id) -> (stream, events, source name, loc)
        self.facts = Part.empty()  # cond text -> bool (switches: -> ("is", label) | ("not", labels))
        self.trail = ()  # decisions taken, as text
        self.fails = ()  # (index in trail, call name, Loc) of each call this path takes as failed
        self.born = {}  # site -> len(trail) when allocated; also what freed a site, which calls failed
        self.last_call = None  # id of the latest CUDA call (what cudaGetLastError reports on)
        self._key = None  # set once the state is on the walk's stack (never changed after that)

    def copy(self):
        s = PathState.__new__(PathState)
        s.binds, s.allocs, s.results = self.binds.clone(), self.allocs.clone(), self.results.clone()
        s.pending, s.facts, s.born = self.pending.clone(), self.facts.clone(), dict(self.born)
        s.trail, s.fails, s.last_call, s._key = self.trail, self.fails, self.last_call, None
        return s

    def failed_since(self, start: int) -> tuple:
        """(call name, Loc) of the calls this path took as failed from trail entry `start` on."""
        return tuple((name, loc) for i, name, loc in self.fails if i >= start)

    def key(self):
        if self._key is None:
            self._key = (self.binds.frozen_form(), self.allocs.frozen_form(), self.results.frozen_form(),
                         self.pending.frozen_form(), self.facts.frozen_form(), self.last_call)
        return self._key


class Ownership:
    """The ownership changes of one function's walk, reporting into `out`."""

    def __init__(self, fn):
        self.fn = fn
        self.out = FlowResult([], [], [], [], outcomes=[])
        self.seen = set()  # what was reported, so each place is reported once
        self.leak_at = {}  # (exit, allocation site) -> index of its leak in out.leaks
        self.params = {name: i for i, (name, _) in enumerate(getattr(fn, "params", ()))}

    def param_site(self, st: PathState, name: str):
        site = ("param", name)
        st.allocs[site] = ("param", "param", name, "parameter", self.fn.loc, None, None)
        st.binds[name] = site
        return site

    def lazy_param_site(self, st: PathState, name: str):
        """A field or pointee of a parameter, tracked from its first mention."""
        root = S.slot_parts(name)[0]
        return self.param_site(st, name) if name != root and root in self.params else None

    def drop(self, s: PathState, site):
        rec = s.allocs.get(site)
        if rec is not None and rec[0] == "param":  # a null parameter: releasing it is a no-op
            s.allocs[site] = ("null",) + rec[1:]
            return
        s.allocs.pop(site, None)
        for v in [v for v, x in s.binds.items() if x == site]:
            del s.binds[v]

    def owned_here(self, target: str, a0: H.HostArg) -> bool:
        """Whether an allocation into `target` is this function's to release."""
        return a0.kind == "addr" and a0.scope == "local" and target.split(".")[0] not in self.params

    def allocate(self, st, target, site, kind, alloc, loc, owned, report=True):
        self.bind(st, target, site, loc, f"`{alloc}`" if report else None)
        st.allocs[site] = ("live" if owned else "out", kind, target, alloc, loc, None, None)
        st.born[site] = len(st.trail)

    def bind(self, st: PathState, name: str, site, loc=None, by=None, decl=False):
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
        self.out.leaks.append(MemoryLeak(name, kind, alloc, aloc, loc, False, path, overwritten_by=how))

    def escape(self, name: str | None, st: PathState, may_reassign=False):
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

    def release(self, arg: H.HostArg, rel: str, loc: Loc, rid, st: PathState, shown=None):
        shown = shown or rel
        site = None
        for n in S.names_of(arg):
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

    def note_uses(self, c: H.Call, st: PathState):
        """A copy, memset or launch through each pointer argument: whether this path released it
        (FlowResult.uses keeps a use only while every path to it did)."""
        for a in c.args:
            var = a.name if a.kind == "var" else a.root if a.kind == "expr" else None
            if not var:
                continue
            key = (c.id, var)
            rec = st.allocs.get(st.binds.get(var))
            if rec is None or rec[0] != "freed":
                self.out.uses[key] = None
            elif key not in self.out.uses:
                _, _, _, alloc, aloc, first, first_loc = rec
                self.out.uses[key] = UseAfterFree(var, c.name, c.loc, first, first_loc, alloc, aloc)

    def leaks(self, ret: H.Return, st: PathState):
        in_main = self.fn.name == "main"
        for site, (status, kind, name, alloc, aloc, _, _) in st.allocs.items():
            if status != "live" or kind not in CUDA_KINDS:
                continue
            start = st.born.get(site, 0)
            leak = MemoryLeak(name, kind, alloc, aloc, ret.loc, ret.implicit, st.trail[start:],
                              in_main=in_main, fails=st.failed_since(start))
            # one witness per exit and allocation: the path that needs the fewest calls to fail
            # (a buffer never freed leaks on the path where everything succeeds)
            at = self.leak_at.get((ret.loc, site))
            if at is None:
                self.leak_at[(ret.loc, site)] = len(self.out.leaks)
                self.out.leaks.append(leak)
            elif (len(leak.fails), len(leak.path)) < (len(self.out.leaks[at].fails), len(self.out.leaks[at].path)):
                self.out.leaks[at] = leak


def _is_param_site(site) -> bool:
    return isinstance(site, tuple) and site[0] == "param"
