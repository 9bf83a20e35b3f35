"""What one file says about ActiveRecord tables and models (``FileResult.rails``).

``db/schema.rb``'s ``create_table`` blocks become ``SchemaTable`` records; a model file's
literal ``self.table_name = "x"``, ``self.abstract_class = true`` and ``def
self.table_name_prefix; "admin_"; end`` become ``ModelSetting`` records, located by byte offset
(the join finds the class or module around that offset). Discovery writes these per file,
knowing nothing of other files; ``rdx.rails.schema`` joins tables to models across files and
turns columns into synthetic method definitions. Plain data only; imports nothing of rdx.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

__all__ = ["ModelSetting", "RailsFacts", "SchemaColumn", "SchemaTable", "SettingKind"]


class SchemaColumn(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One column: ``start``/``end`` span the call that adds it (``t.string "name"``) and
    ``name_start``/``name_end`` the name written there (for ``t.references :author``, the
    column ``author_id`` is named at ``:author``)."""

    name: str
    start: int
    end: int
    name_start: int
    name_end: int


class SchemaTable(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """``create_table "users" do |t| ... end``: the primary key (``id`` unless ``id: false``
    or ``primary_key:`` says otherwise) comes first among ``columns``, named at the table name."""

    name: str
    start: int
    end: int
    name_start: int
    name_end: int
    columns: tuple[SchemaColumn, ...] = ()


class SettingKind(StrEnum):
    """The literal model settings that decide which table a model has."""

    TABLE_NAME = "table_name"
    TABLE_NAME_PREFIX = "table_name_prefix"
    ABSTRACT_CLASS = "abstract_class"


class ModelSetting(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A setting written at byte ``offset``, applying to the namespace around it."""

    kind: SettingKind
    offset: int
    value: str


class RailsFacts(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A file's tables and settings. ``derived`` counts the synthetic definitions the join
    appended at the end of the document's ``definitions`` (0 in what discovery returns), so
    the join can drop them before joining again."""

    tables: tuple[SchemaTable, ...] = ()
    settings: tuple[ModelSetting, ...] = ()
    derived: int = 0
