"""The dicts of a host walk's `PathState` (hoststate): each keeps the frozen form it has in the
state's key until it is changed.

The walk keys every state it reaches (to merge equal ones) and copies it at nearly every step;
most steps change one of its dicts or none, and freezing every dict anew for each key was most
of the walk's time (mergeVS: 1.3 s of 2.5 s). A copy shares the frozen forms of its original,
so a key only freezes what changed since. Every way of changing a dict goes through these
classes and forgets its form.
"""

from __future__ import annotations


class Part(dict):
    """A dict of a path state, with its frozen form (None: changed since it was last made)."""

    __slots__ = ("frozen",)

    @classmethod
    def empty(cls):
        part = cls()
        part.frozen = None
        return part

    def clone(self):
        twin = type(self)(self)
        twin.frozen = self.frozen
        return twin

    def frozen_form(self) -> frozenset:
        if self.frozen is None:
            self.frozen = self.freeze()
        return self.frozen

    def freeze(self) -> frozenset:
        return frozenset(self.items())

    def __setitem__(self, key, value):
        self.frozen = None
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        self.frozen = None

    def pop(self, key, *default):
        if key in self:
            self.frozen = None
        return dict.pop(self, key, *default)

    def popitem(self):
        item = dict.popitem(self)
        self.frozen = None
        return item

    def clear(self):
        if self:  # most clears find nothing pending: the form stays
            self.frozen = None
            dict.clear(self)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other):
        self.update(other)
        return self


class Statuses(Part):
    """The allocations: only their statuses tell states apart. Nearly every step of a walk that
    frees changes one, so the (site, status) pair of each is kept, not made again per key."""

    __slots__ = ("pairs",)

    @classmethod
    def empty(cls):
        part = super().empty()
        part.pairs = {}
        return part

    def clone(self):
        twin = Part.clone(self)
        twin.pairs = self.pairs.copy()
        return twin

    def freeze(self) -> frozenset:
        return frozenset(self.pairs.values())

    def __setitem__(self, site, record):
        Part.__setitem__(self, site, record)
        self.pairs[site] = (site, record[0])

    def __delitem__(self, site):
        Part.__delitem__(self, site)
        del self.pairs[site]

    def pop(self, site, *default):
        self.pairs.pop(site, None)
        return Part.pop(self, site, *default)

    def popitem(self):
        site, record = Part.popitem(self)
        del self.pairs[site]
        return site, record

    def clear(self):
        Part.clear(self)
        self.pairs.clear()
