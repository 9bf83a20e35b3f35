"""ActiveSupport::Concern and ``self.included`` hooks: the only Rails knowledge in resolution.

A concern's concern-includes become dependencies included first into the including class, its
``ClassMethods`` extend the includer, and ``def self.included(base); base.extend(X)`` hooks
extend the includer with ``X``. ``included_extensions`` follows all of it recursively: the
concerns a concern's ``included do`` block includes into the class (ActiveRecord's ``Scoping``
includes ``Scoping::Named``, whose ``ClassMethods`` define ``all``) extend the class with their
``ClassMethods`` too, as ActiveSupport::Concern's ``append_features`` does. A ``class_methods do``
block needs nothing here: discovery records it as the concern's ``ClassMethods`` reopened
(rdx.discovery.definitions). ``prepend``-ing a concern (``prepend_features``, ``prepended do``)
is not followed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdx.ruby.resolve.loadcalls import hook_run
from rdx.ruby.resolve.lookup import StateView

if TYPE_CHECKING:
    from rdx.ruby.resolve.lookup import Binding, Lookup


class ConcernBook:
    """What the concern rules remember (owned by this module): concern module id -> the
    concerns it includes (recorded while its chain is computed, applied on inclusion), and
    whether a module is a concern."""

    __slots__ = ("concern_cache", "concern_deps")
    HELD_AS = "concern_book"

    def __init__(self) -> None:
        self.concern_deps: dict[int, list[int]] = {}
        self.concern_cache: dict[int, bool] = {}

    def reset(self, keep_answers: bool = False) -> None:
        """Forget the dependencies (their chains are computed again) and, unless kept, the answers."""
        if not keep_answers:
            self.concern_cache.clear()
        self.concern_deps.clear()

    def start(self, decl_id: int) -> None:
        """``decl_id``'s chain is being computed: its dependencies are recorded anew."""
        self.concern_deps[decl_id] = []

    def note_dependency(self, decl_id: int, module: int) -> None:
        self.concern_deps.setdefault(decl_id, []).append(module)

    def forget_answer(self, decl_id: int) -> None:
        self.concern_cache.pop(decl_id, None)

    def forget(self, decl_id: int) -> None:
        self.concern_cache.pop(decl_id, None)
        self.concern_deps.pop(decl_id, None)

    def restore(self, deps: dict[int, list[int]], answers: dict[int, bool]) -> None:
        self.concern_deps = deps
        self.concern_cache = answers


class Concerns(StateView):
    """The concern pass: which modules are ActiveSupport concerns, and what including one extends."""

    def __init__(self, binding: Binding, *, concern_book: ConcernBook, lookup: Lookup) -> None:
        self.concern_book = concern_book
        self.lookup = lookup
        binding.join(self)

    def is_concern(self, decl_id: int) -> bool:
        """Whether a module extends ActiveSupport::Concern (Rails defers its concern includes)."""
        cache = self.concern_book.concern_cache
        cached = cache.get(decl_id)
        if cached is not None:
            return cached
        cache[decl_id] = False
        result = False
        rec = self.decls[decl_id]
        if rec.kind == "Module":
            for doc, index in rec.definitions:
                d = self.docs[doc].definitions[index]
                for m in d.mixins:
                    if m.kind == "extend" and m.target is not None and m.target.segments[-1] == "Concern":
                        site = self.lookup.cref(doc, index)
                        found = self.lookup.lookup_namespace(m.target, site) if site is not None else None
                        if found is not None and self.decls[found].name == "ActiveSupport::Concern":
                            result = True
        cache[decl_id] = result
        return result

    def included_extensions(self, module: int, run: str = "include") -> list[int]:
        """The modules that including ``module`` into a class extends that class with, in the
        order Ruby extends them (the first ends up last in the singleton's ancestors).

        ActiveSupport::Concern's ``append_features``: first each concern dependency (a concern
        the concern included in its body) as if the class included it, then the concern's own
        ``ClassMethods``, then its ``included do`` block run in the class, where ``include X``
        does all of this for ``X`` and ``extend Y`` extends with ``Y``. For any module, the
        mixins its ``def self.included(base)`` hook makes on ``base`` are followed the same way.
        A module already done for this class is skipped (Ruby's ``base < self`` check), which
        also ends cycles; the walk uses an explicit stack of modules to visit and modules to emit.
        Prepending ``module`` (``run`` "prepend") runs its ``def self.prepended(base)`` hook
        instead (and no concern's ``included``); a module that hook includes, its ``included``."""
        out: list[int] = []
        seen: set[int] = set()
        tasks: list[tuple[int, bool]] = [(module, False)]
        while tasks:
            current, emit = tasks.pop()
            if emit:
                out.append(current)
                continue
            if current in seen:
                continue
            seen.add(current)
            steps: list[tuple[int, bool]] = []
            if run == "prepend" and current == module:
                tasks.extend(reversed(self._deferred_steps(current, run)))
                continue
            if self.is_concern(current):
                self.lookup.ancestors(current)  # Records the concern's own concern dependencies.
                steps += [(dep, False) for dep in self.concern_book.concern_deps.get(current, ())]
                cm = self.lookup.follow(self.lookup.member_constant(current, "ClassMethods"))
                if cm is not None and self.decls[cm].kind == "Module":
                    steps.append((cm, True))
            steps += self._deferred_steps(current)
            tasks.extend(reversed(steps))
        return out

    def _deferred_steps(self, module: int, run: str = "include") -> list[tuple[int, bool]]:
        """What ``module``'s ``included do`` block or ``self.included(base)`` hook (the hooks
        ``run`` runs: ``hook_run``) does to the includer, in program order: (module to follow
        as included, False) or (module to extend with, True)."""
        steps: list[tuple[int, bool]] = []
        for doc, index in self.decls[module].definitions:
            defs = self.docs[doc].definitions
            d = defs[index]
            for m in d.deferred_mixins:
                if m.kind not in ("include", "extend") or m.target is None or hook_run(defs, index, m.start) != run:
                    continue
                site = self.lookup.cref(doc, index)
                found = self.lookup.lookup_namespace(m.target, site) if site is not None else None
                if found is not None and self.decls[found].kind == "Module":
                    steps.append((found, m.kind == "extend"))
        return steps
