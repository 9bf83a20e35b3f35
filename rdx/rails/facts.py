"""ActiveRecord facts of one file: ``db/schema.rb`` tables and literal model settings.

``rails_facts(root, source, uri)`` reads a parsed file for ``create_table`` blocks (their columns,
in the order Rails adds them) and for the literal settings that decide a model's table:
``self.table_name = "x"``, ``self.abstract_class = true``, ``self.table_name_prefix = "x"`` and
``def self.table_name_prefix; "admin_"; end`` (or ``def self.table_name``). It knows nothing of
other files: which model owns which table is decided by ``rdx.rails.schema`` when the graph
gathers every file's facts. Files that mention none of these words are not walked at all;
the others are walked through namespace bodies and blocks only, with an explicit stack (never
recursion). Never imports resolution.
"""

from __future__ import annotations

from typing import Any

from rdx.model.schema import ModelSetting, RailsFacts, SchemaColumn, SchemaTable, SettingKind

__all__ = ["RAILS_WORDS", "rails_facts"]

# A file holding none of these words has no Rails facts.
RAILS_WORDS = (b"create_table", b"table_name", b"abstract_class")
# Methods of a ``create_table`` block's table definition that add no column.
_NOT_COLUMNS = frozenset({"index", "check_constraint", "foreign_key", "remove", "rename", "change", "change_default", "change_null"})
# Where tables and settings can be written: statements of namespace bodies and blocks (never
# inside method bodies or expressions, which the walk does not enter).
_CONTAINERS = frozenset({"program", "class", "module", "body_statement", "do_block", "block", "block_body"})
_SETTINGS = {"table_name": SettingKind.TABLE_NAME, "table_name_prefix": SettingKind.TABLE_NAME_PREFIX, "abstract_class": SettingKind.ABSTRACT_CLASS}


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")  # type: ignore[no-any-return]


def _literal(node: Any) -> str | None:
    """A literal string, symbol, true or false, as text."""
    if node.type in ("true", "false"):
        return node.type
    if node.type == "simple_symbol":
        return _text(node)[1:]
    if node.type in ("string", "delimited_symbol") and node.named_child_count == 1 and node.named_children[0].type == "string_content":
        return _text(node.named_children[0])
    return None


def _options(args: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for arg in args.named_children if args is not None else ():
        if arg.type == "pair" and (key := arg.child_by_field_name("key")) is not None and (value := arg.child_by_field_name("value")) is not None:
            out[_text(key).strip(":\"'")] = value
    return out


def _names(args: Any) -> list[tuple[str, Any]]:
    """The leading literal names of an argument list (``t.string "a", "b", null: false``)."""
    out = []
    for arg in args.named_children if args is not None else ():
        name = _literal(arg)
        if name is None or arg.type in ("true", "false"):
            break
        out.append((name, arg))
    return out


def _columns(call: Any, param: str) -> list[SchemaColumn]:
    """One statement of a ``create_table`` block: the columns ``t.<type>``, ``t.column``,
    ``t.references``/``t.belongs_to`` (``x_id``, and ``x_type`` when polymorphic) and
    ``t.timestamps`` add."""
    receiver = call.child_by_field_name("receiver")
    method = call.child_by_field_name("method")
    if call.type != "call" or receiver is None or method is None or receiver.type != "identifier" or _text(receiver) != param:
        return []
    name, args = _text(method), call.child_by_field_name("arguments")
    start, end = call.start_byte, call.end_byte
    if name == "timestamps":
        return [SchemaColumn(c, start, end, method.start_byte, method.end_byte) for c in ("created_at", "updated_at")]
    if name in _NOT_COLUMNS:
        return []
    names = _names(args)[:1] if name == "column" else _names(args)
    if name not in ("references", "belongs_to"):
        return [SchemaColumn(n, start, end, node.start_byte, node.end_byte) for n, node in names]
    polymorphic = (value := _options(args).get("polymorphic")) is not None and value.type != "false" and value.type != "nil"
    out = []
    for n, node in names:
        if polymorphic:
            out.append(SchemaColumn(f"{n}_type", start, end, node.start_byte, node.end_byte))
        out.append(SchemaColumn(f"{n}_id", start, end, node.start_byte, node.end_byte))
    return out


def _table(call: Any) -> SchemaTable | None:
    """``create_table "users", id: false do |t| ... end``, or None when not literal."""
    args = call.child_by_field_name("arguments")
    names = _names(args)
    if not names:
        return None
    table, name_node = names[0]
    options = _options(args)
    key: str | None = "id"
    if (value := options.get("primary_key")) is not None:
        key = _literal(value)
    if (value := options.get("id")) is not None and value.type == "false":
        key = None
    columns = [SchemaColumn(key, call.start_byte, call.end_byte, name_node.start_byte, name_node.end_byte)] if key else []
    block = call.child_by_field_name("block")
    params = block.child_by_field_name("parameters") if block is not None else None
    param = params.named_children[0] if params is not None and params.named_child_count else None
    body = block.child_by_field_name("body") if block is not None else None
    if param is not None and param.type == "identifier" and body is not None:
        for statement in body.named_children:
            columns += _columns(statement, _text(param))
    return SchemaTable(table, call.start_byte, call.end_byte, name_node.start_byte, name_node.end_byte, tuple(columns))


def _setting(node: Any) -> ModelSetting | None:
    """``self.table_name = "x"`` or ``def self.table_name_prefix; "x"; end``."""
    if node.type == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "call":
            return None
        receiver, method = left.child_by_field_name("receiver"), left.child_by_field_name("method")
        if receiver is None or receiver.type != "self" or method is None:
            return None
        name, value = _text(method), _literal(right)
    else:
        target, method, body = node.child_by_field_name("object"), node.child_by_field_name("name"), node.child_by_field_name("body")
        if target is None or target.type != "self" or method is None or body is None or node.child_by_field_name("parameters") is not None:
            return None
        name = _text(method)
        if body.type == "body_statement":
            body = body.named_children[0] if body.named_child_count == 1 else None
        value = _literal(body) if body is not None else None
    kind = _SETTINGS.get(name)
    if kind is None or value is None or (kind == SettingKind.ABSTRACT_CLASS) != (value in ("true", "false")):
        return None
    return ModelSetting(kind, node.start_byte, value)


def rails_facts(root: Any, source: bytes, uri: str, has_words: bool | None = None) -> RailsFacts | None:
    """The tables and model settings of one parsed file, or None when it has none. Tables
    count in a schema file only (``db/schema.rb``, ``db/animals_schema.rb``): migrations
    create tables too, but the schema says what the database holds now. ``has_words``: whether
    ``source`` holds one of ``RAILS_WORDS`` when the caller knows (else it is searched)."""
    if not (has_words if has_words is not None else any(word in source for word in RAILS_WORDS)):
        return None
    schema = uri.endswith("schema.rb")
    tables: list[SchemaTable] = []
    settings: list[ModelSetting] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "call":
            if schema and node.child_by_field_name("receiver") is None and (m := node.child_by_field_name("method")) is not None and m.text == b"create_table":
                if (table := _table(node)) is not None:
                    tables.append(table)
            elif (block := node.child_by_field_name("block")) is not None:
                stack.append(block)  # ``ActiveRecord::Schema.define do ... end``.
        elif kind in ("assignment", "singleton_method"):
            if (setting := _setting(node)) is not None:
                settings.append(setting)
        elif kind in _CONTAINERS:
            stack.extend(reversed(node.named_children))
    if not tables and not settings:
        return None
    return RailsFacts(tuple(tables), tuple(settings))
