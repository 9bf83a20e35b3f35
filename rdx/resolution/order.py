"""Load order: the order in which resolution reads documents (core first, requires before requirers)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from rdx.model.records import FileResult
from rdx.model.store import CORE_URI

# Document keys are multiples of DOC_GAP in load order, so that a document added later can take
# a key between its neighbours: every comparison of (document, index) pairs stays a comparison
# of program positions, and no other document's key changes.
DOC_GAP = 1 << 20


def keyed(ordered: Iterable[FileResult]) -> dict[int, FileResult]:
    """Documents in load order -> {document key: document}."""
    return {i * DOC_GAP: d for i, d in enumerate(ordered)}


def load_order(documents: Iterable[FileResult]) -> list[FileResult]:
    """Documents in an approximation of Ruby's load order.

    Where definitions of one namespace are spread over files, Ruby's answers depend on the
    order the files were loaded (which superclass is seen first, which mixin lands last). rdx
    follows ``require``/``require_relative`` edges: starting from each document in URI order,
    a file's requirements come before it (requires sit at the top of files). The core stub is
    always first. Deterministic for the same set of documents.
    """
    docs = sorted(documents, key=lambda d: (d.uri != CORE_URI, d.uri))
    by_path: dict[str, FileResult] = {}
    by_basename: dict[str, list[FileResult]] = {}
    for d in docs:
        if d.path:
            norm = posixpath.normpath(d.path)
            by_path[norm] = d
            by_basename.setdefault(posixpath.basename(norm), []).append(d)

    def target(doc: FileResult, req) -> FileResult | None:  # type: ignore[no-untyped-def]
        name = req.path if req.path.endswith(".rb") else req.path + ".rb"
        if req.relative:
            if not doc.path:
                return None
            return by_path.get(posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), name)))
        candidates = by_basename.get(posixpath.basename(name), ())
        suffix = "/" + name
        for cand in candidates:
            if cand.path and cand.path.endswith(suffix):
                return cand
        return None

    ordered: list[FileResult] = []
    seen: set[str] = set()
    for root in docs:
        if root.uri in seen:
            continue
        seen.add(root.uri)
        # Iterative depth-first walk: (document, index of its next require to follow).
        stack: list[tuple[FileResult, int]] = [(root, 0)]
        while stack:
            doc, i = stack[-1]
            if i < len(doc.requires):
                stack[-1] = (doc, i + 1)
                nxt = target(doc, doc.requires[i])
                if nxt is not None and nxt.uri not in seen:
                    seen.add(nxt.uri)
                    stack.append((nxt, 0))
                continue
            stack.pop()
            ordered.append(doc)
    return ordered



def place(current: dict[int, FileResult], documents: Iterable[FileResult]) -> dict[str, int] | None:
    """Keys for the documents of ``documents`` that ``current`` (key -> document) lacks, such
    that every document sits where the load order of ``documents`` puts it; None when that
    order moves documents of ``current`` relative to each other (a new require pulls a file
    earlier, say) or no key is free between two neighbours: then everything resolves anew."""
    key_of = {d.uri: k for k, d in current.items()}
    placed: dict[str, int] = {}
    pending: list[str] = []
    last = -1
    for d in load_order(documents):
        key = key_of.get(d.uri)
        if key is None:
            pending.append(d.uri)
            continue
        if key <= last:
            return None
        if pending and not _spread(pending, last, key, placed):
            return None
        pending = []
        last = key
    if pending and not _spread(pending, last, last + DOC_GAP * (len(pending) + 1), placed):
        return None
    return placed


def _spread(uris: list[str], low: int, high: int, out: dict[str, int]) -> bool:
    step = (high - low) // (len(uris) + 1)
    if step == 0:
        return False
    for i, uri in enumerate(uris):
        out[uri] = low + step * (i + 1)
    return True
