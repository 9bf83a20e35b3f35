"""Rails and ActiveSupport macros as the methods they define (issue 14, first part).

``has_many :comments`` defines ``comments``, ``comments=``, ``comment_ids`` and
``comment_ids=``; ``belongs_to :author`` defines ``author``, ``author=``, ``build_author``,
``create_author``, ``create_author!`` and ``reload_author``; ``scope``, ``enum``, ``delegate``,
``class_attribute``, ``mattr_accessor`` and friends, ``alias_attribute`` and ``attribute`` do
what ActiveRecord 6.1 and ActiveSupport do (``tests/test_rails_macros.py`` asks ActiveRecord
itself, on models loaded on an in-memory SQLite database). Each becomes a synthetic ``Method``
definition located at the macro call, named at the argument that names it, so definition,
hover, references and completion work on them. Only literal arguments count, and splatted
constants this file assigns a literal list of names (``delegate(*QUERYING_METHODS, to: :all)``,
``enum status: STATUSES``; ``rdx.ruby.evaluate.literals``): a macro whose names are computed
defines nothing here.

The handlers take the discovery walker (``rdx.ruby.discover.parse``) and use its small API
(``_directive_scope``, ``_add``, ``_comments_above``, ``_symbol_args``, ``const_refs``); this
module never imports the walker's. An association's literal ``class_name:`` is a constant
reference to its target class, so definition and references reach it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rdx.model.records import ConstPath, ConstRef
from rdx.ruby.evaluate.literals import constant_names, merge_splatted
from rdx.ruby.syntax import symbol_name

__all__ = ["RAILS_DIRECTIVES", "pluralize", "singularize"]

# Plural -> singular for what association names are made of (ActiveSupport's inflector rules
# that real association names need; irregular words are listed).
_IRREGULAR = {"people": "person", "men": "man", "women": "woman", "children": "child", "mice": "mouse", "data": "datum"}
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x"), ("zes", "z"), ("ses", "s"), ("s", ""))


def singularize(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + replacement
    return word


_PLURAL_IRREGULAR = {singular: plural for plural, singular in _IRREGULAR.items() if plural != "data"}


def pluralize(word: str) -> str:
    """The inflector's plural (``status`` -> ``statuses``, ``category`` -> ``categories``,
    ``admin_person`` -> ``admin_people``)."""
    head, _, last = word.rpartition("_")
    if last in _PLURAL_IRREGULAR:
        return (f"{head}_" if head else "") + _PLURAL_IRREGULAR[last]
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def _pairs(node: Any, keys: dict[int, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments written literally (``to: :author``): key -> value node; ``keys``, when
    given, receives each value's key node by the value's start (``parent`` costs O(depth))."""
    out: dict[str, Any] = {}
    args = node.child_by_field_name("arguments")
    for arg in args.named_children if args is not None else ():
        items = [arg] if arg.type == "pair" else (arg.named_children if arg.type == "hash" else [])
        for pair in items:
            if pair.type != "pair":
                continue
            key = pair.child_by_field_name("key")
            value = pair.child_by_field_name("value")
            if key is not None and value is not None:
                text = key.text.decode("utf-8", "replace")
                out[text.rstrip(":").lstrip(":").strip("\"'")] = value
                if keys is not None:
                    keys[value.start_byte] = key
    return out


def _literal(node: Any) -> str | bool | None:
    """A symbol, string, true or false written literally."""
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "simple_symbol":
        return node.text.decode("utf-8", "replace")[1:]
    if node.type in ("string", "bare_symbol", "bare_string") and node.named_child_count == 1 and node.named_children[0].type == "string_content":
        return node.named_children[0].text.decode("utf-8", "replace")
    return None


def _names(walker: Any, node: Any, *, strings: bool = False) -> list[tuple[str, Any]]:
    """The macro's literal name arguments (``Walker._symbol_args``), plain strings too when
    ``strings`` (``delegate "name", to: :x``), and the names a splatted constant holding a
    literal list stands for (``delegate(*QUERYING_METHODS, to: :all)``)."""
    names = walker._symbol_args(node)
    args = node.child_by_field_name("arguments")
    if strings and args is not None:
        names += [(name, arg) for arg in args.named_children if arg.type == "string" and (name := symbol_name(arg)) is not None]
        names.sort(key=lambda entry: entry[1].start_byte)
    return merge_splatted(node, names, walker.root)


def _define(walker: Any, node: Any, name_node: Any, names: list[str], scope: Any, *, singleton: bool = False) -> None:
    comments = walker._comments_above(node)
    visibility = scope.visibility_at(node.start_byte) if not singleton else "public"
    for name in names:
        walker._add("Method", name, node, name_node, scope, visibility=visibility, params="(...)", comments=comments, self_receiver=singleton, generated=True)


def _class_name(walker: Any, node: Any, ns: Any) -> None:
    """``class_name: "Shop::Product"``: a reference to the association's target class,
    resolved from the model's nesting as ActiveRecord's ``compute_type`` looks it up."""
    value = _pairs(node).get("class_name")
    if value is None or value.type != "string" or value.named_child_count != 1 or value.named_children[0].type != "string_content":
        return
    content = value.named_children[0]
    text = content.text.decode("utf-8", "replace")
    segments = tuple(text.removeprefix("::").split("::"))
    if all(s[:1].isupper() and s.isidentifier() for s in segments):
        path = ConstPath(segments, text.startswith("::"), content.start_byte, content.end_byte)
        walker.const_refs.append(ConstRef(path, ns.index))


def _association(walker: Any, node: Any, macro: str, scope: Any) -> None:
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    _class_name(walker, node, ns)
    for name, arg in _names(walker, node)[:1]:
        if macro in ("has_many", "has_and_belongs_to_many"):
            ids = singularize(name) + "_ids"
            names = [name, f"{name}=", ids, f"{ids}="]
        else:
            names = [name, f"{name}=", f"build_{name}", f"create_{name}", f"create_{name}!", f"reload_{name}"]
        _define(walker, node, arg, names, ns)


def _scope(walker: Any, node: Any, macro: str, scope: Any) -> None:
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    for name, arg in _names(walker, node)[:1]:
        _define(walker, node, arg, [name], ns, singleton=True)


def _enum_values(value: Any, root: Any) -> list[str]:
    if value.type == "constant":  # ``enum status: STATUSES`` with ``STATUSES = %i[...]`` in this file.
        return [name for name, _ in constant_names(value, root) or ()]
    if value.type in ("array", "symbol_array", "string_array"):
        return [v for item in value.named_children if isinstance(v := _literal(item), str)]
    if value.type == "hash":
        out = []
        for pair in value.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            if key is not None:
                out.append(key.text.decode("utf-8", "replace").rstrip(":").lstrip(":").strip("\"'"))
        return out
    return []


def _enum(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``enum status: [:draft, :published], _prefix: true``: per value ``draft?``, ``draft!``,
    the scopes ``draft`` and ``not_draft`` (with the prefix or suffix), and the class method
    ``statuses``."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    keys: dict[int, Any] = {}
    options = _pairs(node, keys)
    prefix_option = _literal(options["_prefix"]) if "_prefix" in options else None
    suffix_option = _literal(options["_suffix"]) if "_suffix" in options else None
    for attribute, value in options.items():
        if attribute.startswith("_"):
            continue
        values = _enum_values(value, walker.root)
        if not values:
            continue
        prefix = f"{attribute}_" if prefix_option is True else (f"{prefix_option}_" if isinstance(prefix_option, str) else "")
        suffix = f"_{attribute}" if suffix_option is True else (f"_{suffix_option}" if isinstance(suffix_option, str) else "")
        key = keys.get(value.start_byte, value)
        for item in values:
            method = f"{prefix}{item}{suffix}"
            _define(walker, node, key, [f"{method}?", f"{method}!"], ns)
            _define(walker, node, key, [method, f"not_{method}"], ns, singleton=True)
        _define(walker, node, key, [pluralize(attribute)], ns, singleton=True)


def _delegate(walker: Any, node: Any, macro: str, scope: Any) -> None:
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    options = _pairs(node)
    if "to" not in options:
        return  # ActiveSupport raises ArgumentError.
    # ``to:`` names a method (``:author``, ``"@x"``) or is code such as a constant
    # (``to: SolidusAdmin::BaseController``): either way the names are defined, but only a
    # method name can make a ``prefix: true`` (ActiveSupport raises for the others).
    target = _literal(options["to"])
    prefix_option = _literal(options["prefix"]) if "prefix" in options else None
    if prefix_option is True and not isinstance(target, str):
        return
    prefix = f"{target}_" if prefix_option is True else (f"{prefix_option}_" if isinstance(prefix_option, str) else "")
    for name, arg in _names(walker, node, strings=True):
        _define(walker, node, arg, [prefix + name], ns)


def _class_attribute(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``class_attribute :x``: ``x``, ``x=``, ``x?`` on the class; ``x``, ``x?`` and ``x=`` on
    instances unless ``instance_reader:``/``instance_writer:``/``instance_predicate:`` say no."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    options = {k: _literal(v) for k, v in _pairs(node).items()}
    predicate = options.get("instance_predicate", True) is not False
    for name, arg in _names(walker, node):
        _define(walker, node, arg, [name, f"{name}=", f"{name}?"] if predicate else [name, f"{name}="], ns, singleton=True)
        instance = []
        if options.get("instance_reader", True) is not False and options.get("instance_accessor", True) is not False:
            instance += [name] + ([f"{name}?"] if predicate else [])
        if options.get("instance_writer", True) is not False and options.get("instance_accessor", True) is not False:
            instance.append(f"{name}=")
        _define(walker, node, arg, instance, ns)


def _module_attribute(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``mattr_accessor``/``cattr_accessor`` and the reader and writer forms: the class (or
    module) methods, and the instance ones unless ``instance_reader:``/``instance_writer:``/
    ``instance_accessor: false``."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    options = {k: _literal(v) for k, v in _pairs(node).items()}
    reader = macro.endswith(("_reader", "_accessor"))
    writer = macro.endswith(("_writer", "_accessor"))
    instance = options.get("instance_accessor", True) is not False
    for name, arg in _names(walker, node):
        names = ([name] if reader else []) + ([f"{name}="] if writer else [])
        _define(walker, node, arg, names, ns, singleton=True)
        own = []
        if reader and instance and options.get("instance_reader", True) is not False:
            own.append(name)
        if writer and instance and options.get("instance_writer", True) is not False:
            own.append(f"{name}=")
        _define(walker, node, arg, own, ns)


def _attribute(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``attribute :price``: the reader and writer (the dirty-tracking helpers are left out)."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    for name, arg in _names(walker, node)[:1]:
        _define(walker, node, arg, [name, f"{name}="], ns)


def _alias_attribute(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``alias_attribute :title, :name``: ``title``, ``title=`` and ``title?`` (the
    dirty-tracking helpers ActiveRecord also aliases are left out)."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    args = _names(walker, node)
    if len(args) == 2:
        name, arg = args[0]
        _define(walker, node, arg, [name, f"{name}=", f"{name}?"], ns)


# What ActiveRecord 6.1's ``store_accessor`` defines per key (``_store_accessors_module``):
# the accessor pair and the dirty-tracking helpers of a stored key.
_STORE_FORMS = ("{}", "{}=", "{}_changed?", "{}_change", "{}_was", "saved_change_to_{}?", "saved_change_to_{}", "{}_before_last_save")


def _affix(option: str | bool | None, store: str) -> str:
    """``prefix:``/``suffix:`` of a stored key: true means the store's name, a name itself."""
    return store if option is True else (option if isinstance(option, str) else "")


def _store_accessor(walker: Any, node: Any, macro: str, scope: Any) -> None:
    """``store_accessor :settings, :color, prefix: true`` and ``store :settings, accessors:
    [:color]``: per key, the accessors and their dirty helpers (``_STORE_FORMS``)."""
    ns = walker._directive_scope(node, scope)
    if ns is None:
        return
    args = _names(walker, node)
    if not args:
        return
    store = args[0][0]
    options = _pairs(node)
    keys = args[1:] if macro == "store_accessor" else []
    if macro == "store" and "accessors" in options and options["accessors"].type in ("array", "symbol_array", "string_array"):
        keys = [(v, item) for item in options["accessors"].named_children if isinstance(v := _literal(item), str)]
    elif macro == "store" and "accessors" in options and options["accessors"].type == "constant":
        keys = constant_names(options["accessors"], walker.root) or []
    prefix = _affix(_literal(options["prefix"]) if "prefix" in options else None, store)
    suffix = _affix(_literal(options["suffix"]) if "suffix" in options else None, store)
    for key, arg in keys:
        accessor = (f"{prefix}_" if prefix else "") + key + (f"_{suffix}" if suffix else "")
        _define(walker, node, arg, [form.format(accessor) for form in _STORE_FORMS], ns)


RAILS_DIRECTIVES: dict[str, Callable[[Any, Any, str, Any], None]] = {
    "store_accessor": _store_accessor,
    "store": _store_accessor,
    "has_many": _association,
    "has_and_belongs_to_many": _association,
    "has_one": _association,
    "belongs_to": _association,
    "scope": _scope,
    "enum": _enum,
    "delegate": _delegate,
    "class_attribute": _class_attribute,
    "attribute": _attribute,
    "alias_attribute": _alias_attribute,
    **{f"{kind}_{form}": _module_attribute for kind in ("mattr", "cattr") for form in ("reader", "writer", "accessor")},
}
