"""Phase 2: methods, attributes, aliases, variables and visibility, in program order."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import DefinitionRecord
from rdx.model.store import MemberBookkeeping, ResolutionDiagnostic
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import (
    MEMBER_DEF_KINDS,
    NAMESPACE_DEF_KINDS,
    Phase,
    ReplayUnsafe,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.builder import Build, Builder
    from rdx.ruby.resolve.lookup import Binding, Lookup


def _written(d: DefinitionRecord) -> str:
    """How a method with a receiver was written, for diagnostics."""
    assert d.receiver is not None
    return f"{d.receiver.text}.define_method(:{d.name})" if d.instance_receiver else f"def {d.receiver.text}.{d.name}"


class MemberBook:
    """What member edits need (owned by this module; see ``refresh_members``): member
    definitions by the namespace they write into, in program order; per document, the
    namespaces its members write into; the methods ``remove_method`` removed, by namespace;
    namespace -> member keys (``m()``) its aliases and visibility changes look up. Restored
    from an image still encoded (``members_raw``) until needed."""

    __slots__ = ("doc_owners", "lookup_keys", "member_index", "members_raw", "removed_keys")
    HELD_AS = "member_book"

    def __init__(self, documents: Iterable[int]) -> None:
        self.member_index: dict[int, list[tuple[int, int]]] = {}
        self.doc_owners: dict[int, set[int | None]] = {key: set() for key in documents}
        self.removed_keys: dict[int, set[str]] = {}
        self.lookup_keys: dict[int, set[str]] = {}
        self.members_raw: msgspec.Raw | None = None

    def load(self) -> None:
        """Decode the bookkeeping restored from an image, if not done yet."""
        if self.members_raw is None:
            return
        book = msgspec.msgpack.decode(self.members_raw, type=MemberBookkeeping)
        self.members_raw = None
        self.member_index = book.member_index
        self.doc_owners = {k: set(o) for k, o in book.doc_owners.items()}
        self.lookup_keys = {k: set(v) for k, v in book.lookup_keys.items()}

    def restore(self, raw: msgspec.Raw, removed_keys: dict[int, list[str]]) -> None:
        self.members_raw = raw.copy()  # A copy: the Raw would keep the whole file alive.
        self.removed_keys = {k: set(v) for k, v in removed_keys.items()}

    def encoded(self) -> msgspec.Raw:
        """The bookkeeping as the image stores it (see ``load``)."""
        self.load()
        return msgspec.Raw(
            msgspec.msgpack.encode(
                MemberBookkeeping(
                    member_index=self.member_index,
                    doc_owners={k: sorted(o, key=lambda x: -1 if x is None else x) for k, o in self.doc_owners.items()},
                    lookup_keys={k: sorted(v) for k, v in self.lookup_keys.items()},
                )
            )
        )

    def forget(self, ns: int) -> None:
        """Namespace ``ns`` is gone."""
        self.member_index.pop(ns, None)
        self.lookup_keys.pop(ns, None)

    def open_document(self, doc: int) -> None:
        self.doc_owners[doc] = set()

    def close_document(self, doc: int) -> None:
        self.doc_owners.pop(doc, None)

    def note_document(self, doc: int, new_members: list[tuple[int, int | None]]) -> None:
        """Document ``doc``'s member definitions are now ``new_members`` (index, owner)."""
        for old_owner in self.doc_owners[doc]:
            if old_owner is not None and old_owner in self.member_index:
                self.member_index[old_owner] = [k for k in self.member_index[old_owner] if k[0] != doc]
        for i, new_owner in new_members:
            if new_owner is not None:
                self.member_index.setdefault(new_owner, []).append((doc, i))
        new_owners = {o for _, o in new_members}
        for touched in new_owners:
            if touched is not None:
                self.member_index[touched].sort()
        self.doc_owners[doc] = new_owners

    def note_lookup(self, owner: int, key: str) -> None:
        self.lookup_keys.setdefault(owner, set()).add(key)


class Members(StateView):
    """The members pass: every method, alias, visibility change and attribute, in program order."""

    def __init__(self, binding: Binding, *, build: Build, builder: Builder, lookup: Lookup, member_book: MemberBook) -> None:
        self.build = build
        self.builder = builder
        self.lookup = lookup
        self.member_book = member_book
        binding.join(self)

    def phase_members(self) -> None:
        """Methods, attributes, aliases, variables and visibility changes, in program order:
        ``private :m`` affects the ``m`` defined so far, and a later ``def m`` is public again,
        as in Ruby; an alias copies the visibility its original has at that point.

        Each member definition writes into one namespace (its owner; ``module_function`` also
        into the owner's singleton class), computed from the skeleton alone. The phase records
        which definitions write where, so a later edit can replay just those namespaces."""
        self.build.enter(Phase.MEMBERS)
        index_map = self.member_book.member_index
        for doc, result in self.docs.items():
            defs = result.definitions
            method_owners: dict[int, int | None] = {}
            owners_here = self.member_book.doc_owners[doc]
            for index, d in enumerate(defs):
                kind = d.kind
                if kind in MEMBER_DEF_KINDS:
                    owner = self.member_owner(doc, index, d, method_owners, True)
                    if kind == "Method":
                        method_owners[index] = owner
                    owners_here.add(owner)
                    if owner is not None:
                        index_map.setdefault(owner, []).append((doc, index))
                        if kind == "MethodAlias" or kind == "MethodVisibility":
                            self.note_lookup(owner, d)
                    self.apply_member(doc, index, d, owner)
                elif kind in ("GlobalVariable", "GlobalVariableAlias"):
                    rec = self.builder.declare(d.name, d.name, "GlobalVariable", self.object_id)
                    self.builder.attach(doc, index, rec.id)
                elif kind == "ConstantVisibility":
                    self.apply_constant_visibility(doc, index, d)
        self.build.enter(Phase.SETTLED)

    def note_lookup(self, owner: int, d: DefinitionRecord) -> None:
        """Record the inherited member an alias or visibility change may read."""
        name = d.old_name if d.kind == "MethodAlias" else d.name
        self.member_book.note_lookup(owner, f"{name}()")

    def _singleton_of(self, decl_id: int, create: bool) -> int:
        if create:
            return self.builder.singleton(decl_id)
        single = self.decls[decl_id].singleton
        if single is None:
            raise ReplayUnsafe(f"{self.decls[decl_id].name} has no singleton class yet")
        return single

    def member_owner(self, doc: int, index: int, d: DefinitionRecord, method_owners: dict[int, int | None], create: bool) -> int | None:
        """The namespace a member definition writes into (None when it cannot be placed).

        Depends only on the skeleton (namespaces, constants, mixins) and, for an instance
        variable in a method body, on that method's owner, which ``method_owners`` holds."""
        kind = d.kind
        if kind == "InstanceVariable":
            parent = d.parent
            if parent >= 0 and self.docs[doc].definitions[parent].kind == "Method":
                return method_owners.get(parent)
            return self._self_class_created(doc, parent) if create else self._self_class_existing(doc, parent)
        if kind == "ClassVariable":
            return self._class_variable_owner(doc, d.parent)
        owner = self.lookup.namespace_owner(doc, d.parent)
        if owner is None:
            return None
        if kind == "Method":
            if d.receiver is not None:
                site = self.lookup.cref(doc, d.parent)
                target = self.lookup.lookup_namespace(d.receiver, site) if site is not None else None
                if target is None or d.instance_receiver:  # ``Foo.define_method(:m)``: Foo itself.
                    return target
                return self._singleton_of(target, create)
            return self._singleton_of(owner, create) if d.self_receiver else owner
        if d.receiver is not None:
            # ``Bar.alias_method``, ``Foo.private_constant``, ``Foo.private_class_method``: the
            # namespace the receiver names (its singleton class for the ``*_class_method`` forms).
            site = self.lookup.cref(doc, d.parent)
            target = self.lookup.lookup_namespace(d.receiver, site) if site is not None else None
            if target is None:
                return None
            return self._singleton_of(target, create) if d.self_receiver else target
        if kind == "MethodVisibility" and d.self_receiver:
            return self._singleton_of(owner, create)
        return owner

    def _self_class_created(self, doc: int, index: int) -> int | None:
        """``self_class`` for the member phase, which creates the singleton class it needs."""
        if index >= 0 and self.docs[doc].definitions[index].kind in NAMESPACE_DEF_KINDS:
            decl = self.def_decl[doc][index]
            return None if decl is None else self.builder.singleton(decl)
        return self.lookup.self_class(doc, index)

    def _self_class_existing(self, doc: int, index: int) -> int | None:
        """``self_class`` outside a method body, without creating a singleton class."""
        if index < 0:
            return self.object_id
        decl = self.def_decl[doc][index]
        if decl is None:
            return None
        if self.docs[doc].definitions[index].kind in NAMESPACE_DEF_KINDS:
            return self._singleton_of(decl, False)
        return self.lookup.namespace_owner(doc, self.docs[doc].definitions[index].parent)

    def apply_member(self, doc: int, index: int, d: DefinitionRecord, owner: int | None) -> None:
        kind = d.kind
        if owner is None:
            if kind == "Method" and d.receiver is not None and self.lookup.namespace_owner(doc, d.parent) is not None:
                self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "unresolved-method-receiver", f"cannot resolve {d.receiver.text!r} in '{_written(d)}'", d.start, d.end, "warning")
                )
            return
        if kind == "Method":
            if d.module_function:
                self._method(owner, d.name, doc, index, "private")
                single = self._method(self.builder.singleton(owner), d.name, doc, index, "public", attach=False)
                self.decls[single].definitions.append((doc, index))
            else:
                self._method(owner, d.name, doc, index, d.visibility)
        elif kind == "MethodAlias":
            alias = self._method(owner, d.name, doc, index, d.visibility)
            original = self._member_lookup(owner, f"{d.old_name}()")
            if original is not None and original[0] != alias:
                self.decls[alias].visibility = original[1]
        elif kind == "AttrReader" or kind == "AttrWriter" or kind == "AttrAccessor":
            if kind != "AttrWriter":
                self._method(owner, d.name, doc, index, d.visibility)
            if kind != "AttrReader":
                self._method(owner, d.name + "=", doc, index, d.visibility)
        elif kind == "InstanceVariable" or kind == "ClassVariable":
            self._variable(owner, d.name, kind, doc, index)
        else:
            self._apply_method_visibility(doc, index, d, owner)

    def _method(self, owner: int, name: str, doc: int, index: int, visibility: str, attach: bool = True) -> int:
        key = f"{name}()"
        rec = self.builder.declare(f"{self.decls[owner].name}#{key}", key, "Method", owner)
        rec.visibility = visibility
        if attach:
            self.builder.attach(doc, index, rec.id)
        return rec.id

    def _variable(self, owner: int, name: str, kind: str, doc: int, index: int) -> None:
        rec = self.builder.declare(f"{self.decls[owner].name}#{name}", name, kind, owner)
        self.builder.attach(doc, index, rec.id)

    def _class_variable_owner(self, doc: int, index: int) -> int | None:
        """Class variables follow the lexical scope and skip singleton classes."""
        defs = self.docs[doc].definitions
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in ("Class", "Module"):
                return self.def_decl[doc][i]
            i = d.parent
        return self.object_id

    def constant_visibility_target(self, doc: int, d: DefinitionRecord) -> tuple[bool, int | None]:
        """What a ``private_constant``/``public_constant`` definition acts on: whether it
        applies at all (it sits in a namespace, and its receiver, if any, is one), and the
        constant it names there (None: not defined)."""
        if self.lookup.namespace_owner(doc, d.parent) is None:
            return False, None
        site = self.lookup.cref(doc, d.parent)
        ns = site[0] if site else self.object_id
        if d.receiver is not None:  # ``Foo.private_constant :X`` acts on Foo.
            found = self.lookup.lookup_namespace(d.receiver, site) if site is not None else None
            if found is None:
                return False, None
            ns = found
        return True, self.lookup.member_constant(ns, d.name)

    def apply_constant_visibility(self, doc: int, index: int, d: DefinitionRecord) -> None:
        """Hide (or show again) the constant a ``private_constant`` (``public_constant``)
        definition names, and attach the definition to it; a diagnostic when it names none."""
        member = self.attach_constant_visibility(doc, index, d)
        if member is not None:
            self.builder.writable(member).private = d.visibility == "private"

    def attach_constant_visibility(self, doc: int, index: int, d: DefinitionRecord) -> int | None:
        """Attach a ``private_constant`` (``public_constant``) definition to the constant it
        names and return that constant, or report that it names none (None)."""
        applies, member = self.constant_visibility_target(doc, d)
        if not applies:
            return None
        if member is None:
            self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "unknown-constant", f"{d.visibility}_constant names {d.name!r}, which is not defined here", d.start, d.end, "warning")
            )
            return None
        self.builder.attach(doc, index, member)
        return member

    def settle_constant_visibility(self, constants: set[int], own: Callable[[int], DeclarationRecord]) -> set[str]:
        """After an edit added or removed ``private_constant``/``public_constant`` definitions
        of ``constants``: each one's visibility is its last such definition's in program order
        (public when none is left), and those definitions come after its others, in program
        order, as the member phase attaches them. Returns the names of those whose visibility
        changed."""
        changed: set[str] = set()
        for decl_id in constants:
            rec = self.decls.get(decl_id)
            if rec is None:
                continue
            pairs = sorted(rec.definitions)
            pairs.sort(key=lambda pair: self.docs[pair[0]].definitions[pair[1]].kind == "ConstantVisibility")
            private = False
            for doc, i in pairs:
                d = self.docs[doc].definitions[i]
                if d.kind == "ConstantVisibility":
                    private = d.visibility == "private"
            if pairs != rec.definitions or private != rec.private:
                writable = own(decl_id)
                writable.definitions = pairs
                if private != writable.private:
                    writable.private = private
                    changed.add(rec.unqualified)
        return changed

    def _apply_method_visibility(self, doc: int, index: int, d: DefinitionRecord, owner: int) -> None:
        key = f"{d.name}()"
        method = self.decls[owner].members.get(key)
        if d.visibility == "removed":
            # ``remove_method``: this namespace's own method goes; an inherited one shows again.
            if method is None:
                self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "unknown-method", f"remove_method names {d.name!r}, which is not defined here", d.start, d.end, "warning"))
                return
            self.member_book.removed_keys.setdefault(owner, set()).add(key)
            self.builder.forget(method)
            return
        if d.visibility == "undefined":
            # ``undef``/``undef_method``: lookups stop here, inherited definitions included.
            rec = self.builder.declare(f"{self.decls[owner].name}#{key}", key, "Method", owner)
            rec.visibility = "undefined"
            self.builder.attach(doc, index, rec.id)
            return
        if d.visibility == "module_function":
            if method is None:
                return
            self.decls[method].visibility = "private"
            single = self.builder.declare(f"{self.decls[self.builder.singleton(owner)].name}#{key}", key, "Method", self.builder.singleton(owner))
            single.definitions.extend(self.decls[method].definitions)
            self.builder.attach(doc, index, method)
            return
        if method is None:
            # Ruby copies an inherited method into the class with the new visibility.
            found = self._member_lookup(owner, key)
            if found is None:
                self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "unknown-method", f"{d.visibility} names {d.name!r}, which is not defined here", d.start, d.end, "warning")
                )
                return
            method = self.builder.declare(f"{self.decls[owner].name}#{key}", key, "Method", owner).id
        self.decls[method].visibility = d.visibility
        self.builder.attach(doc, index, method)

    def _member_lookup(self, decl_id: int, member: str) -> tuple[int, str] | None:
        """``find_member`` for the member phase: the method found and its visibility at this
        point of the program.

        A replay sees the namespaces it does not replay in their final state. For a method
        defined or changed later in program order than the replayed position, its state at
        that position is worked out from its definitions before it (absent when there are
        none); when that needs more than the last one (an alias, ``module_function``) or a
        method was removed on the way, the replay is abandoned for a full resolve."""
        if self.build.phase != Phase.REPLAY:
            found = self.lookup.find_member(decl_id, member)
            return None if found is None else (found, self.decls[found].visibility)
        scope, at = self.build.replay_at
        for anc in self.lookup.ancestors(decl_id):
            outside = anc not in scope
            if outside and member in self.member_book.removed_keys.get(anc, ()):
                raise ReplayUnsafe(f"{self.decls[anc].name} had {member} removed")
            found = self.decls[anc].members.get(member)
            if found is None:
                continue
            rec = self.decls[found]
            visibility = rec.visibility
            if outside and rec.definitions and max(rec.definitions) >= at:
                before = [p for p in rec.definitions if p < at]
                if not before:
                    continue  # Not defined yet at this point: the lookup goes on.
                visibility = self._visibility_at(rec, max(before))
            return None if visibility == "undefined" else (found, visibility)
        return None

    def _visibility_at(self, rec: DeclarationRecord, last: tuple[int, int]) -> str:
        """A method's visibility right after its definition ``last`` (see ``_member_lookup``)."""
        d = self.docs[last[0]].definitions[last[1]]
        if d.kind in ("Method", "AttrReader", "AttrWriter", "AttrAccessor") and not d.module_function:
            return d.visibility
        if d.kind == "MethodVisibility" and d.visibility in ("public", "protected", "private", "undefined"):
            return d.visibility
        raise ReplayUnsafe(f"{rec.name} changes later in a way the replay does not follow")
