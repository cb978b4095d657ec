"""A host function's statement tree lowered to a small control-flow graph (for hostflow).

Nodes carry one event (or none); edges carry the `Decision` a branch takes, so the path walk can
print how a path goes and drop paths that contradict themselves: a side-effect-free condition
decided once stays decided until one of its variables is assigned (or passed by address to a
call), a local assigned a constant (`owned = 0`) decides a later `if (owned)`, and that holds for
`switch` too — two switches on the same unchanged value take matching cases (correlated branches).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudalint import host_model as H


@dataclass(frozen=True)
class SwitchCase:
    """A switch edge: `key` names the switched-on text; `label` is the case taken (None:
    default or no case matched); `labels` are all the case labels of that switch."""
    key: str
    label: str | None
    labels: frozenset


@dataclass(frozen=True)
class Decision:
    text: str  # how the path reads: "`cudaMemcpy` fails at line 41"
    test: H.Test | None = None
    sense: str | None = None  # the test's sense on this edge
    fact: tuple | None = None  # (cond text, value) for side-effect-free conditions
    case: SwitchCase | None = None  # for a side-effect-free switch


def switch_fact(known, case: SwitchCase):
    """What this path knows about the switched-on value after taking `case`, or None when the
    edge contradicts what it knew. Facts: ("is", label) or ("not", labels)."""
    if case.label is not None:
        if known is None or (known[0] == "not" and case.label not in known[1]):
            return ("is", case.label)
        return ("is", case.label) if known == ("is", case.label) else None
    if known is None:
        return ("not", case.labels)
    if known[0] == "is":
        return None if known[1] in case.labels else known
    return ("not", known[1] | case.labels)


class Graph:
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
        if isinstance(s, H.HostLoop):
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
            return self.switch(s, k, ctx)
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

    def switch(self, s: H.Switch, k, ctx):
        sw = self.new()
        cases: list = []
        self.block(s.body.stmts, k, dict(ctx, brk=k, cases=cases))
        labels = frozenset(text for _, text, _ in cases if text != "default")
        key = f"switch ({s.text})" if not s.cond else None  # only a side-effect-free value correlates

        def decision(text, label):
            return Decision(text, case=SwitchCase(key, label, labels) if key else None)

        edges = [(n, decision(f"`switch ({s.text})` takes `{text}` at line {loc.line}",
                              None if text == "default" else text)) for n, text, loc in cases]
        if not any(text == "default" for _, text, _ in cases):
            edges.append((k, decision(f"`switch ({s.text})` matches no case at line {s.loc.line}", None)))
        self.edges[sw] = sorted(edges, key=lambda e: e[0])
        return self.chain(s.cond, sw)


def _fact(text: str, taken: bool) -> tuple:
    """(condition, value) with a leading `!` moved into the value: `!early` false is `early` true,
    so `if (early) ...` and `if (!early) ...` on one path take matching branches."""
    text = text.strip()
    while text.startswith("!") and not text.startswith("!="):
        rest = text[1:].strip()
        if re.fullmatch(r"[\w.]+(?:->[\w.]+)*", rest):
            text, taken = rest, not taken
        elif rest.startswith("(") and rest.endswith(")") and _balanced(rest[1:-1]):
            text, taken = rest[1:-1].strip(), not taken
        else:
            break
    return text, taken


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _decision(s: H.If, taken: bool, pure: bool) -> Decision:
    t = s.test
    fact = _fact(s.text, taken) if pure and t is None else None
    if t is None:
        return Decision(f"`{s.text}` is {'true' if taken else 'false'} at line {s.loc.line}", fact=fact)
    sense = t.sense if taken else {"fail": "ok", "ok": "fail", "null": "nonnull", "nonnull": "null"}[t.sense]
    return Decision("", test=t, sense=sense, fact=_fact(s.text, taken) if pure else None)


def build_graph(fn_body: H.Block) -> tuple[Graph, int]:
    g = Graph()
    end = g.new()  # unreachable sink (bodies end with an implicit Return)
    entry = g.block(fn_body.stmts, end, {})
    for n, label in g.gotos:
        if label in g.labels:
            g.edges[n] = [(g.labels[label], None)]
    return g, entry
