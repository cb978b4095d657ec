"""Rules: their metadata, discovery from `cudalint.rules`, and selection by code or prefix."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Iterable

from cudalint.findings import DOCS_BRANCH, REPOSITORY_URL, Finding

CATEGORIES = ("data-race", "barrier-divergence", "misaligned-access", "bank-conflict", "memory-leak",
              "double-free", "mismatched-free", "unsynchronized-host-access", "use-after-free", "suppression",
              "deprecated-api")  # deprecated-api: code that relies on behaviour CUDA has removed
DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "GPU confirmation")


@dataclass(frozen=True)
class Rule:
    code: str  # stable, e.g. "CUDA101"
    name: str  # kebab-case, stable
    category: str
    severity: str  # default: error | warning | note
    summary: str
    check: Callable  # (ctx: cudalint.engine.FileContext) -> Iterable[Finding]
    doc: str
    precision: str = "high"
    tags: tuple[str, ...] = ()

    def finding(self, loc, message, kernel=None, related=(), severity=None, properties=()) -> Finding:
        return Finding(rule=self.code, name=self.name, category=self.category,
                       severity=severity or self.severity, path=loc.path, line=loc.line,
                       column=loc.column, end_line=loc.end_line, end_column=loc.end_column,
                       message=message, kernel=kernel, related=tuple(related),
                       properties=tuple(properties))

    @property
    def doc_url(self) -> str:
        """Where the rule's documentation lives: the docstring of its module, in the repository."""
        module = self.check.__module__.rpartition(".")[2]
        return f"{REPOSITORY_URL}/blob/{DOCS_BRANCH}/rules/{module}.py"


_RULES: dict[str, Rule] | None = None


def all_rules() -> dict[str, Rule]:
    """Every rule module in `cudalint.rules` that defines RULE, by code."""
    global _RULES
    if _RULES is None:
        pkg = rules_package()
        found = {}
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            mod = importlib.import_module(f"cudalint.rules.{info.name}")
            rule = getattr(mod, "RULE", None)
            if isinstance(rule, Rule):
                found[rule.code] = rule
        _RULES = dict(sorted(found.items()))
    return _RULES


def rules_package():
    """`cudalint.rules`: installed from rules/ by the package-dir mapping; in a source checkout
    put on sys.path directly (`python -m pytest` from the repo root), loaded from ../rules."""
    try:
        import cudalint.rules as pkg
        return pkg
    except ModuleNotFoundError:
        import importlib.util
        import sys
        from pathlib import Path
        init = Path(__file__).resolve().parent.parent / "rules" / "__init__.py"
        spec = importlib.util.spec_from_file_location("cudalint.rules", init,
                                                      submodule_search_locations=[str(init.parent)])
        pkg = importlib.util.module_from_spec(spec)
        sys.modules["cudalint.rules"] = pkg
        spec.loader.exec_module(pkg)
        return pkg


def resolve(patterns: Iterable[str]) -> set[str]:
    """Codes matching codes, prefixes (`CUDA2`) or names; unknown ones raise ValueError."""
    rules = all_rules()
    out = set()
    for p in patterns:
        p = p.strip()
        if not p:
            continue
        if p.upper() == "ALL":
            out |= set(rules)
            continue
        hit = {c for c, r in rules.items() if c.startswith(p.upper()) or r.name == p.lower()}
        if not hit:
            raise ValueError(f"unknown rule code or prefix: {p!r} (see `cudalint rules`)")
        out |= hit
    return out


def selected(select: Iterable[str], ignore: Iterable[str]) -> list[Rule]:
    rules = all_rules()
    chosen = resolve(select) if list(select) else set(rules)
    chosen -= resolve(ignore)
    return [rules[c] for c in sorted(chosen)]


def make_rule(module_doc: str, **meta) -> Rule:
    """A Rule whose `doc` is its module docstring (the sections users read with `cudalint rule`)."""
    return Rule(doc=(module_doc or "").strip(), **meta)
