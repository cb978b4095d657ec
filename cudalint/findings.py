"""What rules produce: plain frozen records, independent of how they are reported."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

SEVERITIES = ("note", "warning", "error")


@dataclass(frozen=True)
class Related:
    path: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Confirmation:
    status: str  # confirmed | not-reproduced | unsupported | error
    method: str
    detail: str


@dataclass(frozen=True)
class Finding:
    rule: str
    name: str
    category: str
    severity: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    kernel: str | None = None
    related: tuple[Related, ...] = ()
    confirmation: Confirmation | None = None
    properties: tuple = field(default=(), compare=False)  # extra (key, value) pairs, e.g. witness

    def to_dict(self) -> dict:
        d = asdict(self)
        d["related"] = [asdict(r) for r in self.related]
        d["confirmation"] = asdict(self.confirmation) if self.confirmation else None
        d.pop("properties")
        return d

    def with_(self, **changes) -> "Finding":
        return replace(self, **changes)

    def sort_key(self):
        return (self.path, self.line, self.column, self.rule, self.message)
