"""``db/schema.rb`` columns as methods of the models that own the tables (issue 14).

Discovery is per file: a schema file records its tables and columns, a model file its literal
``self.table_name``, ``abstract_class`` and ``table_name_prefix`` (``FileResult.rails``, see
``rdx.discovery.schema``). Joining them needs every file, so it runs where the graph gathers
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

from rdx.discovery.rails import pluralize, singularize
from rdx.ids import definition_id
from rdx.model.kinds import DefinitionKind
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.model.schema import SchemaTable, SettingKind
from rdx.model.store import GraphStore

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


class _Namespace:
    """A class or module as the model rules see it: its superclass and literal settings."""

    __slots__ = ("is_class", "nesting", "settings", "superclass")

    def __init__(self) -> None:
        self.is_class = False
        self.superclass: ConstPath | None = None
        self.nesting: list[Name] = []
        self.settings: dict[SettingKind, str] = {}


def _own(doc: FileResult) -> list[DefinitionRecord]:
    """The definitions discovery found (without those an earlier join appended)."""
    derived = doc.rails.derived if doc.rails is not None else 0
    return doc.definitions[: len(doc.definitions) - derived] if derived else doc.definitions


class _Fragment(NamedTuple):
    """One document's contribution: its classes and modules (full names by lexical nesting,
    with the superclass as written and the nesting it is looked up in) and its settings."""

    spaces: list[tuple[Name, bool, ConstPath | None, list[Name]]]
    settings: list[tuple[Name, SettingKind, str]]


def _fragment(doc: FileResult) -> _Fragment:
    names: dict[int, Name] = {}
    spans: list[tuple[int, int, Name]] = []
    out = _Fragment([], [])
    for index, d in enumerate(_own(doc)):
        if d.kind not in ("Class", "Module") or (d.path is not None and d.path.dynamic):
            continue
        parent = d.parent
        while parent >= 0 and parent not in names:
            parent = doc.definitions[parent].parent
        outer = names.get(parent, ())
        segments = d.path.segments if d.path is not None else (d.name,)
        name = segments if d.path is not None and d.path.absolute else outer + segments
        names[index] = name
        spans.append((d.start, d.end, name))
        out.spaces.append((name, d.kind == "Class", d.superclass, [outer[:i] for i in range(len(outer), 0, -1)]))
    for setting in doc.rails.settings if doc.rails is not None else ():
        around = [(start, name) for start, end, name in spans if start <= setting.offset < end]
        if around:
            out.settings.append((max(around)[1], setting.kind, setting.value))
    return out


def _collect(documents: Mapping[str, FileResult], memo: dict[str, tuple[FileResult, _Fragment]]) -> dict[Name, _Namespace]:
    """Every document's fragment merged, in URI order (the first superclass written wins).
    ``memo`` keeps each document's fragment while the document object stays the same."""
    spaces: dict[Name, _Namespace] = {}
    for uri in sorted(documents):
        doc = documents[uri]
        cached = memo.get(uri)
        if cached is None or cached[0] is not doc:
            cached = memo[uri] = (doc, _fragment(doc))
        for name, is_class, superclass, nesting in cached[1].spaces:
            space = spaces.setdefault(name, _Namespace())
            space.is_class = space.is_class or is_class
            if superclass is not None and space.superclass is None:
                space.superclass, space.nesting = superclass, nesting
        for name, kind, value in cached[1].settings:
            spaces[name].settings[kind] = value
    for uri in [uri for uri in memo if uri not in documents]:
        del memo[uri]
    return spaces


class _Models:
    """Rails' naming rules over the collected namespaces (memoized, pure)."""

    def __init__(self, spaces: dict[Name, _Namespace]) -> None:
        self.spaces = spaces
        self._tables: dict[Name, str] = {}

    def superclass(self, name: Name) -> Name | None:
        space = self.spaces.get(name)
        if space is None or space.superclass is None:
            return None
        path = space.superclass.segments
        if not space.superclass.absolute:
            for outer in space.nesting:
                if outer + path[:1] in self.spaces:
                    return outer + path
        return path

    def abstract(self, name: Name) -> bool:
        if name == _BASE or (name == _APPLICATION and name not in self.spaces):
            return True
        space = self.spaces.get(name)
        return space is not None and space.settings.get(SettingKind.ABSTRACT_CLASS) == "true"

    def is_model(self, name: Name) -> bool:
        """A class that inherits (transitively) from ActiveRecord::Base or ApplicationRecord."""
        seen: set[Name] = set()
        current: Name | None = self.superclass(name)
        while current is not None and current not in seen:
            if current == _BASE or (current == _APPLICATION and current not in self.spaces):
                return True
            seen.add(current)
            current = self.superclass(current)
        return False

    def base_class(self, name: Name) -> Name:
        """The class whose table an STI subclass shares: the topmost non-abstract model."""
        seen = {name}
        while (parent := self.superclass(name)) is not None and parent not in seen and not self.abstract(parent) and self.is_model(parent):
            seen.add(parent)
            name = parent
        return name

    def _prefix(self, name: Name) -> str:
        """``full_table_name_prefix``: the first enclosing module that answers
        ``table_name_prefix``, else the class's own (inherited) ``table_name_prefix``."""
        for i in range(len(name) - 1, 0, -1):
            outer = self.spaces.get(name[:i])
            if outer is not None and (SettingKind.TABLE_NAME_PREFIX in outer.settings or self.is_model(name[:i])):
                return self._own_prefix(name[:i])
        return self._own_prefix(name)

    def _own_prefix(self, name: Name) -> str:
        seen: set[Name] = set()
        current: Name | None = name
        while current is not None and current not in seen and (space := self.spaces.get(current)) is not None:
            if SettingKind.TABLE_NAME_PREFIX in space.settings:
                return space.settings[SettingKind.TABLE_NAME_PREFIX]
            seen.add(current)
            current = self.superclass(current)
        return ""

    def table(self, name: Name) -> str:
        """ActiveRecord's ``compute_table_name`` (or the literal ``self.table_name``)."""
        if name in self._tables:
            return self._tables[name]
        self._tables[name] = ""  # A cycle (a class nested in its own subclass) names no table.
        space = self.spaces[name]
        base = self.base_class(name)
        if SettingKind.TABLE_NAME in space.settings:
            table = space.settings[SettingKind.TABLE_NAME]
        elif base != name:
            table = self.table(base)
        else:
            parent = name[:-1]
            contained = ""
            if parent in self.spaces and self.spaces[parent].is_class and self.is_model(parent) and not self.abstract(parent):
                contained = singularize(self.table(parent)) + "_"
            table = self._prefix(name) + contained + pluralize(_underscore(name[-1]))
        self._tables[name] = table
        return table


def _underscore(word: str) -> str:
    word = re.sub(r"([A-Z\d]+)([A-Z][a-z])", r"\1_\2", word)
    return re.sub(r"([a-z\d])([A-Z])", r"\1_\2", word).lower()


def table_names(documents: Mapping[str, FileResult], memo: dict[str, tuple[FileResult, _Fragment]] | None = None) -> dict[str, list[str]]:
    """Table name -> the models (``A::B``) that own it, sorted: STI subclasses are left out
    (they inherit their base class's methods), and so are abstract classes."""
    spaces = _collect(documents, {} if memo is None else memo)
    models = _Models(spaces)
    out: dict[str, list[str]] = {}
    for name in sorted(spaces):
        space = spaces[name]
        if space.is_class and not models.abstract(name) and models.is_model(name) and models.base_class(name) == name:
            if table := models.table(name):
                out.setdefault(table, []).append("::".join(name))
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
