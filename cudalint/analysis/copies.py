"""Rule of three for classes that own CUDA memory: a class whose destructor releases a member
with cudaFree/cudaFreeHost/… and whose copy is the implicit (or defaulted) member-wise one. Each
copy leaves two objects holding one pointer; both destructors release it (a double free)."""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.analysis.hostkinds import CUDA_KINDS, RELEASE
from cudalint.analysis.summaries import events
from cudalint import host_model as H
from cudalint.model import Loc

_CUDA_RELEASES = {name for name, kinds in RELEASE.items() if kinds & CUDA_KINDS}


@dataclass(frozen=True)
class Owner:
    cls: str
    field: str
    release: str
    release_loc: Loc  # in the destructor


@dataclass(frozen=True)
class OwnerCopy:
    owner: Owner
    loc: Loc
    text: str


def owners(functions) -> dict:
    """Class name -> Owner, from the destructors of the file."""
    out = {}
    for fn in functions:
        if not fn.name.startswith("~") or fn.body is None:
            continue
        for ev in events(fn.body):
            if isinstance(ev, H.Call) and ev.name in _CUDA_RELEASES and ev.args:
                a = ev.args[0]
                if a.kind == "var" and a.name.startswith("this."):
                    out.setdefault(fn.name[1:], Owner(fn.name[1:], a.name[5:], ev.name, ev.loc))
    return out


def owner_copies(functions) -> list:
    found = owners(functions)
    if not found:
        return []
    return [OwnerCopy(found[ev.cls], ev.loc, ev.text) for fn in functions if fn.body is not None
            for ev in events(fn.body) if isinstance(ev, H.Copy) and ev.cls in found]
