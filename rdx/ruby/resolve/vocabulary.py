"""Shared vocabulary of the resolution modules: kind sets, limits, the site type, and the
exception a replay raises when it cannot prove that it equals a full resolve."""

from __future__ import annotations

from enum import StrEnum

from rdx.model.kinds import DeclarationKind as K
from rdx.model.kinds import DefinitionKind as D
from rdx.model.records import DefinitionRecord
from rdx.model.store import ResolutionDiagnostic

__all__ = [
    "CHAIN_CODES",
    "CONCERN_NAMES",
    "CONSTANT_DEF_KINDS",
    "CONSTANT_KINDS",
    "HEAD",
    "KIND_RANK",
    "MAX_ALIAS_HOPS",
    "MAX_REPLAY_DEFINITIONS",
    "MAX_REPLAY_NAMESPACES",
    "MEMBER_CODES",
    "MEMBER_DECL_KINDS",
    "MEMBER_DEF_KINDS",
    "NAMESPACE_DEF_KINDS",
    "Phase",
    "ReplayUnsafe",
    "Site",
    "dynamic_constant",
    "inside_method",
]

CONSTANT_KINDS = frozenset({K.CLASS, K.MODULE, K.CONSTANT, K.CONSTANT_ALIAS, K.TODO})
NAMESPACE_DEF_KINDS = frozenset({D.CLASS, D.MODULE, D.SINGLETON_CLASS})
CONSTANT_DEF_KINDS = frozenset({D.CLASS, D.MODULE, D.CONSTANT, D.CONSTANT_ALIAS})
# A declaration takes the highest-ranked kind among its definitions (a placeholder or plain
# constant becomes a namespace).
KIND_RANK: dict[str, int] = {K.TODO: 0, K.CONSTANT: 1, K.CONSTANT_ALIAS: 2, K.MODULE: 3, K.CLASS: 3}
# Definitions the member phase handles; an edit that changes only these is replayed for the
# namespaces it touches (``Incremental.refresh_members``).
MEMBER_DEF_KINDS = frozenset(
    {D.METHOD, D.ATTR_READER, D.ATTR_WRITER, D.ATTR_ACCESSOR, D.METHOD_ALIAS, D.INSTANCE_VARIABLE, D.CLASS_VARIABLE, D.METHOD_VISIBILITY}
)
MEMBER_DECL_KINDS = frozenset({K.METHOD, K.INSTANCE_VARIABLE, K.CLASS_VARIABLE})
# Resolution diagnostics the member phase reports (replayed with it).
MEMBER_CODES = frozenset({"unresolved-method-receiver", "unknown-method"})
# Resolution diagnostics that computing a chain reports (computed again with it).
CHAIN_CODES = frozenset({"invalid-superclass", "superclass-mismatch", "invalid-mixin", "superclass-cycle"})
# Beyond these, a member edit resolves from scratch (about as fast, and simpler to trust).
MAX_REPLAY_NAMESPACES = 5000
MAX_REPLAY_DEFINITIONS = 20000
HEAD = -1  # Sentinel for the class itself ahead of its prepended modules.
MAX_ALIAS_HOPS = 64
CONCERN_NAMES = frozenset({"ClassMethods", "Concern"})  # Looked up by name by the concern rules.

Site = tuple[int, ...]  # A cref: declaration ids of the lexical scopes, innermost first.


class Phase(StrEnum):
    """Where a resolver is; the one piece of mode that changes how the shared code behaves."""

    # Phase 1 and deciding which modules are concerns: a lookup that misses may only mean that
    # the definition was not reached yet, so no placeholders are made, and chains are built
    # without the concern rules (which need those lookups).
    NAMESPACES = "namespaces"
    # Phase 2: singleton classes created here are recorded (``_member_created``).
    MEMBERS = "members"
    # Phases 3 and 4 and every incremental update outside a member replay.
    SETTLED = "settled"
    # Replaying members: ``_replay_at`` says which namespaces and which position.
    REPLAY = "replay"


class ReplayUnsafe(Exception):
    """A replay cannot prove it matches a full resolve; the caller resolves fully."""


def dynamic_constant(doc: int, d: DefinitionRecord) -> ResolutionDiagnostic:
    return ResolutionDiagnostic(doc, "dynamic-constant", f"{d.kind.lower()} {d.name!r} is defined inside a method body", d.start, d.end, "warning")


def inside_method(defs: list[DefinitionRecord], d: DefinitionRecord) -> bool:
    """Whether ``d`` sits in a method body (nearer than any namespace)."""
    i = d.parent
    while i >= 0:
        p = defs[i]
        if p.kind == D.METHOD:
            return True
        if p.kind in NAMESPACE_DEF_KINDS:
            return False
        i = p.parent
    return False
