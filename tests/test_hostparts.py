"""The dicts of a host walk's path state (cudalint.analysis.hostparts): the frozen form a state's
key is made of follows every change, and a copy shares it until the copy changes."""

from __future__ import annotations

from cudalint.analysis.hostparts import Part, Statuses
from cudalint.analysis.hoststate import PathState


def test_frozen_form_follows_every_change():
    part = Part.empty()
    part["p"] = 1
    assert part.frozen_form() == frozenset({("p", 1)})
    part["q"] = 2
    assert part.frozen_form() == frozenset({("p", 1), ("q", 2)})
    del part["p"]
    assert part.frozen_form() == frozenset({("q", 2)})
    assert part.pop("q") == 2
    assert part.frozen_form() == frozenset()
    part.update({"a": 1}, b=2)
    assert part.frozen_form() == frozenset({("a", 1), ("b", 2)})
    assert part.setdefault("c", 3) == 3
    part |= {"a": 4}
    assert part.frozen_form() == frozenset({("a", 4), ("b", 2), ("c", 3)})
    assert part.popitem() == ("c", 3)
    assert part.frozen_form() == frozenset({("a", 4), ("b", 2)})
    part.clear()
    assert part.frozen_form() == frozenset()


def test_a_clone_shares_the_form_until_it_changes():
    part = Part.empty()
    part["p"] = 1
    form = part.frozen_form()
    twin = part.clone()
    assert twin.frozen_form() is form
    twin["p"] = 2
    assert twin.frozen_form() == frozenset({("p", 2)})
    assert part == {"p": 1} and part.frozen_form() is form


def test_nothing_to_clear_or_pop_keeps_the_form():
    part = Part.empty()
    form = part.frozen_form()
    part.clear()
    assert part.pop("absent", None) is None
    assert part.frozen_form() is form


def test_statuses_freeze_only_the_status():
    allocs = Statuses.empty()
    allocs[7] = ("live", "device", "d", "cudaMalloc", None, None, None)
    allocs[("param", "p")] = ("param", "param", "p", "parameter", None, None, None)
    assert allocs.frozen_form() == frozenset({(7, "live"), (("param", "p"), "param")})
    twin = allocs.clone()
    twin[7] = ("freed", "device", "d", "cudaMalloc", None, "cudaFree", None)
    assert twin.pop(("param", "p"))[0] == "param"
    assert twin.frozen_form() == frozenset({(7, "freed")})
    assert allocs.frozen_form() == frozenset({(7, "live"), (("param", "p"), "param")})
    twin.clear()
    assert twin.frozen_form() == frozenset() and twin.pairs == {}


def test_a_state_key_tells_changed_copies_apart():
    st = PathState()
    st.binds["d"] = 7
    st.allocs[7] = ("live", "device", "d", "cudaMalloc", None, None, None)
    same, other = st.copy(), st.copy()
    same.allocs[7] = ("live", "device", "d", "cudaMalloc", None, "not in the key", None)
    other.allocs[7] = ("freed", "device", "d", "cudaMalloc", None, "cudaFree", None)
    assert same.key() == st.key()
    assert other.key() == (frozenset({("d", 7)}), frozenset({(7, "freed")}), frozenset(), frozenset(),
                           frozenset(), None)
