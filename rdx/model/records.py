"""Per-file discovery output: definitions, references, requires and diagnostics.

These msgspec Structs are the only thing that crosses the worker-process boundary. They are
array-like (compact MessagePack) and not tracked by the garbage collector (``gc=False``): they
never form reference cycles, and a corpus holds hundreds of thousands of them. They hold
byte offsets, strings and small ints; no fully qualified names (those are computed in
resolution) and no tree-sitter objects. Scopes are referenced by index into the same file's
``definitions`` list, so a file's records can be produced and merged without coordination.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rdx.model.kinds import DefinitionKind, MixinKind, ReceiverKind, Visibility, VisibilityName
from rdx.model.schema import RailsFacts
from rdx.model.symbols import Import, Reference, Symbol

__all__ = [
    "DEFINITION_FIELD_ROLES",
    "DEFINITION_KINDS",
    "FieldRole",
    "NAMESPACE_KINDS",
    "ConstPath",
    "ConstRef",
    "DefinitionRecord",
    "Diagnostic",
    "ExternalMixin",
    "FileResult",
    "LoadCall",
    "LoadEffect",
    "MethodEffects",
    "MethodRef",
    "Mixin",
    "Operand",
    "OperandKind",
    "Require",
]

# Rubydex's definition kinds, plus nothing invented: ``Class.new``/``Struct.new``/``Data.define``
# produce Class definitions and ``Module.new`` a Module definition.
DEFINITION_KINDS = (
    "Class",
    "Module",
    "SingletonClass",
    "Constant",
    "ConstantAlias",
    "ConstantVisibility",
    "Method",
    "MethodVisibility",
    "AttrReader",
    "AttrWriter",
    "AttrAccessor",
    "MethodAlias",
    "GlobalVariable",
    "GlobalVariableAlias",
    "InstanceVariable",
    "ClassVariable",
)

NAMESPACE_KINDS = frozenset({"Class", "Module", "SingletonClass"})


class ConstPath(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A constant path as written: ``A::B`` is ``("A", "B")``; ``::A`` sets ``absolute``.

    ``dynamic`` marks a path whose scope is not a constant (``foo::Bar``); only its last
    segment is known then. ``start``/``end`` span the whole path in bytes.
    """

    segments: tuple[str, ...]
    absolute: bool
    start: int
    end: int
    dynamic: bool = False

    @property
    def text(self) -> str:
        return ("::" if self.absolute else "") + "::".join(self.segments)


class Mixin(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One argument of ``include``/``prepend``/``extend``; ``target`` None means ``self``.

    ``call`` numbers the call within its namespace body so that ``include A, B`` (one call,
    argument order kept here) can be applied the way Ruby does: last argument first.
    """

    kind: MixinKind
    target: ConstPath | None
    call: int
    # Byte offset of the call, which orders mixins (``extend E; extend self``).
    start: int = 0


class ExternalMixin(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """``Foo.include(M)`` / ``Foo.prepend(M)`` / ``Foo.extend(M)`` (or ``Foo.send(:include, M)``):
    a mixin applied to ``target`` from outside its body, at scope ``scope``.

    ``mixin_scope`` is where the mixin's module is looked up (or, for ``self``, the namespace it
    stands for) when that differs from ``scope``: a load-time call of a method of the same file
    (``rdx.ruby.evaluate.loadtime``) takes the target from the caller's argument and the module
    from the callee's body. -2 means "same as ``scope``". ``unless_present`` marks a call guarded
    by ``unless target < module`` (``X.prepend(M) if !(X < M)``): it applies only when the
    target does not have the module among its ancestors already."""

    target: ConstPath
    scope: int
    mixin: Mixin
    mixin_scope: int = -2
    unless_present: bool = False

    @property
    def mixin_site(self) -> int:
        """The scope at which the mixin's module is looked up."""
        return self.scope if self.mixin_scope == -2 else self.mixin_scope


class OperandKind(StrEnum):
    """What an ``Operand`` stands for."""

    CONSTANT = "constant"  # ``path``, looked up at the scope of the call or method it sits in.
    SELF = "self"  # The namespace ``self`` is there (the callee's own, in a method body).
    PARAM = "param"  # The method's parameter number ``param`` (in a method body only).
    UNKNOWN = "unknown"  # Anything else: what depends on it is not applied.


class Operand(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A receiver or argument of a load-time call or of a call in a method body
    (``rdx.ruby.evaluate.loadtime``), as far as discovery can say without other files."""

    kind: OperandKind
    path: ConstPath | None = None
    param: int = -1


class LoadCall(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A call ``Receiver.name(args)`` that runs when the file loads (outside method bodies)
    and whose method the file does not define before it: resolution finds the method in the
    files loaded earlier and applies its ``MethodEffects`` at ``start``, scope ``scope``."""

    receiver: Operand
    name: str
    args: tuple[Operand, ...]
    scope: int
    start: int


class LoadEffect(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One call in a method body that may change ancestors when the method runs: a mixin
    (``name`` is include/prepend/extend, ``mixin`` set; ``args`` are the modules; ``guarded``
    as ``ExternalMixin.unless_present``) or a call of another method (``Const.m(args)``,
    ``self.m``, ``param.m``), followed when its callee has effects of its own."""

    name: str
    receiver: Operand
    args: tuple[Operand, ...]
    mixin: bool = False
    guarded: bool = False


class MethodEffects(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """The ancestor effects of calling method definition ``method``, callable on the namespace
    of definition ``namespace`` (``def self.m``, ``class << self``, ``module_function``, or a
    module that does ``extend self``): a template that resolution instantiates at a load-time
    call from another file (``LoadCall``). Constants in it are looked up at ``scope``; it takes
    ``required`` positional arguments and then optional ones with ``defaults``, and any number
    more when ``rest`` (a ``*splat`` parameter, which the effects do not read)."""

    method: int
    namespace: int
    scope: int
    required: int
    defaults: tuple[Operand, ...]
    effects: tuple[LoadEffect, ...]
    rest: bool = False


class DefinitionRecord(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """One definition at one place in one file.

    ``parent`` is the index of the innermost enclosing scope definition (namespace or method)
    in the same file, or -1 at top level. ``lexical`` is False for scopes that change where
    methods go but not the constant lookup scope (``Class.new do ... end`` blocks).
    """

    id: int
    kind: DefinitionKind
    name: str
    start: int
    end: int
    name_start: int
    name_end: int
    parent: int = -1
    path: ConstPath | None = None
    superclass: ConstPath | None = None
    # ``class Foo < self``: the superclass is the enclosing namespace.
    superclass_self: bool = False
    # Tuples, not lists: most are empty, and the empty tuple is one shared object that the
    # garbage collector never tracks (a snapshot holds hundreds of thousands of these).
    mixins: tuple[Mixin, ...] = ()
    # Mixins inside ActiveSupport::Concern's ``included do`` block: applied to the including
    # class right after this module.
    deferred_mixins: tuple[Mixin, ...] = ()
    comments: tuple[str, ...] = ()
    receiver: ConstPath | None = None
    self_receiver: bool = False
    # A Visibility value, operations included (``removed``, ``undefined``, ``module_function``).
    visibility: VisibilityName = Visibility.PUBLIC
    module_function: bool = False
    params: str | None = None
    target: ConstPath | None = None
    old_name: str | None = None
    lexical: bool = True
    # Defined by a macro (``has_many``, ``attr_accessor`` excepted) or a schema column, not
    # written as ``def``: never a dead-code candidate.
    generated: bool = False
    # A ``Method`` whose ``receiver`` is the namespace it defines an instance method of
    # (``Foo.define_method(:m) { }``), not the singleton method ``def Foo.m``.
    instance_receiver: bool = False
    # ``class X < K.new(...)``: ``superclass`` is K, and the class Ruby subclasses is what
    # ``K.new`` returns: a subclass of K when K is a class (a Struct subclass, whose ``new``
    # makes another); nothing known when K is a module (a factory method of its own).
    superclass_new: bool = False


class FieldRole(StrEnum):
    """What resolution does with a field of ``DefinitionRecord`` (``DEFINITION_FIELD_ROLES``)."""

    # Where and how it reads: offsets, the id (made from them), comments, the parameter text.
    # Resolution never reads it; an edit that changes only these changes no declaration.
    POSITION = "position"
    # What it declares and how its names are looked up. An edit that changes one of these
    # replaces the definition (the old one goes, a new one comes).
    IDENTITY = "identity"
    # Superclass and mixins: read by linearization only. An edit may change them in place; the
    # chains that depend on them are computed again.
    ANCESTRY = "ancestry"


# Every field of DefinitionRecord, classified in this one place. Incrementality relies on it
# (``rdx.ruby.resolve.edits``): a field left out here would make edits to it invisible, so
# ``tests/test_architecture.py`` fails when a field is added without a role.
DEFINITION_FIELD_ROLES: dict[str, FieldRole] = {
    "id": FieldRole.POSITION,
    "kind": FieldRole.IDENTITY,
    "name": FieldRole.IDENTITY,
    "start": FieldRole.POSITION,
    "end": FieldRole.POSITION,
    "name_start": FieldRole.POSITION,
    "name_end": FieldRole.POSITION,
    "parent": FieldRole.IDENTITY,
    "path": FieldRole.IDENTITY,
    "superclass": FieldRole.ANCESTRY,
    "superclass_self": FieldRole.ANCESTRY,
    "mixins": FieldRole.ANCESTRY,
    "deferred_mixins": FieldRole.ANCESTRY,
    "comments": FieldRole.POSITION,
    "receiver": FieldRole.IDENTITY,
    "self_receiver": FieldRole.IDENTITY,
    "visibility": FieldRole.IDENTITY,
    "module_function": FieldRole.IDENTITY,
    "params": FieldRole.POSITION,
    "target": FieldRole.IDENTITY,
    "old_name": FieldRole.IDENTITY,
    "lexical": FieldRole.IDENTITY,
    "generated": FieldRole.POSITION,
    "instance_receiver": FieldRole.IDENTITY,
    "superclass_new": FieldRole.ANCESTRY,
}


class ConstRef(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A constant reference; ``scope`` is the innermost enclosing scope definition index."""

    path: ConstPath
    scope: int


class MethodRef(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A call site; ``receiver_kind`` says where its receiver comes from (``ReceiverKind``:
    implicit self, ``self``, a constant ``Foo.bar``, a constant's instance ``Foo.new.bar``, or
    anything else, which ``receiver_text`` keeps)."""

    name: str
    start: int
    end: int
    scope: int
    receiver_kind: ReceiverKind
    receiver: ConstPath | None = None
    receiver_text: str | None = None


# The path of the Require that stands for a load-time ``Bundler.require(groups)``: the marker,
# then the groups in parentheses (``*`` for groups that are not literal symbols, such as Rails'
# ``*Rails.groups``). The load order reads it as requires of the Gemfile's gems, in Gemfile
# order, at the call's place (``rdx.ruby.resolve.order``).
BUNDLER_REQUIRE = "Bundler.require"


class Require(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """``require``/``require_relative``/``load`` with a literal string argument, an
    ``autoload`` (``constant`` set), or a ``Bundler.require`` call (``BUNDLER_REQUIRE``). ``deferred``: written in a method body, so
    it runs when the method is called, not while the file loads (the load order does not
    follow it)."""

    path: str
    relative: bool
    start: int
    end: int
    deferred: bool = False
    # ``autoload :Name, "path"``: the constant (``Name``, or ``Foo::Name`` for
    # ``Foo.autoload``) whose first load-time reference loads the file, and the definition
    # index of the scope the call is in (its namespaces qualify the name); "" for a require.
    # ``Receiver.method`` (with a dot) for a require of a computed path: a method's template
    # (deferred, ``#{}`` in the path) or a load-time call's literal argument
    # (``rdx.ruby.evaluate.computed``). An ActiveSupport autoload path ``::dir`` stands for
    # ``autoload_under "dir"`` (``order.autoload_entries``).
    constant: str = ""
    scope: int = -1


# A require of a computed path (``rdx.ruby.evaluate.computed``): where a method template's
# parameter goes in its path (no literal require path holds it), and the template's ``scope``
# when every argument of a splat parameter is required.
COMPUTED_PLACEHOLDER = "#{}"
COMPUTED_SPLAT = -2


def is_computed(req: Require) -> bool:
    """A computed require's template or call (``constant`` is ``Receiver.method``), not an autoload."""
    return "." in req.constant


class Diagnostic(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A problem found in a file: ``code`` is a stable kebab-case tag, ``start``/``end`` bytes."""

    code: str
    message: str
    start: int = 0
    end: int = 0
    severity: str = "error"


class FileResult(msgspec.Struct, kw_only=True, gc=False):
    """Everything discovery learned from one file. ``error`` is set when it could not be read."""

    uri: str
    path: str | None
    size: int = 0
    mtime_ns: int = 0
    content_hash: int = 0
    # Packed line table (see rdx.model.text).
    line_starts: bytes = b""
    definitions: list[DefinitionRecord] = []
    const_refs: list[ConstRef] = []
    method_refs: list[MethodRef] = []
    requires: list[Require] = []
    external_mixins: list[ExternalMixin] = []
    diagnostics: list[Diagnostic] = []
    # Load-time calls of methods of other files, and what this file's methods would do when
    # called so (``rdx.ruby.evaluate.loadtime``; instantiated by ``rdx.ruby.resolve.loadcalls``).
    load_calls: list[LoadCall] = []
    method_effects: list[MethodEffects] = []
    # The file's language (``rdx.model.languages``). Every field above except the line table
    # and diagnostics is Ruby's; the ones below are every other language's (``rdx.languages``).
    language: str = "ruby"
    # The module the file is (a Python package path), when its language names files so.
    module: str | None = None
    symbols: list[Symbol] = []
    references: list[Reference] = []
    imports: list[Import] = []
    # ActiveRecord tables (``db/schema.rb``) and literal model settings (``rdx.model.schema``):
    # never read by resolution; ``rdx.rails.schema`` turns them into synthetic definitions.
    rails: RailsFacts | None = None
    # Set for a dependency's file (``"activerecord-6.1.7.10"``, see rdx.workspace.dependencies): indexed,
    # searchable and navigable, but not the project's own code.
    library: str | None = None
