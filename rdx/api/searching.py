"""Declaration search for the Graph façade: argument checks, the choice between ranked and
name search, and where the ranked index comes from (restored from the cache directory, built,
saved). Name matching lives in ``rdx.search.names``, ranking in ``rdx.search.ranked``."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable

from rdx.cache.snapshot import discard, load_blob, save_blob, unwritable, writer_lock
from rdx.model.declarations import DECLARATION_KINDS, DeclarationRecord
from rdx.model.errors import InvalidArgumentError
from rdx.model.languages import FOREIGN_LANGUAGES
from rdx.model.symbols import SymbolKind
from rdx.ruby.query.handles import View
from rdx.search.names import MATCH_MODES, SearchIndex, search_declarations, suggest_names, typo_budget, typo_distance
from rdx.search.ranked import SYMBOLS_NAME, SymbolIndex

__all__ = ["SEARCH_MODES", "find_declarations", "foreign_suggestions", "suggest", "symbol_index"]

SEARCH_MODES = ("ranked", *MATCH_MODES)
RANKED_LIMIT = 100
SYMBOL_KINDS = tuple(k.value for k in SymbolKind)
SEARCHABLE_LANGUAGES = FOREIGN_LANGUAGES | {"ruby"}
Report = Callable[[str, str], None]
# Where a graph saves its ranked index: (cache directory, fingerprint of its documents, where
# problems with the cache go as (code, message)).
Saved = tuple[str, Callable[[], str], Report] | None


def symbol_index(view: View, saved: Saved, restore: bool = True) -> SymbolIndex:
    """The view's ranked-search index: restored from the cache directory when it was saved for
    exactly these documents (and passes its checksum), else built (and saved for the next
    process). Damaged or unwritable cache files are reported through ``saved``'s callback."""
    if view.symbol_index is None:
        fingerprint = saved[1]() if saved is not None else ""
        if saved is not None and restore:
            view.symbol_index = _restore(view, saved[0], fingerprint, saved[2])
        if view.symbol_index is None:
            view.symbol_index = SymbolIndex.build(view.state, view.foreign.state)
            if saved is not None:
                _save(view.symbol_index, saved[0], fingerprint, saved[2])
    return view.symbol_index


def _restore(view: View, cache_dir: str, fingerprint: str, report: Report) -> SymbolIndex | None:
    image, problem = load_blob(cache_dir, SYMBOLS_NAME, "symbols", "the ranked-search index")
    if image is not None:
        try:
            return SymbolIndex.from_image(image, fingerprint, view.state, view.foreign.state)
        except sqlite3.DatabaseError as exc:
            # Checked bytes SQLite still refuses (written by a broken rdx): rebuilt all the same.
            discard(os.path.join(cache_dir, SYMBOLS_NAME))
            problem = f"the ranked-search index {os.path.join(cache_dir, SYMBOLS_NAME)} is corrupted ({exc}); rebuilding it"
    if problem is not None:
        report("snapshot-rebuilt", problem)
    return None


def _save(index: SymbolIndex, cache_dir: str, fingerprint: str, report: Report) -> None:
    try:
        with writer_lock(cache_dir):
            save_blob(cache_dir, SYMBOLS_NAME, "symbols", index.image(fingerprint))
            # The database file of earlier rdx versions is read no more.
            discard(os.path.join(cache_dir, "symbols.sqlite"))
    except OSError as exc:
        report("snapshot-unwritable", unwritable(cache_dir, exc))  # The next process builds it again.


def find_declarations(
    view: View,
    query: str,
    *,
    kind: str | None,
    match_mode: str,
    limit: int | None,
    path: str | None,
    saved: Saved,
    language: str | None = None,
    dependencies: bool = True,
) -> list[int]:
    """Declaration ids for ``query``, best first (see ``Graph.search``). Ranked search covers
    every language; name matching (exact, prefix, fuzzy) covers Ruby's declarations. With
    ``dependencies=False``, declarations defined only in gems' files are left out."""
    if not isinstance(dependencies, bool):
        raise InvalidArgumentError(f"dependencies must be true or false, got {dependencies!r}")
    if dependencies or (limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0)):
        return _find(view, query, kind, match_mode, limit, path, saved, language)
    # Ask for more, then drop the dependencies' declarations until ``limit`` remain.
    wanted = (RANKED_LIMIT if match_mode == "ranked" else None) if limit is None else limit
    found = _find(view, query, kind, match_mode, None if wanted is None else wanted * 4 + 50, path, saved, language)
    decls = view.state.declarations
    kept = [d for d in found if d not in decls or view.origin(d) != "dependency"]
    return kept if wanted is None else kept[:wanted]


def _find(
    view: View, query: str, kind: str | None, match_mode: str, limit: int | None, path: str | None, saved: Saved, language: str | None
) -> list[int]:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgumentError("search query must be a non-empty string")
    if match_mode not in SEARCH_MODES:
        raise InvalidArgumentError(f"match_mode {match_mode!r} is not one of {', '.join(SEARCH_MODES)}")
    if kind is not None and kind not in DECLARATION_KINDS and kind not in SYMBOL_KINDS:
        raise InvalidArgumentError(f"kind {kind!r} is not one of {', '.join(DECLARATION_KINDS)} (Ruby) or {', '.join(SYMBOL_KINDS)} (other languages)")
    if language is not None and language not in SEARCHABLE_LANGUAGES:
        raise InvalidArgumentError(f"language {language!r} is not one of {', '.join(sorted(SEARCHABLE_LANGUAGES))}")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise InvalidArgumentError(f"limit must be a non-negative integer, got {limit!r}")
    if path is not None and not isinstance(path, str):
        raise InvalidArgumentError(f"path must be a string (part of a file path), got {path!r}")
    if match_mode == "ranked":
        return _ranked(view, query, kind, path, RANKED_LIMIT if limit is None else limit, saved, language)
    if language not in (None, "ruby"):
        raise InvalidArgumentError(f"match_mode {match_mode!r} searches Ruby only; use match_mode='ranked' for {language}")
    found = [rec for rec in _names(view, query, match_mode, kind) if path is None or _defined_in(view, rec, path)]
    return [rec.id for rec in (found if limit is None else found[:limit])]


def _name_index(view: View) -> SearchIndex:
    if view.search_index is None:
        view.search_index = SearchIndex(view.state.declarations.values())
    return view.search_index  # type: ignore[no-any-return]


def _demoted(view: View) -> Callable[[DeclarationRecord], bool] | None:
    """The gems' declarations, which rank after the project's (None: the project has none)."""
    if not any(d.library is not None for d in view.state.documents.values()):
        return None
    return lambda rec: view.origin(rec.id) == "dependency"


def _names(view: View, query: str, mode: str, kind: str | None, typos: bool = True) -> list[DeclarationRecord]:
    index = _name_index(view)
    return search_declarations(view.state.declarations.values(), query, mode, kind, index, _demoted(view), typos)


def suggest(view: View, name: str, limit: int, fill: bool = True) -> list[str]:
    """Names of the Ruby declarations ``name`` may have meant, nearest first (see
    ``rdx.search.names.suggest_names``; ``Graph.suggest`` adds other languages'); only its
    typos unless ``fill``."""
    if not isinstance(name, str):
        raise InvalidArgumentError(f"declaration names are strings, got {name!r}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise InvalidArgumentError(f"limit must be a non-negative integer, got {limit!r}")
    return [rec.name for rec in suggest_names(name, _name_index(view), limit, _demoted(view), fill)]


def foreign_suggestions(names: Iterable[str], name: str, limit: int) -> list[str]:
    """Other languages' qualified ``names`` a typo away from ``name`` (``pkg.mod.Clas``), as
    ``suggest_names`` measures them for Ruby: the whole name within two edits, or its last part
    (after the last dot) within its budget; nearest whole name first, then the shorter."""
    wanted = name.strip().lower()
    last = wanted.rsplit(".", 1)[-1]
    near, far = typo_budget(wanted), typo_budget(last)
    ranked: list[tuple[int, int, int, str]] = []
    for candidate in names:
        lowered = candidate.lower()
        whole = typo_distance(wanted, lowered, near)
        part = typo_distance(last, lowered.rsplit(".", 1)[-1], far)
        if whole <= near or part <= far:
            ranked.append((whole, part, len(candidate), candidate))
    ranked.sort()
    return [n for _, _, _, n in ranked[:limit]]


def _defined_in(view: View, rec: DeclarationRecord, path: str) -> bool:
    return any(path in (view.state.documents[k].path or "") for k, _ in rec.definitions)


def _ranked(view: View, query: str, kind: str | None, path: str | None, limit: int, saved: Saved, language: str | None) -> list[int]:
    try:
        ranked = symbol_index(view, saved).search(query, kind=kind, path=path, limit=limit, language=language)
    except sqlite3.DatabaseError as exc:
        # The index failed under the query (SQLite found it malformed): build it again from the
        # graph, never from the cache, and answer from the new one.
        view.symbol_index = None
        if saved is not None:
            saved[2]("snapshot-rebuilt", f"the ranked-search index failed ({exc}); rebuilt from the graph")
        ranked = symbol_index(view, saved, restore=False).search(query, kind=kind, path=path, limit=limit, language=language)
    if " " in query.strip() or any(ch in query for ch in '*"-') or language not in (None, "ruby"):
        return ranked
    # One name-like word ("find_by", "ActRec"): names matching it (exactly, by prefix, by
    # sub-words, fuzzily) come first, then what the docs say.
    found: list[int] = []
    # Typos of the name only when nothing matches otherwise: the words of the docs come next.
    names = _names(view, query, "fuzzy", kind, typos=False) or _names(view, query, "fuzzy", kind)
    for rec in names:
        if len(found) >= limit:
            break
        if rec.kind != "SingletonClass" and (path is None or _defined_in(view, rec, path)):
            found.append(rec.id)
    seen = set(found)
    return found + [d for d in ranked if d not in seen][: max(0, limit - len(found))]
