"""The typed vocabulary of the model: kinds, visibilities, mixin and receiver kinds.

Every value is a ``StrEnum`` (or ``IntEnum``) member, so it compares and hashes equal to the
plain string or number that discovery writes and the snapshot stores: code may test
``d.kind == DefinitionKind.METHOD`` or keep a frozenset of members and look plain strings up in
it. Nothing here imports anything of rdx.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Literal

__all__ = ["DeclarationKind", "DeclarationKindName", "DefinitionKind", "MixinKind", "ReceiverKind", "Visibility", "VisibilityName"]


class DefinitionKind(StrEnum):
    """Rubydex's definition kinds (``Class.new``/``Struct.new`` make Class definitions)."""

    CLASS = "Class"
    MODULE = "Module"
    SINGLETON_CLASS = "SingletonClass"
    CONSTANT = "Constant"
    CONSTANT_ALIAS = "ConstantAlias"
    CONSTANT_VISIBILITY = "ConstantVisibility"
    METHOD = "Method"
    METHOD_VISIBILITY = "MethodVisibility"
    ATTR_READER = "AttrReader"
    ATTR_WRITER = "AttrWriter"
    ATTR_ACCESSOR = "AttrAccessor"
    METHOD_ALIAS = "MethodAlias"
    GLOBAL_VARIABLE = "GlobalVariable"
    GLOBAL_VARIABLE_ALIAS = "GlobalVariableAlias"
    INSTANCE_VARIABLE = "InstanceVariable"
    CLASS_VARIABLE = "ClassVariable"


class DeclarationKind(StrEnum):
    """What a declaration is. ``Todo`` is a placeholder namespace (used as a scope, never defined)."""

    CLASS = "Class"
    MODULE = "Module"
    SINGLETON_CLASS = "SingletonClass"
    CONSTANT = "Constant"
    CONSTANT_ALIAS = "ConstantAlias"
    METHOD = "Method"
    GLOBAL_VARIABLE = "GlobalVariable"
    INSTANCE_VARIABLE = "InstanceVariable"
    CLASS_VARIABLE = "ClassVariable"
    TODO = "Todo"


class Visibility(StrEnum):
    """A method's visibility, and the visibility operations a ``MethodVisibility`` definition applies."""

    PUBLIC = "public"
    PROTECTED = "protected"
    PRIVATE = "private"
    # Operations that are not visibilities of their own:
    UNDEFINED = "undefined"  # ``undef``/``undef_method``: lookups stop here.
    REMOVED = "removed"  # ``remove_method``: this namespace's own method goes.
    MODULE_FUNCTION = "module_function"  # private here, public on the singleton class.


class MixinKind(StrEnum):
    INCLUDE = "include"
    PREPEND = "prepend"
    EXTEND = "extend"


class ReceiverKind(IntEnum):
    """Where a call's receiver comes from (``MethodRef.receiver_kind``)."""

    IMPLICIT_SELF = 0  # ``foo``
    SELF = 1  # ``self.foo``
    CONSTANT = 2  # ``Foo.bar``
    CONSTANT_INSTANCE = 3  # ``Foo.new.bar``
    OTHER = 4  # anything else (``receiver_text`` keeps it)


# The plain-string fields that hold these values (``DeclarationRecord.kind`` and
# ``.visibility``, ``DefinitionRecord.visibility``). To msgspec they are Literals, which it
# decodes as the Literal's own string objects: otherwise every record of a snapshot or saved
# resolved graph would get strings of its own, a million copies of "Method" and of "public"
# (55 bytes each) for a million declarations (issue 21). Type checkers see ``str``, which
# code assigns.
if TYPE_CHECKING:
    DeclarationKindName = str
    VisibilityName = str
else:
    DeclarationKindName = Literal[tuple(k.value for k in DeclarationKind)]
    VisibilityName = Literal[tuple(v.value for v in Visibility)]
