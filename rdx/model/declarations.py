"""Declarations: the merged, fully qualified entities that resolution builds.

A declaration groups every definition of one fully qualified name (``Foo::Bar``,
``Foo#bar()``, ``Foo::<Foo>``, ``Foo#@x``, ``$g``). Records hold ids, never other records, so
the store can be rebuilt or persisted without pointer cycles. Resolution owns all writes.
"""

from __future__ import annotations

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


class DeclarationRecord:
    """Mutable record of one declaration; see the module docstring."""

    __slots__ = (
        "attached",
        "definitions",
        "id",
        "kind",
        "members",
        "name",
        "owner",
        "private",
        "singleton",
        "superclass",
        "target",
        "unqualified",
        "visibility",
    )

    def __init__(self, id: int, name: str, unqualified: str, kind: str, owner: int | None) -> None:
        self.id = id
        self.name = name
        self.unqualified = unqualified
        self.kind = kind
        # The namespace declaration this one is a member of (None for the root ``Object`` scope).
        self.owner = owner
        # (document index, definition index) pairs, in index order.
        self.definitions: list[tuple[int, int]] = []
        # Unqualified member name (``Bar``, ``bar()``, ``@x``) -> declaration id.
        self.members: dict[str, int] = {}
        self.superclass: int | None = None
        self.singleton: int | None = None
        # For a singleton class: the namespace it is the singleton class of.
        self.attached: int | None = None
        # For a constant alias: the resolved target declaration id, when known.
        self.target: int | None = None
        # For constants: hidden from scoped (``A::B``) access by ``private_constant``.
        self.private = False
        # For methods: "public", "protected" or "private".
        self.visibility = "public"

    def copy(self) -> DeclarationRecord:
        """A copy whose lists and dicts are new, for copy-on-write updates of a shared state."""
        other = DeclarationRecord.__new__(DeclarationRecord)
        for slot in DeclarationRecord.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.definitions = list(self.definitions)
        other.members = dict(self.members)
        return other

    @property
    def is_namespace(self) -> bool:
        return self.kind in NAMESPACE_DECLARATION_KINDS

    def __repr__(self) -> str:
        return f"<DeclarationRecord {self.kind} {self.name}>"
