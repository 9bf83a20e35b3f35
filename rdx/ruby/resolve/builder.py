"""The builder: the only code that creates declarations or attaches definitions to them.

Declaring (``declare``), qualifying names, singleton classes, ``Todo`` placeholders and the
removal of a member declaration (``remove_method``) all happen here; every phase writes through
these methods, and only during a resolve (never from a query)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.ids import declaration_id
from rdx.model.records import ConstPath, FileResult, MethodEffects
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.lookup import Lookup

if TYPE_CHECKING:
    from rdx.ruby.resolve.order import LoadOrder
from rdx.ruby.resolve.vocabulary import (
    KIND_RANK,
    MEMBER_DECL_KINDS,
    Phase,
    ReplayUnsafe,
    Site,
)


class Builder(Lookup):
    """The resolver's state, declared here in one place, and the only code that declares or
    attaches: the first of the role classes the Resolver is a chain of (each role sees the
    ones before it: builder, namespaces, concerns, ancestors, members, references, image,
    mentions, invalidation, skeleton edits, incremental, documents)."""

    def __init__(self, documents: dict[int, FileResult], restoring: bool = False) -> None:
        state = ResolvedState(documents=documents)
        if not restoring:
            state.definition_declarations = {key: [None] * len(d.definitions) for key, d in documents.items()}
        super().__init__(state)
        self._ancestors: dict[int, tuple[int, ...]] = {}
        self._in_progress: dict[int, tuple[list[int], list[int]]] = {}
        self._times: dict[int, tuple[int, ...]] = {}
        # The state whose chain tables are its own (see ``Ancestors._own_chains``).
        self._chains_owned: ResolvedState | None = state
        # Restored from a snapshot: the encoded times and member bookkeeping, until needed.
        self._times_raw: msgspec.Raw | None = None
        self._members_raw: msgspec.Raw | None = None
        # Length of the superclass part of each chain being built (a stack, one per frame).
        self._super_len: list[int] = []
        self._superclass_done: set[int] = set()
        # Namespace id -> mixins applied from outside its body: (doc, scope index, Mixin).
        self._external: dict[int, list] = {}
        # Cross-file load-time calls (``rdx.ruby.resolve.loadcalls``): per document, every mixin
        # its calls apply (guarded ones included; the image refers to them by position); the
        # templates by (document, method index); the method names the calls use.
        self._applied: dict[int, list] = {}
        self._templates: dict[tuple[int, int], MethodEffects] = {}
        self._called_names: set[str] | None = None
        # ActiveSupport::Concern: concern module id -> concerns it includes, applied on inclusion.
        self._concern_deps: dict[int, list[int]] = {}
        self._concern_cache: dict[int, bool] = {}
        # What member edits need (see ``refresh_members``): member definitions by the namespace
        # they write into, in program order; per document, the namespaces its members write into;
        # namespaces the member phase itself created (singletons of singletons and of
        # placeholders); the methods ``remove_method`` removed, by namespace.
        self._member_index: dict[int, list[tuple[int, int]]] = {}
        self._doc_owners: dict[int, set[int | None]] = {key: set() for key in documents}
        self._member_created: set[int] = set()
        self._removed_keys: dict[int, set[str]] = {}
        # See ``Phase``; during a member replay: (namespaces being replayed, position replayed).
        self.phase = Phase.NAMESPACES
        self._replay_at: tuple[set[int], tuple[int, int]] = (set(), (0, 0))
        self._descendant_index: dict[int, list[int]] | None = None
        # Namespace -> member keys (``m()``) its aliases and visibility changes look up.
        self._lookup_keys: dict[int, set[str]] = {}
        # For edits that add namespaces and constants (``_declare_added``), built on first use.
        self._path_names: dict[int, set[str]] | None = None
        self._mentions: dict[str, set[int]] | None = None
        # Document -> (its FileResult, names its references use); rebuilt when the document changes.
        self._reference_names: dict[int, tuple[FileResult, set[str]]] = {}
        # Name -> documents whose references use it (``_documents_mentioning``), and the
        # documents edited since, whose entries may be stale.
        self._reference_index: dict[str, set[int]] | None = None
        self._touched_docs: set[int] = set()
        # Why the last incremental update gave up (for the benchmark and ``Graph.last_resolve``).
        self.fallback: str | None = None
        # The load order with what places added and removed files cheaply (built on first use).
        self._order: LoadOrder | None = None
        # While an incremental update runs: how a record shared with the published state is
        # copied into the state being built before it changes (``UpdateContext.own``), and the
        # declarations created meanwhile (placeholders among them, see ``Placeholders``).
        self._own_record: Callable[[int], DeclarationRecord] | None = None
        self._created: list[int] | None = None
        # The declarations the running update deletes (an addition must not reopen them).
        self._going: set[int] = set()

    def _writable(self, decl_id: int) -> DeclarationRecord:
        """The record of ``decl_id``, safe to change: during an update, the new state's copy."""
        own = self._own_record
        return own(decl_id) if own is not None else self.decls[decl_id]

    def _declare(self, name: str, unqualified: str, kind: str, owner: int | None) -> DeclarationRecord:
        decl_id = self.by_name.get(name)
        if decl_id is not None:
            rec = self.decls[decl_id]
            if KIND_RANK.get(kind, -1) > KIND_RANK.get(rec.kind, 99):
                rec = self._writable(decl_id)
                rec.kind = kind  # A placeholder or plain constant becomes a namespace.
            return rec
        if self.phase == Phase.REPLAY and kind not in MEMBER_DECL_KINDS:
            raise ReplayUnsafe(f"replaying members would declare {name}")
        decl_id = declaration_id(name)
        rec = DeclarationRecord(decl_id, name, unqualified, kind, owner)
        self.decls[decl_id] = rec
        self.by_name[name] = decl_id
        if self._created is not None:
            self._created.append(decl_id)
        if owner is not None and kind != "SingletonClass" and kind != "GlobalVariable":
            members = self.decls[owner].members
            if unqualified not in members:
                self._writable(owner).members[unqualified] = decl_id
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
        self._writable(decl_id).singleton = single.id
        if self.phase == Phase.MEMBERS and rec.kind != "Class" and rec.kind != "Module":
            self._member_created.add(single.id)
        return single.id

    def _attach(self, doc: int, index: int, decl_id: int) -> None:
        self.def_decl[doc][index] = decl_id
        self._writable(decl_id).definitions.append((doc, index))

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
