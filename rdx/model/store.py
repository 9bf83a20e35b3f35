"""The graph store: documents from discovery and the declarations resolution built from them.

The store is plain data with lookups by id and by name. Discovery results go in through
``put_document``/``remove_document``; resolution replaces the resolved part wholesale through
``ResolvedState``. Nothing here parses or resolves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult

__all__ = ["CORE_URI", "GraphStore", "MemberBookkeeping", "ResolutionDiagnostic", "ResolvedImage", "ResolvedState"]

# The built-in description of Ruby core, indexed like any other document and always first.
CORE_URI = "rdx-core:///core.rb"


class ResolutionDiagnostic(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A problem resolution found (an unresolvable mixin, a superclass mismatch...): document
    index, stable kebab-case code, one-sentence message, byte span and severity."""

    doc: int
    code: str
    message: str
    start: int
    end: int
    severity: str


@dataclass
class ResolvedState:
    """Everything resolution computes; replaced as a whole by each ``resolve()``."""

    # Documents by document key, in resolution (load) order: core first, requires before
    # requirers. Keys are sparse ordered integers (``rdx.ruby.resolve.order``): a document keeps
    # its key when files are added or removed around it, and comparing keys compares positions.
    documents: dict[int, FileResult] = field(default_factory=dict)
    declarations: dict[int, DeclarationRecord] = field(default_factory=dict)
    by_name: dict[str, int] = field(default_factory=dict)
    # Per document key: declaration id of each definition (None when it declares nothing).
    definition_declarations: dict[int, list[int | None]] = field(default_factory=dict)
    # Per document key: resolved declaration id of each constant reference (None: unresolved).
    constant_targets: dict[int, list[int | None]] = field(default_factory=dict)
    # Per document key: declaration id of each method reference's receiver (None: unknown).
    method_receivers: dict[int, list[int | None]] = field(default_factory=dict)
    # Linearized ancestors of every namespace declaration, self included.
    ancestors: dict[int, tuple[int, ...]] = field(default_factory=dict)
    diagnostics: list[ResolutionDiagnostic] = field(default_factory=list)
    object_id: int = 0


class ResolvedImage(msgspec.Struct, array_like=True, gc=False):
    """A resolved state plus the resolver's bookkeeping, as plain data for the snapshot.

    ``fingerprint`` names the exact documents it was resolved from (see ``rdx.api.graph``); an
    image is only ever restored onto those documents. Dict-shaped parts are stored as parallel
    lists where that decodes faster."""

    fingerprint: str
    # Document key -> URI, in load order.
    uris: dict[int, str]
    # As the state holds it (decoding a dict is done in C). The name table is rebuilt from it,
    # sharing the records' name strings: stored, it would decode 900,000 copies of them.
    declarations: dict[int, DeclarationRecord]
    definition_declarations: dict[int, list[int | None]]
    constant_targets: dict[int, list[int | None]]
    method_receivers: dict[int, list[int | None]]
    ancestor_ids: list[int]
    ancestors: list[tuple[int, ...]]
    diagnostics: list[ResolutionDiagnostic]
    object_id: int
    object_mixins: bool
    # (namespace, document key, index into that document's external mixins)
    externals: list[tuple[int, int, int]]
    concern_deps: dict[int, list[int]]
    concern_cache: dict[int, bool]
    member_created: list[int]
    removed_keys: dict[int, list[str]]
    # Needed only by member-edit replays and new ancestor chains, so kept encoded until then
    # (a ``MemberBookkeeping`` and a list of ancestor-chain times parallel to ``ancestors``):
    # decoding them would cost a warm start hundreds of thousands of objects.
    members: msgspec.Raw
    times: msgspec.Raw


class MemberBookkeeping(msgspec.Struct, array_like=True, gc=False):
    """What ``Resolver.refresh_members`` needs from the member phase (see the resolver)."""

    member_index: dict[int, list[tuple[int, int]]]
    doc_owners: dict[int, list[int | None]]
    lookup_keys: dict[int, list[str]]


class GraphStore:
    """Documents keyed by URI plus the latest resolved state."""

    def __init__(self) -> None:
        self.documents: dict[str, FileResult] = {}
        self.resolved: ResolvedState | None = None
        self.revision = 0
        self.resolved_revision = -1
        # Since the last resolve: URIs whose documents were replaced, added or removed (a URI
        # is in one set at most; removing an added document forgets it).
        self.replaced: set[str] = set()
        self.added: set[str] = set()
        self.removed: set[str] = set()

    def put_document(self, result: FileResult) -> None:
        uri = result.uri
        if uri in self.documents:
            if uri not in self.added:
                self.replaced.add(uri)
        elif uri in self.removed:
            self.removed.discard(uri)
            self.replaced.add(uri)
        else:
            self.added.add(uri)
        self.documents[uri] = result
        self.revision += 1

    def remove_document(self, uri: str) -> bool:
        if self.documents.pop(uri, None) is None:
            return False
        self.replaced.discard(uri)
        if uri in self.added:
            self.added.discard(uri)
        else:
            self.removed.add(uri)
        self.revision += 1
        return True

    def mark_resolved(self, state: ResolvedState) -> None:
        self.resolved = state
        self.resolved_revision = self.revision
        self.replaced.clear()
        self.added.clear()
        self.removed.clear()

    @property
    def is_stale(self) -> bool:
        return self.resolved is None or self.resolved_revision != self.revision
