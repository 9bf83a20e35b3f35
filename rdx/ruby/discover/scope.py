"""The open scopes of one discovery walk (``rdx.ruby.discover.parse``): a namespace body or a
method body, with the default visibility in force as the walk passes through it; and the
blocks around the node being visited, with what ``self`` is in each (``BlockSelf``).

It holds walk-time state only; nothing here crosses the process boundary.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from rdx.model.records import ConstPath

__all__ = ["Block", "BlockSelf", "Scope"]


class BlockSelf(IntEnum):
    """What ``self`` is in a block, as far as the walk knows: a ``self``-call there (``include
    M``) acts on the namespace around the block only when the block keeps it (``SAME``)."""

    SAME = 0  # The self around the block: core iterators (``[A, B].each``), ``class_eval`` on self.
    ANONYMOUS = 1  # A new anonymous class or module: ``Class.new(Base) do ... end`` not assigned to a constant.
    RECEIVER = 2  # A constant: ``Foo.class_eval do ... end`` (``Block.receiver``).
    UNKNOWN = 3  # Whatever the called method makes it (``let``, ``describe``, ``on_load``), or a lambda's.
    HOOK_BASE = 4  # The hook's parameter: ``base.class_eval do ... end`` in ``def self.included(base)``.


class Block(NamedTuple):
    """A block (``{ }``, ``do ... end``, a lambda) the walk is inside: its byte range, its self,
    the method it is given to (for messages) and, for ``RECEIVER``, the constant it runs on."""

    start: int
    end: int
    self_kind: BlockSelf
    callee: str = ""
    receiver: ConstPath | None = None


class Scope:
    """An open scope during the walk: a namespace body or a method body."""

    __slots__ = (
        "_module_function", "_visibility", "body_start", "calls", "deferred", "depth", "end", "hook_param", "index", "is_method", "locals", "marks",
    )

    def __init__(self, end: int, body_start: int, index: int, is_method: bool) -> None:
        self.end = end
        self.body_start = body_start
        self.index = index
        self.is_method = is_method
        self._visibility = "public"
        self._module_function = False
        self.calls = 0
        # Bare ``private``/``public``/``protected``/``module_function`` words in this body, as
        # (offset, word) in source order; applied lazily as the walk passes them.
        self.marks: list[tuple[int, str]] = []
        # True for the block of ActiveSupport::Concern's ``included do ... end``, which runs in
        # the including class: its mixins apply there, after the concern itself.
        self.deferred = False
        # Local variable names seen so far in this scope (parameters, assignments), so that a
        # bare identifier can be told apart from a call of a method without arguments.
        self.locals: set[bytes] = set()
        # In ``def self.included(base)`` (and ``extended``/``prepended``/``append_features``):
        # the parameter naming the including class, whose mixins apply like the module's own.
        self.hook_param: bytes | None = None
        # How deep this scope sits, counted as the walker's nesting limit counts it
        # (``Walker.push_scope``): set when the scope is pushed.
        self.depth = 0

    def advance(self, offset: int) -> None:
        marks = self.marks
        while marks and marks[0][0] < offset:
            _, word = marks.pop(0)
            self.set_visibility(word)

    def set_visibility(self, word: str) -> None:
        if word == "module_function":
            self._module_function = True
            self._visibility = "private"
        else:
            self._visibility = word
            self._module_function = False

    # rdx/native/walk.c (method_visibility) reads ``_visibility`` and ``_module_function`` as
    # these two return them when no marks are left.
    def visibility_at(self, offset: int) -> str:
        if self.marks:
            self.advance(offset)
        return self._visibility

    def module_function_at(self, offset: int) -> bool:
        if self.marks:
            self.advance(offset)
        return self._module_function
