"""Host functions as statement trees for the host-memory analyses (filled in by issue 5)."""

from __future__ import annotations

from cudalint.model import HostFunction


def build_host_function(fn, loc_of, text_of) -> HostFunction:
    return HostFunction(name=fn.spelling, loc=loc_of(fn), body=None)
