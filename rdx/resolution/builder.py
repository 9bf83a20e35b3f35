"""The builder: the only code that creates declarations or attaches definitions to them.

Declaring (``declare``), qualifying names, singleton classes, ``Todo`` placeholders and the
removal of a member declaration (``remove_method``) all happen here; every phase writes through
these methods, and only during a resolve (never from a query)."""

from __future__ import annotations

from rdx.ids import declaration_id
from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath
from rdx.resolution.vocabulary import (
    KIND_RANK,
    MEMBER_DECL_KINDS,
    Phase,
    ReplayUnsafe,
    Site,
)


class Builder:
    """Declaring and attaching; mixed into the Resolver."""

    def _declare(self, name: str, unqualified: str, kind: str, owner: int | None) -> DeclarationRecord:
        decl_id = self.by_name.get(name)
        if decl_id is not None:
            rec = self.decls[decl_id]
            if KIND_RANK.get(kind, -1) > KIND_RANK.get(rec.kind, 99):
                rec.kind = kind  # A placeholder or plain constant becomes a namespace.
            return rec
        if self.phase == Phase.REPLAY and kind not in MEMBER_DECL_KINDS:
            raise ReplayUnsafe(f"replaying members would declare {name}")
        decl_id = declaration_id(name)
        rec = DeclarationRecord(decl_id, name, unqualified, kind, owner)
        self.decls[decl_id] = rec
        self.by_name[name] = decl_id
        if owner is not None and kind != "SingletonClass" and kind != "GlobalVariable":
            self.decls[owner].members.setdefault(unqualified, decl_id)
        return rec

    def _qualify(self, owner: int, name: str) -> str:
        if owner == self.object_id:
            return name
        return f"{self.decls[owner].name}::{name}"

    def _bootstrap(self) -> None:
        """Declare the classes every chain needs even when the core stub is not indexed."""
        basic = DeclarationRecord(declaration_id("BasicObject"), "BasicObject", "BasicObject", "Class", None)
        self.decls[basic.id] = basic
        self.by_name["BasicObject"] = basic.id
        obj = DeclarationRecord(declaration_id("Object"), "Object", "Object", "Class", None)
        self.decls[obj.id] = obj
        self.by_name["Object"] = obj.id
        self.object_id = obj.id
        self.state.object_id = obj.id
        basic.owner = obj.id
        obj.owner = obj.id
        obj.members["Object"] = obj.id
        obj.members["BasicObject"] = basic.id
        obj.superclass = basic.id
        self.basic_object_id = basic.id
        self.kernel_id = self._declare("Kernel", "Kernel", "Module", obj.id).id
        self.module_id = self._declare("Module", "Module", "Class", obj.id).id
        self.class_id = self._declare("Class", "Class", "Class", obj.id).id

    def singleton(self, decl_id: int) -> int:
        rec = self.decls[decl_id]
        if rec.singleton is not None:
            return rec.singleton
        name = f"{rec.name}::<{rec.unqualified}>"
        single = self._declare(name, f"<{rec.unqualified}>", "SingletonClass", decl_id)
        single.attached = decl_id
        rec.singleton = single.id
        if self.phase == Phase.MEMBERS and rec.kind != "Class" and rec.kind != "Module":
            self._member_created.add(single.id)
        return single.id

    def _attach(self, doc: int, index: int, decl_id: int) -> None:
        self.def_decl[doc][index] = decl_id
        self.decls[decl_id].definitions.append((doc, index))

    def _placeholder(self, path: ConstPath, site: Site, upto: int) -> int:
        """Declare ``Todo`` namespaces for the unresolved part of ``path[:upto]``."""
        segments = path.segments[:upto]
        # Find the longest prefix that resolves; everything after becomes placeholders.
        current = self.object_id
        start = 0
        for n in range(len(segments), 0, -1):
            found = self.lookup_namespace(path, site, n)
            if found is not None:
                current, start = found, n
                break
        for seg in segments[start:]:
            existing = self._member_constant(current, seg)
            if existing is not None:
                followed = self.follow(existing)
                if followed is not None and self.decls[followed].is_namespace:
                    current = followed
                    continue
            current = self._declare(self._qualify(current, seg), seg, "Todo", current).id
        self._lookup_cache.clear()
        return current

    def _forget(self, decl_id: int) -> None:
        """Remove a member declaration (``remove_method``) and unlink its definitions."""
        rec = self.decls.pop(decl_id)
        self.by_name.pop(rec.name, None)
        if rec.owner is not None and self.decls[rec.owner].members.get(rec.unqualified) == decl_id:
            del self.decls[rec.owner].members[rec.unqualified]
        for doc, index in rec.definitions:
            if self.def_decl[doc][index] == decl_id:
                self.def_decl[doc][index] = None

    def _invalidate(self, keep_concerns: bool = False) -> None:
        self._times.clear()
        if not keep_concerns:
            self._concern_cache.clear()
        self._concern_deps.clear()
        self._ancestors.clear()
        self._superclass_done.clear()
        self._lookup_cache.clear()
        self._alias_cache.clear()
