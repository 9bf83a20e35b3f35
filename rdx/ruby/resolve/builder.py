"""The builder: the only code that creates declarations or attaches definitions to them.

Declaring (``declare``), qualifying names, singleton classes, ``Todo`` placeholders and the
removal of a member declaration (``remove_method``) all happen here; every phase writes through
these methods, and only during a resolve (never from a query)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rdx.model.declarations import DeclarationRecord
from rdx.model.ids import declaration_id
from rdx.model.records import ConstPath
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import (
    KIND_RANK,
    MEMBER_DECL_KINDS,
    Phase,
    ReplayUnsafe,
    Site,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches


class Build:
    """What the builder keeps besides the declarations (owned by this module): the
    well-known classes, the mode of the run (``Phase``; during a member replay, the namespaces
    being replayed and the position replayed), the namespaces the member phase itself created
    (singletons of singletons and of placeholders), and while an incremental update runs: how a
    record shared with the published state is copied into the state being built before it
    changes (``UpdateContext.own``), the declarations created meanwhile (placeholders among
    them, see ``Placeholders``) and those the update deletes (an addition must not reopen them)."""

    __slots__ = (
        "basic_object_id", "class_id", "created", "going", "kernel_id", "member_created", "module_id", "own_record", "phase", "replay_at",
    )
    HELD_AS = "build"

    def __init__(self) -> None:
        self.basic_object_id = 0
        self.kernel_id = 0
        self.module_id = 0
        self.class_id = 0
        self.phase = Phase.NAMESPACES
        self.replay_at: tuple[set[int], tuple[int, int]] = (set(), (0, 0))
        self.member_created: set[int] = set()
        self.own_record: Callable[[int], DeclarationRecord] | None = None
        self.created: list[int] | None = None
        self.going: set[int] = set()

    def enter(self, phase: Phase, replay_at: tuple[set[int], tuple[int, int]] | None = None) -> None:
        self.phase = phase
        if replay_at is not None:
            self.replay_at = replay_at

    def begin_update(self, own: Callable[[int], DeclarationRecord], going: set[int]) -> None:
        self.own_record, self.created, self.going = own, [], going

    def keep(self, decl_id: int) -> None:
        """A declaration the update was removing is declared again: it stays."""
        self.going.discard(decl_id)

    def end_update(self) -> None:
        self.phase = Phase.SETTLED
        self.own_record = None
        self.created = None
        self.going = set()

    def well_known(self, basic_object: int, kernel: int, module: int, class_: int) -> None:
        self.basic_object_id, self.kernel_id, self.module_id, self.class_id = basic_object, kernel, module, class_

    def restore(self, member_created: list[int]) -> None:
        self.phase = Phase.SETTLED
        self.member_created = set(member_created)

    def forget(self, decl_id: int) -> None:
        self.member_created.discard(decl_id)


class Builder(StateView):
    """The only code that declares or attaches: every pass that creates a declaration, a
    singleton class or a placeholder, or attaches a definition, calls it. It reads through the
    resolver's ``lookup`` and writes the tables the ``Binding`` holds, and ``Build``."""

    def __init__(self, binding: Binding, *, build: Build, caches: LookupCaches, lookup: Lookup) -> None:
        self.binding = binding
        self.build = build
        self.caches = caches
        self.lookup = lookup
        binding.join(self)

    def writable(self, decl_id: int) -> DeclarationRecord:
        """The record of ``decl_id``, safe to change: during an update, the new state's copy."""
        own = self.build.own_record
        return own(decl_id) if own is not None else self.decls[decl_id]

    def declare(self, name: str, unqualified: str, kind: str, owner: int | None) -> DeclarationRecord:
        decl_id = self.by_name.get(name)
        if decl_id is not None:
            rec = self.decls[decl_id]
            if KIND_RANK.get(kind, -1) > KIND_RANK.get(rec.kind, 99):
                rec = self.writable(decl_id)
                rec.kind = kind  # A placeholder or plain constant becomes a namespace.
            return rec
        build = self.build
        if build.phase == Phase.REPLAY and kind not in MEMBER_DECL_KINDS:
            raise ReplayUnsafe(f"replaying members would declare {name}")
        decl_id = declaration_id(name)
        rec = DeclarationRecord(decl_id, name, unqualified, kind, owner)
        self.decls[decl_id] = rec
        self.by_name[name] = decl_id
        if build.created is not None:
            build.created.append(decl_id)
        if owner is not None and kind != "SingletonClass" and kind != "GlobalVariable":
            members = self.decls[owner].members
            if unqualified not in members:
                self.writable(owner).members[unqualified] = decl_id
                self.caches.forget_name(unqualified)
        return rec

    def qualify(self, owner: int, name: str) -> str:
        if owner == self.object_id:
            return name
        return f"{self.decls[owner].name}::{name}"

    def bootstrap(self) -> None:
        """Declare the classes every chain needs even when the core stub is not indexed."""
        basic = DeclarationRecord(declaration_id("BasicObject"), "BasicObject", "BasicObject", "Class", None)
        self.decls[basic.id] = basic
        self.by_name["BasicObject"] = basic.id
        obj = DeclarationRecord(declaration_id("Object"), "Object", "Object", "Class", None)
        self.decls[obj.id] = obj
        self.by_name["Object"] = obj.id
        self.state.object_id = obj.id
        self.binding.read(self.state)
        basic.owner = obj.id
        obj.owner = obj.id
        obj.members["Object"] = obj.id
        obj.members["BasicObject"] = basic.id
        obj.superclass = basic.id
        kernel = self.declare("Kernel", "Kernel", "Module", obj.id).id
        module = self.declare("Module", "Module", "Class", obj.id).id
        self.build.well_known(basic.id, kernel, module, self.declare("Class", "Class", "Class", obj.id).id)

    def singleton(self, decl_id: int) -> int:
        rec = self.decls[decl_id]
        if rec.singleton is not None:
            return rec.singleton
        name = f"{rec.name}::<{rec.unqualified}>"
        single = self.declare(name, f"<{rec.unqualified}>", "SingletonClass", decl_id)
        single.attached = decl_id
        self.writable(decl_id).singleton = single.id
        if self.build.phase == Phase.MEMBERS and rec.kind != "Class" and rec.kind != "Module":
            self.build.member_created.add(single.id)
        return single.id

    def attach(self, doc: int, index: int, decl_id: int) -> None:
        self.def_decl[doc][index] = decl_id
        self.writable(decl_id).definitions.append((doc, index))
        self.caches.forget_alias(decl_id)

    def placeholder(self, path: ConstPath, site: Site, upto: int) -> int:
        """Declare ``Todo`` namespaces for the unresolved part of ``path[:upto]``.

        Every placeholder has Object as its superclass, whichever lookup makes it (a
        superclass, a mixin, the scope of ``class Missing::X``): Ruby cannot say what an
        undefined name is, and a rule that does not depend on the role keeps a full resolve
        independent of which lookup meets the name first. Including or prepending one inserts
        only the placeholder's own part of its chain (``Ancestors._present``), as if it were a
        module; subclassing one gives the subclass Object's chain behind it."""
        segments = path.segments[:upto]
        # Find the longest prefix that resolves; everything after becomes placeholders.
        current = self.object_id
        start = 0
        for n in range(len(segments), 0, -1):
            found = self.lookup.lookup_namespace(path, site, n)
            if found is not None:
                current, start = found, n
                break
        for seg in segments[start:]:
            existing = self.lookup.member_constant(current, seg)
            if existing is not None:
                followed = self.lookup.follow(existing)
                if followed is not None and self.decls[followed].is_namespace:
                    current = followed
                    continue
            rec = self.declare(self.qualify(current, seg), seg, "Todo", current)
            if rec.kind == "Todo" and rec.superclass is None:
                self.writable(rec.id).superclass = self.object_id
            current = rec.id
        self.caches.forget_constant_lookups()
        return current

    def forget(self, decl_id: int) -> None:
        """Remove a member declaration (``remove_method``) and unlink its definitions."""
        rec = self.delete(decl_id)
        if rec.owner is not None and self.decls[rec.owner].members.get(rec.unqualified) == decl_id:
            del self.decls[rec.owner].members[rec.unqualified]
        for doc, index in rec.definitions:
            if self.def_decl[doc][index] == decl_id:
                self.def_decl[doc][index] = None

    def delete(self, decl_id: int) -> DeclarationRecord:
        """Remove a declaration from the tables (its owner's member entry is the caller's)."""
        rec = self.decls.pop(decl_id)
        self.by_name.pop(rec.name, None)
        return rec
