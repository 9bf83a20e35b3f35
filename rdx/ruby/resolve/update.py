"""The context of one incremental update: what its steps (``Incremental``) share.

It owns the copy-on-write bookkeeping of the state being built, so that no step copies a
record or a row twice and none writes into the published state it started from.
"""

from __future__ import annotations

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.edits import SkeletonDiff
from rdx.ruby.resolve.vocabulary import ReplayUnsafe

__all__ = ["MAX_DETOUR_DOCUMENTS", "Detour", "UpdateContext", "merge_refresh"]

# At most this many other documents are moved out of the way of an edit (``Incremental._detour``).
MAX_DETOUR_DOCUMENTS = 16


class Detour(ReplayUnsafe):
    """An edit removes what definitions of other ``documents`` depend on: they declare
    something else without it (``module Y`` after ``Y = Target`` reopens Target; without the
    alias it declares Y), or their lookups find it. Raised before the update writes anything,
    so that the updater can take those documents out, apply the edit and put them back, each a
    one-document update of its own (``Incremental.refresh_members``)."""

    def __init__(self, reason: str, documents: set[int]) -> None:
        super().__init__(reason)
        self.documents = documents


class UpdateContext:
    """What one incremental update carries between its steps: the document and its two
    versions, their alignment, the previous (published) state and the one being built, the
    declarations that go, the documents whose references to refresh, and which records and
    definition rows the new state already owns (copy-on-write)."""

    __slots__ = (
        "_records", "_rows", "deleted", "demoted", "diff", "gone", "index", "left_chains", "left_metas", "lost_bodies", "lookups_before", "new", "old", "placeholders", "prev", "rechain",
        "bounds", "loading", "realiased", "refresh", "reopened", "reopened_constants", "revisible", "state", "unnamed",
    )

    def __init__(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff, prev: ResolvedState, state: ResolvedState, gone: list[int]) -> None:
        self.index, self.old, self.new, self.diff = index, old, new, diff
        self.prev, self.state, self.gone = prev, state, gone
        self.refresh: dict[int, set[str] | None] = {}
        # Documents whose references name a declaration the update deleted (``deleted``), by
        # those names: only references that found a deleted declaration, or that name one on
        # the way to another (``A::B``), can change (``References.store_references``).
        self.unnamed: dict[int, set[str] | None] = {}
        self.deleted: set[int] = set()
        # Names of namespaces that lose a reopening here, and what other documents' lookups
        # of those names found before (a constant left defined only further down in the
        # document that looks it up is no longer visible there while it loads).
        self.reopened: set[str] = set()
        self.reopened_constants: set[str] = set()  # Those of them that name constants.
        self.realiased: set[int] = set()  # Constant aliases among them (what they name may change).
        # Constants that lose or gain a ``private_constant``/``public_constant`` definition
        # here: their visibility is settled again once the edit is in.
        self.revisible: set[int] = set()
        # For each of them, the largest document key whose lookups of it may change (None: any;
        # ``Incremental._reopened_bounds``).
        self.bounds: dict[str, int | None] = {}
        self.lookups_before: dict[int, tuple] = {}
        # Documents whose load-time references start with the name of a namespace that gained
        # or lost a reopening, by those names: only those can find something else (whether the
        # namespace is defined before them: ``Lookup.lookup_path_at``).
        self.loading: dict[int, set[str]] = {}
        # Placeholders that the removed or changed lookups found (``Placeholders``).
        self.placeholders: set[int] = set()
        # Namespaces that stay as placeholders -> the namespaces whose superclass or mixin
        # lookups find them (``Placeholders.demotable``).
        self.demoted: dict[int, set[int]] = {}
        # Placeholders whose singleton classes left the chains the update computed again.
        self.left_chains: set[int] = set()
        # Singleton classes that lost their last ``class << x`` body: the singleton class
        # those bodies declared goes (``Placeholders.drop_lost_bodies``).
        self.lost_bodies: set[int] = set()
        # What the chains of the singleton classes of singleton classes that go passed
        # through, nearest first: those only such chains needed go too.
        self.left_metas: list[int] = []
        # Namespaces that lost a reopening with a superclass or mixins: their chains change.
        self.rechain: set[int] = set()
        self._records: set[int] = set()
        self._rows: set[int] = {index}

    def own(self, decl_id: int) -> DeclarationRecord:
        """The record of ``decl_id`` in the new state, copied on first use."""
        decls = self.state.declarations
        if decl_id not in self._records:
            decls[decl_id] = decls[decl_id].copy()
            self._records.add(decl_id)
        return decls[decl_id]

    def own_row(self, doc: int) -> list[int | None]:
        """Document ``doc``'s definition -> declaration row in the new state, copied on first use."""
        rows = self.state.definition_declarations
        if doc not in self._rows:
            rows[doc] = list(rows[doc])
            self._rows.add(doc)
        return rows[doc]


def merge_refresh(into: dict[int, set[str] | None], more: dict[int, set[str] | None]) -> None:
    """Documents to refresh: a set of names refreshes only the references naming them, None
    every reference of the document; None wins."""
    for doc, names in more.items():
        if doc in into:
            have = into[doc]
            into[doc] = None if have is None or names is None else have | names
        else:
            into[doc] = names
