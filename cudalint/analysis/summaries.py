"""Function summaries within a file: what a host function does to what its caller gives it.

A summary comes from the function's own path walk (hostflow): each returning path records, for
every parameter (and field of one, `b.p`, and pointee, `*out`), whether it was freed, left
alone, or handed on, which allocations it left in them, and whether it returns a fresh one.
The paths combine conservatively: a slot is *freed* only when every path frees it (or finds it
null), an allocation into a slot counts when some path makes it; anything mixed or handed on
makes the argument *escape* at the call site, exactly as an unknown callee does. Recursion and
names that are overloaded in the file have no summary (unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint import host_model as H
from cudalint.model import Loc


@dataclass(frozen=True)
class Effect:
    """What a call does to one slot of an argument: `*arg` (deref), `arg.field`, or `arg`."""
    param: int
    deref: bool
    field: str
    action: str  # free | alloc
    call: str  # the release or allocation inside the callee
    kind: str | None  # allocation kind (alloc)
    loc: Loc


@dataclass(frozen=True)
class Summary:
    name: str
    params: tuple
    effects: tuple = ()
    escapes: frozenset = frozenset()  # parameter indices handed on (the caller forgets them)
    returns: tuple | None = None  # (kind, allocating call) of a returned fresh allocation

    @property
    def acts(self) -> bool:
        return bool(self.effects or self.returns)


@dataclass(frozen=True)
class PathOutcome:
    slots: tuple  # (slot, status, release call, release loc) of the parameters' slots
    allocs: tuple  # (slot, kind, allocating call, loc) left in a parameter's slot
    returns: tuple | None  # (kind, allocating call)


def names_of(a: H.HostArg | None):
    if a is None:
        return []
    if a.kind in ("var", "addr"):
        return [a.name]
    return [a.root] if a.root else []


def slot_parts(name: str) -> tuple[str, bool, str]:
    """`*out` -> (out, True, ''), `b.p` -> (b, False, 'p'), `p` -> (p, False, '')."""
    deref = name.startswith("*")
    root, _, field = name.lstrip("*").partition(".")
    return root, deref, field


def path_outcome(st, ret: H.Return, params: dict) -> PathOutcome | None:
    if not params and ret.value is None:
        return PathOutcome((), (), None)
    returned = {st.binds.get(n) for n in names_of(ret.value)} - {None}
    slots, allocs, returns = [], [], None
    for site, (status, kind, name, alloc, _, rel, rloc) in st.allocs.items():
        if kind == "param":
            slots.append((name, "escaped" if site in returned else status, rel, rloc))
        elif status == "out" and slot_parts(name)[0] in params and st.binds.get(name) == site:
            allocs.append((name, kind, alloc, st.allocs[site][4]))
        elif site in returned and status == "live":
            returns = (kind, alloc)
    return PathOutcome(tuple(slots), tuple(allocs), returns)


def combine(fn, outcomes) -> Summary | None:
    params = tuple(name for name, _ in fn.params)
    index = {name: i for i, name in enumerate(params)}
    if not outcomes:
        return None  # no path returns
    effects, escapes = [], set()
    statuses: dict = {}
    for k, o in enumerate(outcomes):
        for slot, status, rel, loc in o.slots:
            statuses.setdefault(slot, {})[k] = (status, rel, loc)
    for slot, by_path in statuses.items():
        root, deref, field = slot_parts(slot)
        i = index[root]
        seen = [by_path.get(k, ("param", None, None)) for k in range(len(outcomes))]
        if any(s == "escaped" for s, _, _ in seen):
            escapes.add(i)
            continue
        freed = [(rel, loc) for s, rel, loc in seen if s == "freed"]
        if not freed:
            continue  # only read: the caller keeps it
        if all(s in ("freed", "null") for s, _, _ in seen) and len({rel for rel, _ in freed}) == 1:
            effects.append(Effect(i, deref, field, "free", freed[0][0], None, freed[0][1]))
        else:
            escapes.add(i)  # freed on some paths only: cudalint cannot tell the caller's duty
    made: dict = {}
    for o in outcomes:
        for slot, kind, call, loc in o.allocs:
            made.setdefault(slot, set()).add((kind, call, loc))
    for slot, alloc in made.items():
        root, deref, field = slot_parts(slot)
        if len({kind for kind, _, _ in alloc}) != 1 or slot in statuses:
            escapes.add(index[root])
            continue
        kind, call, loc = min(alloc, key=lambda a: (a[2].line, a[2].column))
        effects.append(Effect(index[root], deref, field, "alloc", call, kind, loc))
    rets = {o.returns for o in outcomes if o.returns is not None}
    return Summary(fn.name, params, tuple(e for e in effects if e.param not in escapes), frozenset(escapes),
                   rets.pop() if len(rets) == 1 else None)


def caller_name(arg: H.HostArg, e: Effect) -> str | None:
    """The caller's variable for the callee's slot (None: not a plain variable)."""
    tail = f".{e.field}" if e.field else ""
    if e.deref:
        return arg.name + tail if arg.kind == "addr" else None
    if arg.kind == "var" or arg.kind == "addr" and e.field:
        return arg.name + tail
    return None


def untracked_summary(fn) -> Summary:
    """The summary of a function that allocates and frees nothing: a parameter escapes when it
    is stored, returned or given to a call that is neither the CUDA API nor a launch."""
    from cudalint.analysis.hostkinds import HARMLESS, is_api
    params = tuple(name for name, _ in fn.params)
    index = {name: i for i, name in enumerate(params)}
    escapes = set()

    def mark(arg):
        for n in names_of(arg):
            root = slot_parts(n)[0]
            if root in index:
                escapes.add(index[root])
    for ev in events(fn.body):
        if isinstance(ev, H.Call) and not (ev.launch or is_api(ev.name) or ev.name in HARMLESS):
            for a in ev.args + ((ev.receiver,) if ev.receiver is not None else ()):
                mark(a)
        elif isinstance(ev, H.Assign) and not (ev.target.kind == "var" and ev.target.scope == "local"):
            mark(ev.value)
        elif isinstance(ev, H.Return):
            mark(ev.value)
    return Summary(fn.name, params, escapes=frozenset(escapes))


def events(node):
    """Every event of a statement tree, in no particular order."""
    if node is None:
        return
    if isinstance(node, H.Block):
        for s in node.stmts:
            yield from events(s)
    elif isinstance(node, H.If):
        yield from node.cond
        yield from events(node.then)
        yield from events(node.orelse)
    elif isinstance(node, H.HostLoop):
        yield from node.cond
        yield from node.step
        yield from events(node.body)
    elif isinstance(node, H.Switch):
        yield from node.cond
        yield from events(node.body)
    else:
        yield node


def analyze_all(functions, run):
    """[(fn, FlowResult)] for every function, each run with the summaries of the functions it
    calls (computed first, on demand). run(fn, summary_of) -> FlowResult."""
    by_name: dict = {}
    for fn in functions:
        by_name.setdefault(fn.name, []).append(fn)
    results: dict = {}
    summaries: dict = {}
    busy: set = set()

    def result(fn):
        key = id(fn)
        if key not in results:
            busy.add(key)
            results[key] = run(fn, summary_of)
            busy.discard(key)
        return results[key]

    def summary_of(call):
        fns = by_name.get(call.name)
        if not fns or len(fns) != 1 or fns[0].body is None or fns[0].name == "main":
            return None
        fn = fns[0]
        key = id(fn)
        if key in summaries:
            return summaries[key]
        if key in busy or len(call.args) > len(fn.params):
            return None  # recursion, or a call cudalint cannot match to the parameters
        res = result(fn)
        summaries[key] = (combine(fn, res.outcomes) if res.outcomes is not None
                          else untracked_summary(fn))
        return summaries[key]

    return [(fn, result(fn)) for fn in functions]
