"""``db/schema.rb`` columns as methods of the models that own the tables (issue 14).

Discovery is per file: a schema file records its tables and columns, a model file its literal
``self.table_name``, ``abstract_class`` and ``table_name_prefix`` (``FileResult.rails``, see
``rdx.rails.facts``). Joining them needs every file, so it runs where the graph gathers
discovery results, before resolution: ``join`` is a pure function of the documents that
returns, for each schema document whose synthetic definitions change, the document to store
instead (the discovered definitions followed by a reopening of each model class that owns a
table, located at its ``create_table``, holding the methods ActiveRecord 6.1 generates for
each column, located at the column). ``apply_schema`` stores them, so edits flow the usual way:
editing schema.rb or a model's table name changes the joined schema document, which the
resolver then updates like any edited file. Only classes that some other file defines get
methods; the model rules (which classes are models, their table names) are Rails' own, read
from discovery records by name, the way ActiveRecord's ``compute_table_name`` does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from hashlib import blake2b
from typing import NamedTuple
from weakref import WeakKeyDictionary

import msgspec

from rdx.model.ids import definition_id
from rdx.model.kinds import DefinitionKind
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.model.schema import SchemaTable, SettingKind
from rdx.model.store import GraphStore
from rdx.rails.macros import pluralize, singularize

__all__ = ["COLUMN_FORMS", "apply_schema", "join", "table_names"]

# What ActiveRecord 6.1's ``define_attribute_methods`` generates per column (asked of
# ActiveRecord in tests/test_rails_schema.py): the accessors, the predicate and every
# dirty-tracking attribute method.
COLUMN_FORMS = (
    "{}", "{}=", "{}?", "{}_before_type_cast", "{}_came_from_user?", "{}_for_database", "{}_in_database",
    "{}_changed?", "{}_change", "{}_was", "{}_will_change!", "{}_previously_changed?", "{}_previous_change",
    "{}_previously_was", "{}_before_last_save", "{}_change_to_be_saved", "saved_change_to_{}?",
    "saved_change_to_{}", "will_save_change_to_{}?", "restore_{}!", "clear_{}_change",
)

_BASE = ("ActiveRecord", "Base")
_APPLICATION = ("ApplicationRecord",)
Name = tuple[str, ...]


class _Names:
    """Qualified names as ids in a trie: one id per (enclosing id, segment), 0 for the top
    level. A name is never copied into a tuple of its segments while the rules run, so a
    d-deep nesting costs O(d), not the O(d^2) of its names' characters (and the lookups of a
    superclass through the nesting around it O(d), not O(d^2))."""

    __slots__ = ("ids", "parent", "segment")

    def __init__(self) -> None:
        self.ids: dict[tuple[int, str], int] = {}
        self.parent: list[int] = [-1]
        self.segment: list[str] = [""]

    def find(self, base: int, segment: str) -> int | None:
        return self.ids.get((base, segment))

    def intern(self, base: int, segments: Name) -> int:
        for segment in segments:
            key = (base, segment)
            found = self.ids.get(key)
            if found is None:
                found = self.ids[key] = len(self.parent)
                self.parent.append(base)
                self.segment.append(segment)
            base = found
        return base

    def text(self, name: int) -> str:
        segments: list[str] = []
        while name > 0:
            segments.append(self.segment[name])
            name = self.parent[name]
        return "::".join(reversed(segments))


class _Namespace:
    """A class or module as the model rules see it: its superclass, the name of the namespace
    around it (where the superclass is looked up) and its literal settings."""

    __slots__ = ("is_class", "nesting", "settings", "superclass")

    def __init__(self) -> None:
        self.is_class = False
        self.superclass: ConstPath | None = None
        self.nesting = 0
        self.settings: dict[SettingKind, str] = {}


def _own(doc: FileResult) -> list[DefinitionRecord]:
    """The definitions discovery found (without those an earlier join appended)."""
    derived = doc.rails.derived if doc.rails is not None else 0
    return doc.definitions[: len(doc.definitions) - derived] if derived else doc.definitions


class _Fragment(NamedTuple):
    """One document's contribution: its classes and modules in document order, each as (the
    entry of the namespace around it or -1, its segments as written, whether they are absolute,
    whether it is a class, its superclass as written), and its settings as (entry, kind, value).
    Names stay relative to the entry around them, so a fragment is linear in the document."""

    spaces: list[tuple[int, Name, bool, bool, ConstPath | None]]
    settings: list[tuple[int, SettingKind, str]]


def _fragment(doc: FileResult) -> _Fragment:
    entries: dict[int, int] = {}
    spans: list[tuple[int, int, int]] = []
    out = _Fragment([], [])
    for index, d in enumerate(_own(doc)):
        if d.kind not in ("Class", "Module") or (d.path is not None and d.path.dynamic):
            continue
        parent = d.parent
        # Definitions between two namespaces (methods, singleton classes) are at most the
        # discovery nesting limit deep, so this walk is bounded.
        while parent >= 0 and parent not in entries:
            parent = doc.definitions[parent].parent
        segments = d.path.segments if d.path is not None else (d.name,)
        entries[index] = len(out.spaces)
        spans.append((d.start, len(out.spaces), d.end))
        out.spaces.append((entries.get(parent, -1), segments, d.path is not None and d.path.absolute, d.kind == "Class", d.superclass))
    # Each setting belongs to the innermost namespace around it: one sweep in offset order
    # with a stack of the spans entered so far (the latest start on top).
    spans.sort()
    stack: list[tuple[int, int, int]] = []
    i = 0
    for setting in sorted(doc.rails.settings, key=lambda s: s.offset) if doc.rails is not None else ():
        while i < len(spans) and spans[i][0] <= setting.offset:
            stack.append(spans[i])
            i += 1
        while stack and stack[-1][2] <= setting.offset:
            stack.pop()
        if stack:
            out.settings.append((stack[-1][1], setting.kind, setting.value))
    return out


def _collect(documents: Mapping[str, FileResult], memo: dict[str, tuple[FileResult, _Fragment]]) -> tuple[_Names, dict[int, _Namespace]]:
    """Every document's fragment merged, in URI order (the first superclass written wins).
    ``memo`` keeps each document's fragment while the document object stays the same."""
    names = _Names()
    spaces: dict[int, _Namespace] = {}
    for uri in sorted(documents):
        doc = documents[uri]
        cached = memo.get(uri)
        if cached is None or cached[0] is not doc:
            cached = memo[uri] = (doc, _fragment(doc))
        ids: list[int] = []
        for outer, segments, absolute, is_class, superclass in cached[1].spaces:
            around = ids[outer] if outer >= 0 else 0
            name = names.intern(0 if absolute else around, segments)
            ids.append(name)
            space = spaces.setdefault(name, _Namespace())
            space.is_class = space.is_class or is_class
            if superclass is not None and space.superclass is None:
                space.superclass, space.nesting = superclass, around
        for entry, kind, value in cached[1].settings:
            spaces[ids[entry]].settings[kind] = value
    for uri in [uri for uri in memo if uri not in documents]:
        del memo[uri]
    return names, spaces


class _Models:
    """Rails' naming rules over the collected namespaces (memoized, pure). Every rule follows
    chains (superclasses, enclosing namespaces, a table's dependencies) with loops, never
    recursion, and remembers its answers, so long chains cost linear time."""

    def __init__(self, names: _Names, spaces: dict[int, _Namespace]) -> None:
        self.names = names
        self.spaces = spaces
        self.base = names.intern(0, _BASE)
        self.application = names.intern(0, _APPLICATION)
        self._tables: dict[int, str] = {}
        self._superclasses: dict[int, int | None] = {}
        self._models: dict[int, bool] = {}
        self._bases: dict[int, int] = {}

    def superclass(self, name: int) -> int | None:
        if name in self._superclasses:
            return self._superclasses[name]
        space = self.spaces.get(name)
        found = None
        if space is not None and space.superclass is not None and space.superclass.segments:
            path = space.superclass.segments
            base = 0
            if not space.superclass.absolute:
                outer = space.nesting
                while outer > 0:
                    first = self.names.find(outer, path[0])
                    if first is not None and first in self.spaces:
                        base = outer
                        break
                    outer = self.names.parent[outer]
            found = self.names.intern(base, path)
        self._superclasses[name] = found
        return found

    def _is_root(self, name: int) -> bool:
        return name == self.base or (name == self.application and name not in self.spaces)

    def abstract(self, name: int) -> bool:
        if self._is_root(name):
            return True
        space = self.spaces.get(name)
        return space is not None and space.settings.get(SettingKind.ABSTRACT_CLASS) == "true"

    def is_model(self, name: int) -> bool:
        """A class that inherits (transitively) from ActiveRecord::Base or ApplicationRecord.
        Every class on the way gets the same answer, so each chain is followed once."""
        if name in self._models:
            return self._models[name]
        walked = [name]
        seen: set[int] = set()
        found = False
        current = self.superclass(name)
        while current is not None and current not in seen:
            if self._is_root(current):
                found = True
                break
            if current in self._models:
                found = self._models[current]
                break
            seen.add(current)
            walked.append(current)
            current = self.superclass(current)
        for n in walked:
            self._models[n] = found
        return found

    def base_class(self, name: int) -> int:
        """The class whose table an STI subclass shares: the topmost non-abstract model."""
        if name in self._bases:
            return self._bases[name]
        walked = [name]
        seen = {name}
        current = name
        cycle = False
        while (parent := self.superclass(current)) is not None and not self.abstract(parent) and self.is_model(parent):
            if parent in seen:
                cycle = True
                break
            if parent in self._bases:
                current = self._bases[parent]
                break
            seen.add(parent)
            walked.append(parent)
            current = parent
        if not cycle:
            # Every class on a walk that ended without meeting itself again ends where it did.
            for n in walked:
                self._bases[n] = current
        return current

    def _prefix(self, name: int) -> str:
        """``full_table_name_prefix``: the first enclosing module that answers
        ``table_name_prefix``, else the class's own (inherited) ``table_name_prefix``."""
        outer = self.names.parent[name]
        while outer > 0:
            space = self.spaces.get(outer)
            if space is not None and (SettingKind.TABLE_NAME_PREFIX in space.settings or self.is_model(outer)):
                return self._own_prefix(outer)
            outer = self.names.parent[outer]
        return self._own_prefix(name)

    def _own_prefix(self, name: int) -> str:
        seen: set[int] = set()
        current: int | None = name
        while current is not None and current not in seen and (space := self.spaces.get(current)) is not None:
            if SettingKind.TABLE_NAME_PREFIX in space.settings:
                return space.settings[SettingKind.TABLE_NAME_PREFIX]
            seen.add(current)
            current = self.superclass(current)
        return ""

    def _depends_on(self, name: int) -> int | None:
        """The class whose table ``name``'s table is made from, if any: its STI base class, or
        the model class it is nested in (``contained``)."""
        space = self.spaces[name]
        if SettingKind.TABLE_NAME in space.settings:
            return None
        base = self.base_class(name)
        if base != name:
            return base
        parent = self.names.parent[name]
        if parent > 0 and parent in self.spaces and self.spaces[parent].is_class and self.is_model(parent) and not self.abstract(parent):
            return parent
        return None

    def table(self, name: int) -> str:
        """ActiveRecord's ``compute_table_name`` (or the literal ``self.table_name``). The
        tables a table depends on are computed first, with an explicit stack; a table still
        being computed reads as "" (a class nested in its own subclass names no table)."""
        if name in self._tables:
            return self._tables[name]
        self._tables[name] = ""
        pending = [name]
        while pending:
            current = pending[-1]
            dependency = self._depends_on(current)
            if dependency is not None and dependency not in self._tables:
                self._tables[dependency] = ""
                pending.append(dependency)
                continue
            pending.pop()
            self._tables[current] = self._table_from(current, dependency)
        return self._tables[name]

    def _table_from(self, name: int, dependency: int | None) -> str:
        space = self.spaces[name]
        if SettingKind.TABLE_NAME in space.settings:
            return space.settings[SettingKind.TABLE_NAME]
        if dependency is not None and dependency == self.base_class(name) and dependency != name:
            return self._tables[dependency]
        contained = singularize(self._tables[dependency]) + "_" if dependency is not None else ""
        return self._prefix(name) + contained + pluralize(_underscore(self.names.segment[name]))


def _underscore(word: str) -> str:
    word = re.sub(r"([A-Z\d]+)([A-Z][a-z])", r"\1_\2", word)
    return re.sub(r"([a-z\d])([A-Z])", r"\1_\2", word).lower()


def table_names(documents: Mapping[str, FileResult], memo: dict[str, tuple[FileResult, _Fragment]] | None = None) -> dict[str, list[str]]:
    """Table name -> the models (``A::B``) that own it, sorted: STI subclasses are left out
    (they inherit their base class's methods), and so are abstract classes."""
    names, spaces = _collect(documents, {} if memo is None else memo)
    models = _Models(names, spaces)
    owners = [(names.text(name), name) for name, space in spaces.items()
              if space.is_class and not models.abstract(name) and models.is_model(name) and models.base_class(name) == name]
    out: dict[str, list[str]] = {}
    # Tables are computed in the order of the models' names, as they always were.
    for text, name in sorted(owners, key=lambda owner: owner[0].split("::")):
        if table := models.table(name):
            out.setdefault(table, []).append(text)
    return out


def _synthetic(uri: str, tables: tuple[SchemaTable, ...], owners: dict[str, list[str]], first: int) -> list[DefinitionRecord]:
    """A reopening of each owning model at its ``create_table``, with the column methods."""
    out: list[DefinitionRecord] = []
    for table in tables:
        for model in owners.get(table.name, ()):
            segments = tuple(model.split("::"))
            owner = first + len(out)
            path = ConstPath(segments, True, table.name_start, table.name_end)
            out.append(DefinitionRecord(
                id=definition_id(uri, table.start, f"{model}#schema"), kind=DefinitionKind.CLASS, name=segments[-1], start=table.start,
                end=table.end, name_start=table.name_start, name_end=table.name_end, path=path,
            ))
            seen: set[str] = set()
            for column in table.columns:
                if column.name in seen:
                    continue
                seen.add(column.name)
                for form in COLUMN_FORMS:
                    method = form.format(column.name)
                    out.append(DefinitionRecord(
                        id=definition_id(uri, column.start, f"{model}#{method}"), kind=DefinitionKind.METHOD, name=method, start=column.start,
                        end=column.end, name_start=column.name_start, name_end=column.name_end, parent=owner, params="(...)", generated=True,
                    ))
    return out


def _digest(records: list[DefinitionRecord]) -> int:
    return int.from_bytes(blake2b(msgspec.msgpack.encode(records), digest_size=8).digest(), "little") if records else 0


def join(documents: Mapping[str, FileResult], memo: dict[str, tuple[FileResult, _Fragment]] | None = None) -> Iterator[FileResult]:
    """The schema documents whose synthetic definitions differ from what they hold now, each
    with its new ones. The content hash mixes the synthetic definitions in (reversibly), so a
    resolved graph saved from joined documents never pairs with freshly discovered ones."""
    schemas = [d for d in documents.values() if d.rails is not None and d.rails.tables and d.library is None]
    if not schemas:
        return
    owners = table_names(documents, memo)
    for doc in schemas:
        assert doc.rails is not None
        own = _own(doc)
        old = doc.definitions[len(own):]
        new = _synthetic(doc.uri, doc.rails.tables, owners, len(own))
        if new == old:
            continue
        rails = msgspec.structs.replace(doc.rails, derived=len(new))
        content_hash = doc.content_hash ^ _digest(old) ^ _digest(new)
        yield msgspec.structs.replace(doc, definitions=own + new, rails=rails, content_hash=content_hash)


# Per store, each document's fragment (a cache only: the same answers without it).
_MEMOS: WeakKeyDictionary[GraphStore, dict[str, tuple[FileResult, _Fragment]]] = WeakKeyDictionary()


def apply_schema(store: GraphStore) -> None:
    """Store the joined schema documents that changed (``Graph.resolve`` calls this first)."""
    if not (store.replaced or store.added or store.removed) and store.resolved is not None:
        return
    for doc in list(join(store.documents, _MEMOS.setdefault(store, {}))):
        store.put_document(doc)
