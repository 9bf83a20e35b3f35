"""One ``Class.new(Base) do ... end`` body shared by every class a loop defines:
``%w[A B].each { |n| const_set(n, Class.new(Base) { def m; end }) }`` and
``klass = Class.new(Base) { def m; end }; const_set(name, klass)`` give ``m`` to each class,
as Ruby does (the block runs once per iteration, each time on a new class).

The walk sees the block once: its methods go to the innermost scope open there (the last
unrolled class, or the scope around the loop when the class is made through a local).
``define_constants`` (``rdx.ruby.discover.directives``) registers each class made from a block in
``Walker.shared_bodies``; when the walk ends, ``share_bodies`` gives the block's direct members
(methods, attributes, aliases, visibility changes, ``class << self``, variables) to the first
class and a copy of them, with the definitions nested in them, to each other one. A copy's id
is made from its offset and ``Class#name``, so that ids stay unique. Mixins called in the block
(``include M``) are given to each class too. Constants and namespaces written in the block stay
where they are: their scope is lexical. The mixins of a block no constant names a class of
(``let(:k) { Class.new(Object) { include M } }``) mix into an anonymous class: ``drop_anonymous_mixins``
takes them back from the namespace around the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from rdx.model.ids import definition_id

if TYPE_CHECKING:
    from rdx.model.records import DefinitionRecord, Mixin
    from rdx.ruby.discover.parse import Walker

__all__ = ["drop_anonymous_mixins", "share_bodies"]

# Members the block defines on the class it runs on (self and the default definee there).
_SHARED_KINDS = frozenset(
    {"Method", "MethodAlias", "MethodVisibility", "AttrReader", "AttrWriter", "AttrAccessor", "SingletonClass", "InstanceVariable", "ClassVariable"}
)


def share_bodies(w: Walker) -> None:
    """Give each registered block's members to every class made from it (see the module doc)."""
    for (start, end), owners in w.shared_bodies.items():
        owners = list(dict.fromkeys(owners))
        members = _direct_members(w.definitions, start, end, set(owners))
        for member in members:
            w.definitions[member].parent = owners[0]
        for owner in owners[1:]:
            for member in members:
                _copy_subtree(w, member, owner)
        _share_mixins(w, start, end, owners)


def drop_anonymous_mixins(w: Walker) -> None:
    """Forget the mixins the walk gave to the namespace around a ``Class.new do ... end`` block
    (``Walker.anonymous_bodies``) that no constant names a class of: an anonymous class's."""
    ranges = [r for r in w.anonymous_bodies if r not in w.shared_bodies]
    if not ranges:
        return
    for table in (w.mixins, w.deferred_mixins):
        for index, mixins in table.items():
            if any(start <= m.start < end for m in mixins for start, end in ranges):
                table[index] = [m for m in mixins if not any(start <= m.start < end for start, end in ranges)]


def _direct_members(definitions: list[DefinitionRecord], start: int, end: int, owners: set[int]) -> list[int]:
    """Definitions in the block whose parent is outside it (or one of the owners)."""
    out = []
    for i, d in enumerate(definitions):
        if not start <= d.start < end or d.kind not in _SHARED_KINDS:
            continue
        parent = definitions[d.parent] if d.parent >= 0 else None
        if d.parent in owners or parent is None or not start <= parent.start < end:
            out.append(i)
    return out


def _copy_subtree(w: Walker, root: int, owner: int) -> None:
    """Append a copy of ``root`` (parent ``owner``) and of the definitions nested in it."""
    definitions = w.definitions
    label = definitions[owner].name
    end = definitions[root].end
    copies: dict[int, int] = {}  # Original index -> index of its copy.
    for i in range(root, len(definitions)):
        d = definitions[i]
        if i != root and (d.start >= end or d.parent not in copies):
            if d.start >= end:
                break
            continue
        copies[i] = len(definitions)
        parent = owner if i == root else copies[d.parent]
        definitions.append(msgspec.structs.replace(d, id=definition_id(w.uri, d.start, f"{label}#{d.name}"), parent=parent))


def _share_mixins(w: Walker, start: int, end: int, owners: list[int]) -> None:
    """``include M`` in the block: moved from the scope the walk gave them to each owner."""
    found: list[Mixin] = []
    for index, mixins in w.mixins.items():
        inside = [m for m in mixins if start <= m.start < end]
        if inside:
            found = found or inside
            w.mixins[index] = [m for m in mixins if not start <= m.start < end]
    for owner in owners:
        if found:
            w.mixins.setdefault(owner, []).extend(found)
