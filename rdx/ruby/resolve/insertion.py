"""Ruby's insertion of modules into one ancestor chain being built, as pure list edits.

A chain under construction is three parallel lists: the entries (declaration ids, ``HEAD`` at
index 0 standing for the class itself ahead of its prepended modules), when each entry joined
(``doc << 32 | offset`` of the mixin call, -1 for the classes themselves) and a token per entry
(unique within the chain, so a late mixin can find the entry it was made through even when the
chain holds a module twice). Nothing here looks a name up or writes a declaration; ``Ancestors``
(ancestors.py) decides what to insert and calls these."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from itertools import count

IsClass = Callable[[int], bool]


@dataclass(slots=True)
class Building:
    """One chain being built: entries, join times and tokens (see the module docstring)."""

    chain: list[int]
    times: list[int]
    tokens: list[int]
    # Entries from the superclass's chain, at the end of ``chain``.
    super_len: int = 0
    _counter: count = field(default_factory=lambda: count(1))

    def insert(self, at: int, entry: int, when: int) -> int:
        token = next(self._counter)
        self.chain.insert(at, entry)
        self.times.insert(at, when)
        self.tokens.insert(at, token)
        return token

    def position(self, token: int) -> int:
        return self.tokens.index(token)


def present_at(chain: Sequence[int], times: Sequence[int], when: int) -> tuple[int, ...]:
    """A module's chain as it was at ``when``: entries that joined later are left out (Ruby
    propagates them into existing includers at their own time, see ``propagate_include``)."""
    return tuple(e for e, t in zip(chain, times, strict=True) if t <= when)


def include(b: Building, modules: Sequence[int], origin: int, when: int, is_class: IsClass, start: int = 1) -> list[int]:
    """Ruby's include after position ``origin``: skip modules already in the chain (scanning from
    ``start``), keep relative order. Returns the tokens of the inserted entries.

    The last ``super_len`` entries are the superclass's chain; reaching them is reaching the
    superclass (Ruby's ``superclass_seen``), whatever the superclass has prepended."""
    chain, times = b.chain, b.times
    c = origin
    added: list[int] = []
    for m in modules:
        c_seen = False
        found = False
        boundary = len(chain) - b.super_len
        for p in range(start, len(chain)):
            if p == c:
                c_seen = True
            if p == origin:
                continue
            if chain[p] == m and not is_class(m):
                if p >= boundary:
                    if times[p] > when:
                        continue  # Mixed into a superclass later: not there yet.
                elif c_seen:
                    c = p
                found = True
                break
        if found:
            continue
        added.append(b.insert(c + 1, m, when))
        c += 1
    return added


def prepend(b: Building, modules: Sequence[int], origin: int, when: int) -> tuple[int, list[int]]:
    """Ruby's prepend: insert ahead of the class at ``origin``, skipping modules already
    prepended. Returns the class's new position and the tokens of the inserted entries."""
    chain = b.chain
    c = 0
    added: list[int] = []
    for m in modules:
        found = False
        for p in range(1, origin):
            if chain[p] == m:
                c = p
                found = True
                break
        if found:
            continue
        added.append(b.insert(c + 1, m, when))
        c += 1
        origin += 1
    return origin, added


def propagate_include(b: Building, anchor: int, module: int, modules: Sequence[int], when: int, is_class: IsClass) -> list[int]:
    """A module already in the chain (the entry with token ``anchor``) includes ``module`` at
    ``when``: Ruby 3 inserts it after that entry too, unless it is already above the entry;
    modules that are only ahead of the entry are not looked at, so the chain may hold a module
    twice (``[A, D, A, B]``)."""
    pos = b.position(anchor)
    boundary = len(b.chain) - b.super_len
    for p in range(pos + 1, len(b.chain)):
        if b.chain[p] == module and (p < boundary or b.times[p] <= when):
            return []
    return include(b, modules, pos, when, is_class, start=pos)


def propagate_prepend(b: Building, anchor: int, modules: Sequence[int], when: int, prepended: Collection[int] = ()) -> list[int]:
    """A module already in the chain prepends a module at ``when``: Ruby 3 inserts its chain
    ahead of that entry and of the modules the entry's module had prepended before
    (``prepended``, found right ahead of it: the newest prepend comes first, as in the
    module's own chain), without looking for duplicates."""
    pos = b.position(anchor)
    while pos > 0 and b.chain[pos - 1] in prepended:
        pos -= 1
    return [b.insert(pos + i, m, when) for i, m in enumerate(modules)]
