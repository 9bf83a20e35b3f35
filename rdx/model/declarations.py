"""Declarations: the merged, fully qualified entities that resolution builds.

A declaration groups every definition of one fully qualified name (``Foo::Bar``,
``Foo#bar()``, ``Foo::<Foo>``, ``Foo#@x``, ``$g``). Records hold ids, never other records, so
the store can be rebuilt or persisted without pointer cycles. Resolution owns all writes.
"""

from __future__ import annotations

import msgspec

from rdx.model.kinds import DeclarationKindName, Visibility, VisibilityName

__all__ = ["DECLARATION_KINDS", "NAMESPACE_DECLARATION_KINDS", "DeclarationRecord"]

# ``Todo`` is a placeholder namespace: a name used as a parent (``class Foo::Bar``) that has no
# definition anywhere. It is promoted to Class or Module when a real definition appears.
DECLARATION_KINDS = (
    "Class",
    "Module",
    "SingletonClass",
    "Constant",
    "ConstantAlias",
    "Method",
    "GlobalVariable",
    "InstanceVariable",
    "ClassVariable",
    "Todo",
)

NAMESPACE_DECLARATION_KINDS = frozenset({"Class", "Module", "SingletonClass", "Todo"})


class DeclarationRecord(msgspec.Struct, array_like=True, gc=False):
    """Mutable record of one declaration; see the module docstring.

    A msgspec Struct so a resolved graph can be persisted and loaded back without a Python
    loop per record (records hold ints, strings and containers of them, never cycles)."""

    id: int
    name: str
    unqualified: str
    # A DeclarationKind value (the records keep the plain string the enum compares equal to).
    kind: DeclarationKindName
    # The namespace declaration this one is a member of (None for the root ``Object`` scope).
    owner: int | None
    # (document index, definition index) pairs, in program order.
    definitions: list[tuple[int, int]] = []
    # Unqualified member name (``Bar``, ``bar()``, ``@x``) -> declaration id.
    members: dict[str, int] = {}
    superclass: int | None = None
    singleton: int | None = None
    # For a singleton class: the namespace it is the singleton class of.
    attached: int | None = None
    # For a constant alias: the resolved target declaration id, when known.
    target: int | None = None
    # For constants: hidden from scoped (``A::B``) access by ``private_constant``.
    private: bool = False
    # For methods: public, protected, private or undefined (``undef``: lookups stop here).
    visibility: VisibilityName = Visibility.PUBLIC

    def copy(self) -> DeclarationRecord:
        """A copy whose lists and dicts are new, for copy-on-write updates of a shared state."""
        return msgspec.structs.replace(self, definitions=list(self.definitions), members=dict(self.members))

    @property
    def is_namespace(self) -> bool:
        return self.kind in NAMESPACE_DECLARATION_KINDS

    def __repr__(self) -> str:
        return f"<DeclarationRecord {self.kind} {self.name}>"
