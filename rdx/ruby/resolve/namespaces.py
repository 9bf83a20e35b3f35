"""Phase 1: namespaces and constants, by a worklist.

A definition waits until its lexical parent is declared and the scope part of a compact name
(``A`` of ``class A::B``) resolves; when no progress is possible, unknown scopes become ``Todo``
placeholders, which a real definition later promotes. Also attaches ``Foo.include(M)`` calls
written outside ``Foo``'s body to ``Foo``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdx.model.records import ConstPath, DefinitionRecord, ExternalMixin
from rdx.model.store import CORE_URI, ResolutionDiagnostic
from rdx.ruby.resolve.loadcalls import Applied
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import (
    CONSTANT_DEF_KINDS,
    NAMESPACE_DEF_KINDS,
    Site,
    dynamic_constant,
    inside_method,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.builder import Builder
    from rdx.ruby.resolve.loadcalls import LoadCallBook, LoadCalls
    from rdx.ruby.resolve.lookup import Binding, ChainCache, Lookup


class ExternalBook:
    """Mixins applied from outside a namespace's body (owned by this module): namespace id ->
    (document, scope index, mixin), ``Foo.include(M)`` calls and the mixins of load-time calls
    (``loadcalls``) in program order; whether any file includes modules into Object."""

    __slots__ = ("external_of", "object_mixins")
    HELD_AS = "externals"

    def __init__(self) -> None:
        self.external_of: dict[int, list] = {}
        self.object_mixins = False

    def attach(self, ns: int, doc: int, scope: int, mixin: object) -> None:
        self.external_of.setdefault(ns, []).append((doc, scope, mixin))

    def renumber(self, index: int, old: list[ExternalMixin], new: list[ExternalMixin]) -> None:
        """Document ``index`` was replaced by a version with the same external mixins: its
        entries now point at the new version's."""
        renamed = {id(a.mixin): (index, b.mixin_site, b.mixin) for a, b in zip(old, new, strict=True)}
        self.external_of = {ns: [renamed.get(id(e[2]), e) if e[0] == index else e for e in entries] for ns, entries in self.external_of.items()}

    def restore(self, object_mixins: bool) -> None:
        self.object_mixins = object_mixins


class Namespaces(StateView):
    """The namespaces pass (phase 1): classes, modules and constants declared to a fixed point."""

    def __init__(
        self,
        binding: Binding,
        *,
        builder: Builder,
        externals: ExternalBook,
        linearizer: ChainCache,
        load_book: LoadCallBook,
        loadcalls: LoadCalls,
        lookup: Lookup,
    ) -> None:
        self.builder = builder
        self.externals = externals
        self.linearizer = linearizer
        self.load_book = load_book
        self.loadcalls = loadcalls
        self.lookup = lookup
        binding.join(self)

    def declare_definition(self, doc: int, index: int, d: DefinitionRecord, placeholders: bool) -> bool:
        """Try to declare one namespace/constant definition; True when done."""
        parent_site = self.lookup.cref(doc, d.parent)
        if parent_site is None:
            return False
        if d.kind == "SingletonClass":
            if d.target is None:
                attached = self.lookup.namespace_owner(doc, d.parent)
            else:
                attached = self.lookup.lookup_namespace(d.target, parent_site)
                if attached is None:
                    if not placeholders:
                        return False
                    if self.names_a_value(d.target, parent_site, len(d.target.segments)):
                        # ``Foo = 1; class << Foo``: Ruby raises TypeError (can't define
                        # singleton) and runs nothing of the body: nothing is declared.
                        return True
                    attached = self.builder.placeholder(d.target, parent_site, len(d.target.segments))
            if attached is None:
                return False
            self.builder.attach(doc, index, self.builder.singleton(attached))
            return True
        path = d.path
        assert path is not None
        if len(path.segments) == 1 and not path.absolute:
            owner = parent_site[0] if parent_site else self.object_id
        elif len(path.segments) == 1:
            owner = self.object_id
        else:
            found_owner = self.lookup.lookup_namespace(path, parent_site, len(path.segments) - 1)
            if found_owner is not None:
                owner = found_owner
            else:
                if not placeholders:
                    return False
                if self.names_a_value(path, parent_site, len(path.segments) - 1):
                    return True  # ``V = 1; class V::Inner`` raises in Ruby: nothing is declared.
                owner = self.builder.placeholder(path, parent_site, len(path.segments) - 1)
        name = path.segments[-1]
        kind = d.kind
        if kind in ("Class", "Module"):
            existing = self.lookup.member_constant(owner, name)
            if existing is None and owner == self.object_id and self.externals.object_mixins:
                # At top level, ``class Foo`` also reopens a Foo that Object gets from a module
                # it includes (Ruby checks Object's ancestors for the constant). Object's chain
                # may have grown since it was cached in this round: recompute it.
                self.linearizer.drop_chain(self.object_id)
                inherited = self.lookup.lookup_scoped(self.object_id, name)
                if inherited is not None and self.decls[inherited].owner != self.object_id:
                    existing = inherited
            if existing is not None and self.decls[existing].kind == "ConstantAlias":
                # ``AL = Real; module AL`` reopens Real.
                target = self.lookup.follow(existing)
                if target is not None and self.decls[target].kind in (kind, "Todo"):
                    existing = target
                elif target is None and not placeholders:
                    return False  # The alias may resolve once more is declared.
                else:
                    existing = None
            if existing is not None and self.decls[existing].kind == "Constant":
                # ``FOO = "x"; module FOO``: Ruby raises TypeError (FOO is not a module) and
                # runs nothing of the body, so the definition declares nothing.
                return True
            if existing is not None and self.decls[existing].kind in (kind, "Todo") and existing != owner:
                rec = self.decls[existing]
                if rec.kind == "Todo":
                    rec = self.builder.writable(existing)
                    rec.kind = kind  # A placeholder is promoted (``Placeholders``).
                self.builder.attach(doc, index, existing)
                return True
        rec = self.builder.declare(self.builder.qualify(owner, name), name, kind, owner)
        if rec.kind == "ConstantAlias" and kind in ("Class", "Module"):
            rec.kind = kind
        self.builder.attach(doc, index, rec.id)
        return True

    def names_a_value(self, path: ConstPath, site: Site, upto: int) -> bool:
        """Whether a prefix of ``path[:upto]`` names a constant that holds no namespace: a
        plain value, or an alias that never resolves (asked once no more can be declared).
        Ruby raises there (TypeError or NameError), so nothing is declared beneath it, where
        an unknown name would get a placeholder instead."""
        for n in range(1, upto + 1):
            found = self.lookup.lookup_path(path, site, n)
            if found is None:
                return False
            target = self.lookup.follow(found)
            if target is None or not self.decls[target].is_namespace:
                return True
        return False

    def phase_namespaces(self) -> None:
        # Whether any file includes modules into Object (top-level ``include M``).
        self.externals.object_mixins = any(
            d.kind == "Class" and d.name == "Object" and d.mixins for result in self.docs.values() if result.uri != CORE_URI for d in result.definitions
        )
        pending: list[tuple[int, int, DefinitionRecord]] = []
        for doc, result in self.docs.items():
            for index, d in enumerate(result.definitions):
                if d.kind in NAMESPACE_DEF_KINDS or d.kind in CONSTANT_DEF_KINDS:
                    if inside_method(result.definitions, d):
                        self.state.diagnostics.append(dynamic_constant(doc, d))
                        continue
                    pending.append((doc, index, d))
        # Rounds run in program order until nothing more can be declared; then one round may
        # create placeholders for unknown scopes, after which ordinary rounds resume.
        placeholders = False
        while pending:
            progress = False
            rest = []
            for item in pending:
                doc, index, d = item
                if self.declare_definition(doc, index, d, placeholders):
                    progress = True
                else:
                    rest.append(item)
            pending = rest
            self.linearizer.invalidate()
            if progress:
                placeholders = False
            elif not placeholders:
                placeholders = True
            else:
                break
        # A declaration's definitions are in program order (document key, index), whatever
        # round declared them: the order Ruby would have run them in, and one that a later
        # edit can keep without knowing the rounds.
        for rec in self.decls.values():
            if len(rec.definitions) > 1:
                rec.definitions.sort()
        for doc, _index, d in pending:
            self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "unresolved-definition", f"cannot place {d.kind.lower()} {d.name!r}: its enclosing scope is not declared", d.start, d.end, "warning")
            )

    def collect_external_mixins(self) -> None:
        """Attach ``Foo.include(M)`` calls to ``Foo``'s declaration (or its singleton for extend),
        and the mixins of load-time calls of other files' methods (``loadcalls``), in program
        order; a guarded one (``unless Foo < M``) only when Foo lacks M so far."""
        guarded = False
        index = self.loadcalls.callee_index() if any(r.load_calls for r in self.docs.values()) else None
        self.load_book.reset_applied()
        for doc, result in self.docs.items():
            applied = self.loadcalls.applied_mixins(index, doc, result) if index is not None and result.load_calls else []
            if applied:
                self.load_book.set_applied(doc, applied)
            for item in _merged(result.external_mixins, applied):
                if isinstance(item, Applied):
                    guarded |= self._apply_load_call_mixin(doc, item)
                else:
                    guarded |= self._collect_external(doc, item)
        if guarded:
            self.linearizer.invalidate()  # Nothing computed from the partial list may stay.

    def _collect_external(self, doc: int, ext: ExternalMixin) -> bool:
        """Attach one external mixin; True when it was guarded (chains must be recomputed)."""
        site = self.lookup.cref(doc, ext.scope)
        if site is None:
            return False
        target = self.lookup.lookup_namespace_at(ext.target, site, doc, ext.scope)
        if target is None:
            self.state.diagnostics.append(
            ResolutionDiagnostic(doc, "unresolved-mixin-target", f"cannot resolve {ext.target.text!r} in '{ext.target.text}.{ext.mixin.kind}'",
                 ext.target.start, ext.target.end, "warning")
            )
            return False
        if ext.unless_present and self._already_present(doc, ext, target):
            return True
        self.externals.external_of.setdefault(target, []).append((doc, ext.mixin_site, ext.mixin))
        return ext.unless_present

    def _apply_load_call_mixin(self, doc: int, item: Applied) -> bool:
        """Attach one mixin of a load-time call (``loadcalls``); True when it was guarded."""
        if item.guarded:
            self.linearizer.invalidate()  # Chains cached before the last external mixins were added are stale.
            if item.mixin.target in self.lookup.ancestors(item.namespace):
                return True
        self.externals.external_of.setdefault(item.namespace, []).append((doc, -1, item.mixin))
        return item.guarded

    def _already_present(self, doc: int, ext: ExternalMixin, target: int) -> bool:
        """Whether ``target`` has the module of ``ext`` among its ancestors, with the external
        mixins collected so far (Ruby evaluates ``Foo < M`` when the call runs). FIXME: decided
        once per full resolve; an edit elsewhere that changes the answer is not replayed."""
        site = self.lookup.cref(doc, ext.mixin_site)
        if site is None:
            return False
        module = (site[0] if site else None) if ext.mixin.target is None else self.lookup.lookup_namespace_at(ext.mixin.target, site, doc, ext.mixin_site)
        if module is None:
            return False
        self.linearizer.invalidate()  # Chains cached before the last external mixins were added are stale.
        return module in self.lookup.ancestors(target)


def _merged(externals: list[ExternalMixin], applied: list[Applied]) -> list[ExternalMixin | Applied]:
    """A document's external mixins in their order, with the mixins of its load-time calls
    placed before the first external mixin written after the call."""
    if not applied:
        return list(externals)
    out: list[ExternalMixin | Applied] = []
    rest = list(reversed(applied))
    for ext in externals:
        while rest and rest[-1].mixin.start < ext.mixin.start:
            out.append(rest.pop())
        out.append(ext)
    out.extend(reversed(rest))
    return out
