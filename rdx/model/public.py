"""The plain records the public API returns: ``Location``, ``Mixin``, ``Diagnostic`` and the
summaries every frontend builds its output from (``DeclarationSummary``, ``DefinitionSummary``,
``MemberSummary``). Values only, no view: they can be kept, compared and serialized."""

from __future__ import annotations

import msgspec

__all__ = ["DeclarationSummary", "DefinitionSummary", "Diagnostic", "Location", "MemberSummary", "Mixin"]


class Location(msgspec.Struct, frozen=True):
    """A span in a file: 1-based lines, 0-based byte columns."""

    path: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    uri: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.start_line}:{self.start_column}-{self.end_line}:{self.end_column}"


class Mixin(msgspec.Struct, frozen=True):
    """``include``/``prepend``/``extend`` as written (``name`` is ``self`` for ``extend self``)."""

    kind: str
    name: str


class Diagnostic(msgspec.Struct, frozen=True):
    """A problem with one file or one place in it."""

    code: str
    message: str
    severity: str
    path: str
    location: Location | None = None

    def __str__(self) -> str:
        where = str(self.location) if self.location is not None else self.path
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


class DefinitionSummary(msgspec.Struct, frozen=True, omit_defaults=True):
    """One definition of a declaration summary."""

    kind: str
    location: Location
    comments: list[str] = []
    signature: str | None = None


class MemberSummary(msgspec.Struct, frozen=True, omit_defaults=True):
    name: str  # fully qualified: ``Foo#bar()``, ``Foo::Baz``
    unqualified: str  # as the namespace holds it: ``bar()``, ``Baz``, ``@x``
    kind: str
    location: Location | None = None


class DeclarationSummary(msgspec.Struct, frozen=True, omit_defaults=True):
    """What every frontend shows of a declaration (``Declaration.summary()``): the CLI's
    ``show``, the MCP server's ``get_declaration`` and the C ABI's summary call build their
    output from this one record, never from the graph directly."""

    name: str
    kind: str
    revision: int
    owner: str | None = None
    visibility: str | None = None  # methods only
    target: str | None = None  # constant aliases only
    definitions: list[DefinitionSummary] = []
    ancestors: list[str] = []  # namespaces only
    members: list[MemberSummary] = []
    # Ruby, or the language of a declaration of another (``python``, ``go``...).
    language: str = "ruby"
    # "project", "dependency" (defined only in gems' files) or "core" (see ``View.origin``).
    origin: str = "project"
