"""ActiveSupport::Concern and ``self.included`` hooks: the only Rails knowledge in resolution.

A concern's concern-includes become dependencies included first into the including class, its
``ClassMethods`` extend the includer, and ``def self.included(base); base.extend(X)`` hooks
extend the includer with ``X``."""

from __future__ import annotations

from rdx.resolution.namespaces import Namespaces


class Concerns(Namespaces):
    """Concern rules; mixed into the Resolver."""

    def is_concern(self, decl_id: int) -> bool:
        """Whether a module extends ActiveSupport::Concern (Rails defers its concern includes)."""
        cached = self._concern_cache.get(decl_id)
        if cached is not None:
            return cached
        self._concern_cache[decl_id] = False
        result = False
        rec = self.decls[decl_id]
        if rec.kind == "Module":
            for doc, index in rec.definitions:
                d = self.docs[doc].definitions[index]
                for m in d.mixins:
                    if m.kind == "extend" and m.target is not None and m.target.segments[-1] == "Concern":
                        site = self.cref(doc, index)
                        found = self.lookup_namespace(m.target, site) if site is not None else None
                        if found is not None and self.decls[found].name == "ActiveSupport::Concern":
                            result = True
        self._concern_cache[decl_id] = result
        return result

    def _concern_class_methods(self, module: int, seen: set[int]) -> list[int]:
        if module in seen:
            return []
        seen.add(module)
        self.ancestors(module)  # Records the concern's own concern dependencies.
        out: list[int] = []
        for dep in self._concern_deps.get(module, ()):
            out.extend(self._concern_class_methods(dep, seen))
        cm = self.follow(self._member_constant(module, "ClassMethods"))
        if cm is not None and self.decls[cm].kind == "Module":
            out.append(cm)
        return out

    def _hook_extends(self, module: int) -> list[int]:
        """Modules that ``def self.included(base); base.extend(X)`` adds to the includer's singleton."""
        out: list[int] = []
        for doc, index in self.decls[module].definitions:
            d = self.docs[doc].definitions[index]
            for m in d.deferred_mixins:
                if m.kind == "extend" and m.target is not None:
                    site = self.cref(doc, index)
                    found = self.lookup_namespace(m.target, site) if site is not None else None
                    if found is not None and self.decls[found].kind == "Module":
                        out.append(found)
        return out
