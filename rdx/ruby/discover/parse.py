"""Parse one Ruby source into a FileResult: definitions, references, requires, diagnostics.

This module owns the tree-sitter side of discovery. It walks each tree once with a cursor (no
recursion: real code nests deeply) and turns the interesting nodes into plain records. Fully
qualified names are not computed here; every record keeps the index of its enclosing scope
definition so that resolution can rebuild the lexical nesting. It must not import resolution.

The walker keeps the walk state and a small API (``_add``, ``_const_path``, ``_scope``,
``_directive_scope``...) that the handler modules use: ``definitions`` (class, module, def,
assignments), ``directives`` (calls on self such as ``include``, ``attr_*``, ``private``),
``receivers`` (the same on a constant, ``Foo.include M``), ``calls`` (operators and other
implicit calls), ``rails`` (Rails macros) and ``loops`` (iteration over literal lists). It
knows what self is in each block it is inside (``Block``: a ``self``-call there mixes into the
namespace around only when the block keeps self), and ``gaps`` works around the grammar's
known gaps (valid Ruby tree-sitter-ruby cannot parse).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache, partial
from importlib import resources
from operator import itemgetter
from typing import Any, cast

import tree_sitter
import tree_sitter_ruby

from rdx.model.ids import definition_id, definition_prefix
from rdx.model.kinds import DefinitionKind, ReceiverKind
from rdx.model.records import (
    ConstPath,
    ConstRef,
    DefinitionRecord,
    Diagnostic,
    ExternalMixin,
    FileResult,
    MethodRef,
    Mixin,
    Require,
)
from rdx.model.text import line_starts
from rdx.native import HANDLER as NATIVE_HANDLER
from rdx.native import MISSING as NATIVE_MISSING
from rdx.native import TOO_DEEP as NATIVE_TOO_DEEP
from rdx.native import advance as native_step
from rdx.native import definition_id as native_definition_id
from rdx.native import find_words as native_find_words
from rdx.native import line_starts as native_line_starts
from rdx.native import spec as native_spec
from rdx.native import statement_calls as native_statement_calls
from rdx.rails.facts import RAILS_WORDS, rails_facts
from rdx.ruby.discover import calls, definitions, directives
from rdx.ruby.discover.calls import READ_AND_WRITE, WRITE, receiver_of
from rdx.ruby.discover.directives import ATTR_KINDS, DIRECTIVES, MIXIN_CALLS, SEND, external_mixin, hook_directive, hook_mixin, send_mixin
from rdx.ruby.discover.gaps import (
    GRAMMAR_LIMITATION,
    parenthesized_statements_gap,
    reparse_methods_named_self,
    reparse_spelling_gaps,
    restore_method_names,
    restore_operators,
)
from rdx.ruby.discover.receivers import RECEIVER_DIRECTIVES
from rdx.ruby.discover.scope import Block, BlockSelf, Scope
from rdx.ruby.evaluate.branches import STATEMENT_CONDITIONALS, untaken_branches
from rdx.ruby.evaluate.computed import TEMPLATE_WORDS, computed_templates, literal_call
from rdx.ruby.evaluate.core_methods import core_method_any
from rdx.ruby.evaluate.loadfacts import MIXIN_WORDS, cross_file_facts
from rdx.ruby.evaluate.loadtime import MIXING_CALLS, FileIndex, inline_load_time_calls, note_call
from rdx.ruby.evaluate.loops import Loop, expand_names, loop_at, register_loop
from rdx.ruby.evaluate.shared import drop_anonymous_mixins, share_bodies
from rdx.ruby.syntax import BLOCK_TYPES, node_text, symbol_name

__all__ = ["MAX_NESTING", "MAX_SYNTAX_DEPTH", "RubyParser", "Walker", "discover_source"]

_LANGUAGE = tree_sitter.Language(tree_sitter_ruby.language())

_VISIBILITY_WORDS = {b"private", b"public", b"protected", b"module_function"}

# The deepest lexical nesting a file may have: namespace bodies, method bodies, ``class <<``
# bodies and the blocks that act as one (``Class.new do``, ``included do``), each segment of a
# compact name (``module A::B``) counting as one level. Fully qualified names of a d-deep
# nesting hold O(d^2) characters in total, so without a bound a 1 MB file of nested modules
# costs gigabytes; the deepest nesting in the Debian Ruby corpus (/usr/lib/ruby and
# /usr/share/rubygems-integration, 4,865 files) is 10, so 256 is far above real code. A
# construct that would open a deeper scope is left out with everything inside it, and the file
# gets one "too-deep" diagnostic.
MAX_NESTING = 256

# The deepest syntax-tree node the walk visits (the deepest in the Debian corpus is 43). Deeper
# expressions (``[[[...]]]``, ``a + a + ... + a``, blocks in blocks) are left out with the same
# diagnostic. It bounds what any handler pays for a node: tree-sitter's ``parent`` costs
# O(depth), so without a bound one ``parent`` per node is quadratic in the nesting. It is well
# above what MAX_NESTING scopes take (two to four syntax levels each).
MAX_SYNTAX_DEPTH = 2_000

# Past the end of any source (``Walker._known_locals``).
_NO_END = 1 << 62

class RubyParser:
    """A reusable tree-sitter parser for Ruby; one per worker process."""

    def __init__(self) -> None:
        self._parser = tree_sitter.Parser(_LANGUAGE)

    def discover(self, uri: str, source: bytes, path: str | None = None) -> FileResult:
        parsed = self._parser.parse(source)
        spelled = reparse_spelling_gaps(source, parsed)
        tree, renamed = reparse_methods_named_self(spelled.source, spelled.tree)
        root = tree.root_node
        walker = Walker(uri, source)
        walker.walk(root)
        walker.diagnostics += spelled.diagnostics  # Valid Ruby the grammar lacks (rdx.ruby.discover.gaps).
        if spelled.operators:
            restore_operators(walker, spelled.operators)  # ``a<<8`` read as ``a>>8`` (rdx.ruby.discover.gaps).
        if renamed:
            restore_method_names(walker, renamed)  # ``def self(token)`` (rdx.ruby.discover.gaps).
        if walker.anonymous_bodies:
            drop_anonymous_mixins(walker)
        if walker.shared_bodies:
            share_bodies(walker)
        for index, mixins in walker.mixins.items():
            walker.definitions[index].mixins = tuple(mixins)
        for index, mixins in walker.deferred_mixins.items():
            walker.definitions[index].deferred_mixins = tuple(mixins)
        if walker.load_calls:
            inline_load_time_calls(walker, root)
        # Which of the words the passes below look for the source holds, found in one pass
        # (each pass searches its own when not given them); the tree's source is ``source``
        # but where a gap was patched (rdx.ruby.discover.gaps).
        words = _source_words(source)
        tree_words = words if words is None or tree is parsed else _source_words(root.text)
        mixes = None if tree_words is None else bool(tree_words & _MIXIN_BITS)
        load_calls, method_effects = cross_file_facts(walker, root, _statement_calls(native_statement_calls()), mixes)
        if tree_words is None:
            walker.requires += computed_templates(walker, root)
        else:
            walker.requires += computed_templates(walker, root, tree_words & _TEMPLATE_BITS == _TEMPLATE_BITS, bool(tree_words & _ALIAS_BIT))
        return FileResult(
            uri=uri,
            path=path,
            size=len(source),
            line_starts=walker.line_starts,
            definitions=walker.definitions,
            const_refs=walker.const_refs,
            method_refs=walker.method_refs,
            requires=walker.requires,
            external_mixins=walker.external_mixins,
            diagnostics=walker.diagnostics,
            rails=rails_facts(root, source, uri, None if words is None else bool(words & _RAILS_BITS)),
            load_calls=load_calls,
            method_effects=method_effects,
        )


# Calls whose name alone means no ``LoadCall`` (``loadfacts._foreign_call``): the native
# statement reader leaves them out (walk.c's gives_no_load_call).
_NO_LOAD_CALL = frozenset({*MIXING_CALLS, "new"})
_CORE_DEF = re.compile(r"^ *def (?:self\.)?([^\s(;]+)", re.M)


@cache
def _class_core_methods() -> frozenset[str]:
    """The names of the methods every class has with nothing but core loaded
    (``core_method_any("Class", name)``: ``attr_reader``, ``private``...), whose call on
    nothing or ``self`` in a class body, or bare word there, ``loadfacts._inherited_call``
    leaves to Ruby: the native statement reader leaves them out too. Asked of each name the
    core stub defines (no other name can be one); ``send`` and its kin excepted, whose calls
    ``loadfacts`` reads as a call of their first argument."""
    text = resources.files("rdx.data").joinpath("core.rb").read_text()
    names = {m.group(1) for m in _CORE_DEF.finditer(text)}
    return frozenset(name for name in names if "send" not in name and core_method_any("Class", name))


def _statement_calls(
    native: Callable[..., list[tuple[int, int, int]]] | None,
) -> Callable[[Any, dict[int, int], set[int]], list[tuple[int, int, int]]] | None:
    """The native statement reader ``cross_file_facts`` takes, leaving out the calls that can
    give no ``LoadCall`` (walk.c's gives_no_load_call): with none left and no method that
    mixes in, it builds no index of the file."""
    if native is None:
        return None
    core = _class_core_methods()
    return lambda cursor, scopes, classes: native(cursor, scopes, classes, _NO_LOAD_CALL, core)


# The words ``_source_words`` looks for: bits 0-2 the mixing calls' (``cross_file_facts``),
# 3-4 those a computed require needs (``computed_templates``), 5 ``alias`` (of ``require``,
# there), 6-8 the Rails facts' (``rails_facts``).
_SOURCE_WORDS = (*MIXIN_WORDS, *TEMPLATE_WORDS, b"alias", *RAILS_WORDS)
_MIXIN_BITS = (1 << len(MIXIN_WORDS)) - 1
_TEMPLATE_BITS = ((1 << len(TEMPLATE_WORDS)) - 1) << len(MIXIN_WORDS)
_ALIAS_BIT = 1 << (len(MIXIN_WORDS) + len(TEMPLATE_WORDS))
_RAILS_BITS = ((1 << len(RAILS_WORDS)) - 1) << (len(MIXIN_WORDS) + len(TEMPLATE_WORDS) + 1)


def _source_words(source: bytes) -> int | None:
    """Which of ``_SOURCE_WORDS`` ``source`` holds (bit i for word i), in one pass in C; None
    without the native module (each pass then searches for its own)."""
    find = native_find_words()
    return find(source, _SOURCE_WORDS) if find is not None else None


def discover_source(uri: str, source: bytes, path: str | None = None) -> FileResult:
    """Convenience for one-off parsing (tests, ``Graph.index_source``)."""
    return RubyParser().discover(uri, source, path)


# ``# frozen_string_literal: true``, ``# rubocop:disable X``, ``# typed: strict``, ``# -*- coding: x -*-``:
# instructions to Ruby and tools, never documentation.
_DIRECTIVE_COMMENT = re.compile(
    rb"#\s*(?:(?:frozen_string_literal|encoding|coding|warn_indent|warn_past_scope|shareable_constant_value|typed)\s*:"
    rb"|rubocop\s*:\s*(?:disable|enable|todo)|-\*-|:nocov:|standard\s*:\s*(?:disable|enable))"
)


class Walker:
    """One walk over one tree; see the module docstring."""

    def __init__(self, uri: str, source: bytes) -> None:
        self.uri = uri
        self.source = source
        starts = native_line_starts()
        self.line_starts = starts(source) if starts is not None else line_starts(source)
        # ``definition_id(uri, start, name)`` as ``make_id(start, name)``: in C when built (rdx.native),
        # from the bytes it hashes before a definition's offset and name.
        self.id_prefix = definition_prefix(uri)
        make_id = native_definition_id()
        self.make_id: Callable[[int, str], int] = partial(make_id, self.id_prefix) if make_id is not None else partial(definition_id, uri)
        self.line_table = memoryview(self.line_starts).cast("I")
        self.definitions: list[DefinitionRecord] = []
        self.const_refs: list[ConstRef] = []
        self.method_refs: list[MethodRef] = []
        self.requires: list[Require] = []
        self.external_mixins: list[ExternalMixin] = []
        # Definition index -> mixins (and deferred ``included do`` mixins) found in its body,
        # moved onto the definitions as tuples when the walk ends.
        self.mixins: dict[int, list[Mixin]] = {}
        self.deferred_mixins: dict[int, list[Mixin]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.scopes: list[Scope] = []
        self.pushed = 0  # Scopes pushed so far (``push_scope``), for the native walk's ``_known_locals``.
        self.hooks_pushed = False  # Whether a scope with a ``hook_param`` was (``_hook_scopes``).
        self.skip_const_until = -1
        # Inline visibility (``private def x``, ``private attr_reader :y``) keyed by node start.
        self.pending_visibility: dict[int, str] = {}
        # Method definitions written as ``module_function def m`` (keyed by node start).
        self.pending_module_function: set[int] = set()
        # Call and element-reference nodes that are assignment targets, by (start, end): ``self.x = 1``
        # calls ``x=`` (WRITE), ``self.x += 1`` calls ``x`` and ``x=`` (READ_AND_WRITE).
        self.setter_calls: dict[tuple[int, int], int] = {}
        # ``LITERAL.each { |p| ... }`` blocks seen so far (rdx.ruby.evaluate.loops).
        self.loops: list[Loop] = []
        # Block range of ``Class.new(C) do ... end`` -> the classes a loop made from it (rdx.ruby.evaluate.shared).
        self.shared_bodies: dict[tuple[int, int], list[int]] = {}
        self.top_object: int = -1
        self.external_calls = 0
        self.top_locals: set[bytes] = set()
        # Names of the methods defined so far, and the load-time calls of such names
        # (call node, scope index, whether self is known there): rdx.ruby.evaluate.loadtime.
        self.method_names: set[str] = set()
        self.load_calls: list[tuple[Any, int, bool]] = []
        # The index of the definitions that the passes after the walk share, built by the
        # first that needs it (rdx.ruby.evaluate.loadtime.file_index).
        self.file_index: FileIndex | None = None
        self._error_until = -1
        self._cursor: Any = None
        self._probe: Any = None  # A cursor for looking up from the walk's (``in_arguments``).
        # The tree's root (``program``), from which literal lookups go down (rdx.ruby.evaluate.literals).
        self.root: Any = None
        self.check_missing = False
        # Set by ``too_deep`` when a handler refused to open a scope: the walk then skips the
        # node's subtree, so what is nested too deep costs nothing more than the parse.
        self.cut = False
        self._too_deep_reported = False
        # The blocks (``{ }``, ``do ... end``, lambdas) around the node being visited, closed
        # lazily like ``scopes``: asking whether a node sits in a block costs O(1) instead of a
        # walk up its parents (each ``parent`` is O(depth) in tree-sitter, so such walks are
        # quadratic in the nesting). A call with a block says what self is in it before the
        # walk reaches the block (``_block_selves``, by the block's start).
        self._blocks: list[Block] = []
        self._block_selves: dict[int, tuple[BlockSelf, str, ConstPath | None]] = {}
        # Ranges of ``Class.new do ... end`` blocks whose mixins the walk gave to the namespace
        # around them: they stay only where a constant names the class (rdx.ruby.evaluate.shared).
        self.anonymous_bodies: set[tuple[int, int]] = set()
        # Branches of load-time ``if``/``unless`` statements that Ruby does not run under the
        # model of rdx.ruby.evaluate.branches (``if __FILE__ == $0`` in a required file, the
        # ``elsif``/``else`` not chosen): mixins there apply to nothing, requires there are
        # not followed at load time. Byte ranges in walk order, forgotten once passed.
        self.untaken: list[tuple[int, int]] = []

    # -- walking -------------------------------------------------------------------------

    def walk(self, root: Any) -> None:
        self.root = root
        self.check_missing = root.has_error
        cursor = root.walk()
        self._cursor = cursor
        step = native_step()
        spec = _collect_spec() if step is not None else None
        if step is None or spec is None:
            self._walk_python(cursor)
            return
        # The native step (rdx.native) moves the cursor past nodes no handler wants, in C:
        # the same preorder, the same stops, as the loop of ``_walk_python``, less the nodes
        # whose handler would do nothing (``_HANDLED_KINDS``): reads of local variables the
        # walk knows (``_known_locals``), constants inside a constant path recorded whole
        # (``skip_const_until``) and hash pairs other than ``{k:}``. It also passes over the
        # calls, operators, element references, identifiers, constants, block arguments,
        # variable and constant assignments, ``alias``es, plain directives (``include M``,
        # ``attr_reader :a``, ``private :a``, ``alias_method :a, :b``: walk.c's
        # collect_directive), blocks, plain ``def``s, classes and modules whose handler would
        # only append plain records or open a block or a scope (the plain cases: see walk.c's
        # collect_* functions), and appends what that needs to ``batch``, from which
        # ``_record_batch`` makes the records (and opens the scopes) before the next handler
        # runs: the same records in the same order. The MethodRefs and ConstRefs it makes
        # itself, scope index included, straight into ``method_refs`` and ``const_refs``
        # (nothing else appends to those lists while it runs: ``_record_batch`` appends no
        # ConstRef when the step makes them, see below); and it gives the ids of the definitions it records, the comments
        # above them and a method's parameters as ``definitions._params`` writes them.
        handlers = _HANDLERS_BY_ID
        kinds = _COLLECTED_KINDS
        fields = _IDENTIFIER_SKIPPED_FIELDS
        batch: list[tuple[Any, int, int, int, int, Any]] = []
        check_missing = self.check_missing
        descend = self._visit(handlers.get(root.kind_id), root)
        pushed = self.pushed
        names, since, until, in_method, scope_depth, base = self._known_locals(root.start_byte)
        method_names, setter_calls, scopes, top_locals = self.method_names, self.setter_calls, self.scopes, self.top_locals
        limit = MAX_SYNTAX_DEPTH
        hooks = self._hook_scopes()
        # The step makes the ids of the definitions it records (walk.c's definition_id_of).
        id_prefix = self.id_prefix
        source, line_table = self.source, self.line_starts
        # What the step makes records in and with (the lists stay the same objects while it walks).
        # It makes the ConstRefs too (those of constants, and of the scope part of the
        # namespaces' compact names it records), and leaves ``skip_const_until`` in ``skip``.
        skip = [self.skip_const_until]
        records = (
            self.method_refs, self.definitions, MethodRef, ConstPath, _RECEIVER_KINDS, self.requires, Require, DefinitionRecord,
            self.pending_visibility, self.pending_module_function, self.const_refs, ConstRef, skip,
        )
        depth = 0
        while True:
            event = step(
                cursor, kinds, fields, descend, check_missing, limit, depth, names, until, self.skip_const_until, spec, batch, method_names, setter_calls,
                hooks, in_method, since, scope_depth, scopes, base, top_locals, bool(self.untaken), id_prefix, source, line_table, records,
            )
            depth = event >> 2
            event &= 3
            node = cursor.node
            if batch:
                # What the step passed over, up to the node it stopped at (the end: nothing is open).
                self._record_batch(batch, node.start_byte if event else _NO_END)
            self.skip_const_until = skip[0]  # As the batch's records set it, in walk order.
            if event == NATIVE_HANDLER:
                descend = handlers[node.kind_id](self, node) is not False
                if self.cut:
                    self.cut = False
                    descend = False
            elif event == NATIVE_MISSING:
                self._diag("syntax-error", f"missing {node.type}", node)
                descend = True
            elif event == NATIVE_TOO_DEEP:
                self._too_deep_syntax(node)
                descend = False
            else:
                return
            # The set stays right until a scope opens or the walk leaves the one it belongs to.
            start = node.start_byte
            if pushed != self.pushed or start >= until:
                if pushed != self.pushed:
                    pushed = self.pushed
                    hooks = self._hook_scopes()
                names, since, until, in_method, scope_depth, base = self._known_locals(start)

    def _record_batch(self, batch: list[tuple[Any, int, int, int, int, Any]], stop: int) -> None:
        """The records of the nodes the native step passed over (see ``walk``), in walk order,
        the step stopped at byte ``stop``: (name, start, end, scope, kind, extra), ``scope``
        the index of the scope of the record as ``_scope`` would find it (the step knows the
        scopes it passed through), but for kind 9. A kind below 5 is a MethodRef's receiver
        kind (extra: the receiver's text, or its constant path as (segments, absolute) and its
        range), which comes only when the step is not given ``method_refs`` (it makes those
        records itself); 5 is a ConstRef of the path (segments, absolute) given as the name,
        which ``on_constant`` records whole, when the step is not given ``const_refs`` (given
        them, it makes the ConstRefs itself, those ``_prefix_ref`` makes of the namespaces' compact
        names included); 6 defines the variable ``name`` of kind
        ``_VARIABLE_KINDS[which]`` at ``start``-``end`` (``definitions._assign_target``; extra:
        (which, its id)); 7 says what self is (``BlockSelf`` as extra) in the block from
        ``start`` to ``end`` of a call of ``name`` (``on_call``), 8 opens a block from ``start``
        to ``end`` (``on_block``); 9 defines the method ``name`` from ``start`` to ``end``, its
        scope the one at byte ``scope`` (extra: its name's range, its parameters' text and
        whether that is ``definitions._params``' already, the set of its body's local
        variables, which the step filled as it went on, whether it is defined on ``self``, its
        id, the comments above it or None and the row it starts on): ``definitions.on_method``
        for a plain ``def`` (see walk.c's collect_method); 10 defines a class or module (extra:
        whether a class, its name's segments, absolute and range, its superclass's (segments,
        absolute, start, end) or None, where its body starts, its id, the comments above it or
        None, its row, its body's marks, the set of its locals and its DefinitionRecord when the
        step made it, else None): ``definitions.on_namespace`` for a plain one
        (collect_namespace); 11 is such a method whose DefinitionRecord the
        step made itself, visibility included (extra: the record, its name's end and the set
        of its locals; walk.c's method_record); 12 is the DefinitionRecord of a variable the
        step made itself (extra; walk.c's emit_variable, collect_alias), as kind 6 would make it;
        13 mixes the modules in ``extra`` (each (segments, absolute, start, end), or None for
        ``self``) into the namespace of scope ``index`` (``directives._mixin``), 14 defines the
        attributes of kind ``name`` in ``extra`` ((row, ((name, start, end), ...)):
        ``directives._attr``), 16 gives them the visibility ``name`` (``directives._visibility``),
        17 aliases the first to the second (``directives._alias_method``): see walk.c's
        collect_directive; 15 is a constant's DefinitionRecord the step made
        (``definitions.constant``; collect_constant_assignment), its name's range given. Comments are
        None when the step could not read them: ``_comments_at_row`` reads them from the row then.

        A scope or block that ends by ``stop`` is not opened: no handler can be inside it
        (each asks about its node, from ``stop`` on), and ``_scope`` and ``in_block`` would
        close it unread. Only a kind 9 record reads the open scopes (its visibility): with one
        in the batch, every scope opens."""
        const_refs = self.const_refs
        created: dict[int, Scope] = {}  # The namespaces' scopes made below, by index (opened or not).
        if _BATCH_METHOD in map(_KIND_OF, batch):
            stop = -1  # Rare (non-ASCII parameters, say): every scope open, as the walk had them.
        for name, start, end, index, kind, extra in batch:
            if kind == _BATCH_CONST_REF:
                self.skip_const_until = end
                const_refs.append(ConstRef(ConstPath(name[0], name[1], start, end), index))
            elif kind == _BATCH_METHOD_RECORD:  # ``definitions.method_definition``'s record, made by the step.
                record, name_end, local_names = extra
                if end > stop:
                    self._scope(start)  # Close those that ended: the new one's depth counts the open ones.
                    method_scope = Scope(end, name_end, len(self.definitions), True)
                    method_scope.locals = local_names
                    self.push_scope(method_scope)
                self.definitions.append(record)
            elif kind == _BATCH_BLOCK:
                if end > stop:
                    self._open_block(start, end)
            elif kind == _BATCH_BLOCK_SELF:  # What self is in the block of the call just recorded (``on_call``).
                if end > stop:
                    self._block_selves[start] = (_BLOCK_SELVES[extra], name, None)
            elif kind == _BATCH_RECORD:
                self.definitions.append(extra)
            elif kind == _BATCH_VISIBILITY:  # ``directives._visibility`` of a plain ``private :a, :b``.
                for symbol, symbol_start, symbol_end in extra[1]:
                    self._add_at("MethodVisibility", symbol, symbol_start, symbol_end, symbol_start, symbol_end, index, visibility=name)
            elif kind == _BATCH_ALIAS:  # ``directives._alias_method`` of a plain ``alias_method :a, :b``.
                row, ((new, new_start, new_end), (old, _, _)) = extra
                self._add_at("MethodAlias", new, start, end, new_start, new_end, index, old_name=old, comments=self._comments_at_row(row))
            elif kind == _BATCH_CONSTANT:  # ``definitions.constant``'s record of a plain ``X = value``, made by the step.
                self.skip_const_until = end
                self.definitions.append(extra)
            elif kind == _BATCH_DEFINITION:
                which, ident = extra
                self._add_at(_VARIABLE_KINDS[which], name, start, end, start, end, index, ident)
            elif kind == _BATCH_NAMESPACE:
                is_class, segments, absolute, name_start, name_end, superclass, body_start, ident, comments, row, marks, local_names, record = extra
                self.skip_const_until = name_end
                # The ConstRef of its name's scope part (``_prefix_ref``) the step made.
                if record is not None:  # ``definitions.namespace_definition``'s record, made by the step.
                    new_scope = Scope(end, body_start, len(self.definitions), False)
                    self.definitions.append(record)
                else:
                    path = ConstPath(segments, absolute, name_start, name_end)
                    new_scope = definitions.namespace_definition(
                        self, index, "Class" if is_class else "Module", path, start, end, name_start, name_end, row, body_start,
                        ConstPath(*superclass) if superclass is not None else None, False, False, ident, comments,
                    )
                new_scope.marks = marks
                new_scope.locals = local_names
                created[new_scope.index] = new_scope
                if end > stop:
                    self._scope(start)
                    self.push_scope(new_scope, len(segments))
            elif kind == _BATCH_METHOD:
                name_start, name_end, params, ready, local_names, on_self, ident, comments, row = extra
                fields = {"self_receiver": True} if on_self else {}
                method_scope = definitions.method_definition(
                    self, self._scope(index), name, start, end, name_start, name_end, params, row, fields, ident, comments, ready,
                )
                method_scope.locals = local_names
                self.push_scope(method_scope)
            elif kind == _BATCH_MIXIN:  # ``directives._mixin`` of a plain ``include A, B`` in a class body.
                ns = created.get(index) or self._open_scope(index, start)
                ns.calls += 1
                into = (self.deferred_mixins if ns.deferred else self.mixins).setdefault(index, [])
                for target in extra:
                    if target is None:
                        if not ns.deferred:
                            into.append(Mixin(name, None, ns.calls, start))
                    else:
                        into.append(Mixin(name, ConstPath(*target), ns.calls, start))
            elif kind == _BATCH_ATTRS:  # ``directives._attr`` of a plain ``attr_reader :a, :b``.
                ns = created.get(index) or self._open_scope(index, start)
                row, attributes = extra
                visibility = self.pending_visibility.pop(start, None) or ns.visibility_at(start)
                comments = self._comments_at_row(row)
                for attribute, attribute_start, attribute_end in attributes:
                    self._add_at(name, attribute, attribute_start, attribute_end, attribute_start, attribute_end, index, visibility=visibility, comments=comments)
            elif extra is None or kind == _BATCH_OTHER:
                self.method_refs.append(MethodRef(name, start, end, index, _RECEIVER_KINDS[kind], None, extra))
            else:
                (segments, absolute), path_start, path_end = extra
                self.method_refs.append(MethodRef(name, start, end, index, _RECEIVER_KINDS[kind], ConstPath(segments, absolute, path_start, path_end)))
        batch.clear()

    def _open_scope(self, index: int, start: int) -> Scope:
        """The scope of definition ``index``, the innermost open one at byte ``start`` (of a
        MIXIN or ATTRS record: walk.c's collect_directive checked that it is)."""
        scope = self._scope(start)
        if scope is None or scope.index != index or scope.is_method:
            raise AssertionError(f"the scope at byte {start} is not the namespace of definition {index}")
        return scope

    def _hook_scopes(self) -> bool:
        """Whether a scope of a hook method (``def self.included(base)``: ``Scope.hook_param``)
        may be open: until a scope opens, calls on an unknown receiver are then ``on_call``'s
        (``hook_mixin``), never the native step's."""
        return self.hooks_pushed and any(scope.hook_param is not None for scope in self.scopes)

    def _known_locals(self, start: int) -> tuple[set[bytes], int, int, bool, int, int]:
        """The local variables ``on_identifier`` looks an identifier up in, the same set for
        every identifier from byte ``start`` (of the node the walk is at), or from the second
        byte returned when that is later, up to the third: from the body of the innermost open
        scope there (before it, in a class's name and superclass or a method's receiver and
        name, ``_scope`` reads the scope around) until it ends (scopes open only in handlers).
        Then whether that scope is a method body (``_scope(...).is_method`` there), its depth
        (``Scope.depth``; 0 outside any) and its index in ``scopes`` (-1 outside any: the native
        step goes on from there to the scopes around it as the walk leaves it)."""
        scopes = self.scopes
        i = len(scopes) - 1
        while i >= 0 and scopes[i].end <= start:
            i -= 1
        if i < 0:
            return self.top_locals, 0, _NO_END, False, 0, -1
        top = scopes[i]
        return top.locals, top.body_start, top.end, top.is_method, top.depth, i

    def _visit(self, handler: Callable[[Walker, Any], Any] | None, node: Any) -> bool:
        """Run ``node``'s handler (or report it missing); whether the walk enters its children."""
        if handler is not None:
            descend = handler(self, node) is not False
            if self.cut:
                self.cut = False
                descend = False
            return descend
        if self.check_missing and node.is_missing:
            self._diag("syntax-error", f"missing {node.type}", node)
        return True

    def _walk_python(self, cursor: Any) -> None:
        """The walk without the native step: every node through Python."""
        handlers = _HANDLERS_BY_ID
        check_missing = self.check_missing
        depth = 0
        while True:
            node = cursor.node
            handler = handlers.get(node.kind_id)
            descend = True
            if handler is not None:
                descend = handler(self, node) is not False
                if self.cut:
                    self.cut = False
                    descend = False
            elif check_missing and node.is_missing:
                self._diag("syntax-error", f"missing {node.type}", node)
            if descend:
                if depth >= MAX_SYNTAX_DEPTH:
                    if node.child_count:
                        self._too_deep_syntax(node)
                elif cursor.goto_first_child():
                    depth += 1
                    continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return
                depth -= 1

    def _scope(self, start: int) -> Scope | None:
        """The innermost scope containing byte ``start`` (closing scopes that ended)."""
        scopes = self.scopes
        while scopes and scopes[-1].end <= start:
            scopes.pop()
        if not scopes:
            return None
        top = scopes[-1]
        if top.body_start > start:
            # Name and superclass of a class are evaluated in the enclosing scope.
            return scopes[-2] if len(scopes) > 1 else None
        return top

    def too_deep(self, node: Any, weight: int = 1) -> bool:
        """Whether a scope opened at ``node`` (``weight`` levels: the segments of its name)
        would nest deeper than ``MAX_NESTING``. If so the file's first such construct gets the
        "too-deep" diagnostic and the walk skips ``node``'s subtree; the handler must then
        record nothing for it. Call after ``_scope`` has closed the scopes that ended."""
        depth = (self.scopes[-1].depth if self.scopes else 0) + weight
        if depth <= MAX_NESTING:
            return False
        self.cut = True
        if not self._too_deep_reported:
            self._too_deep_reported = True
            start = node.start_byte
            line_end = self.source.find(b"\n", start, node.end_byte)
            self.diagnostics.append(Diagnostic(
                "too-deep",
                f"this definition is nested {depth} scopes deep, over the limit of {MAX_NESTING} (each segment of a name such as"
                " A::B counts), so it and everything inside it are left out of the index: flatten the nesting",
                start,
                node.end_byte if line_end < 0 else line_end,
                "error",
            ))
        return True

    def _too_deep_syntax(self, node: Any) -> None:
        """The first node of the file whose children lie deeper than MAX_SYNTAX_DEPTH."""
        if not self._too_deep_reported:
            self._too_deep_reported = True
            self._diag(
                "too-deep",
                f"this expression nests deeper than the limit of {MAX_SYNTAX_DEPTH} syntax levels, so what it contains is left out"
                " of the index: split it into smaller expressions",
                node,
            )

    def push_scope(self, scope: Scope, weight: int = 1) -> None:
        """Open ``scope`` inside the innermost open one (see ``too_deep``, asked first)."""
        scope.depth = (self.scopes[-1].depth if self.scopes else 0) + weight
        self.scopes.append(scope)
        self.pushed += 1
        if scope.hook_param is not None:
            self.hooks_pushed = True

    def _namespace_scope(self, scope: Scope | None) -> Scope | None:
        """The innermost namespace scope at or outside ``scope`` (methods skipped)."""
        if scope is None or not scope.is_method:
            return scope
        for s in reversed(self.scopes):
            if not s.is_method and s.body_start <= scope.body_start:
                return s
        return None

    def _diag(self, code: str, message: str, node: Any, severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(code, message, node.start_byte, node.end_byte, severity))

    # -- records -------------------------------------------------------------------------

    def _comments_above(self, node: Any) -> tuple[str, ...]:
        """Full-line ``#`` comments directly above ``node``'s line (found in the text, so the
        walk never has to visit comment nodes)."""
        return self._comments_at_row(node.start_point[0])

    def _comments_at_row(self, row: int) -> tuple[str, ...]:
        """``_comments_above`` a node on line ``row`` (0-based)."""
        starts = self.line_table
        source = self.source
        if row == 0:
            return ()
        end = starts[row]
        if not source[starts[row - 1] : end].lstrip().startswith(b"#"):
            return ()  # Most definitions have no comment above (the loop below, shortened).
        directive = _DIRECTIVE_COMMENT.match
        lines: list[str] = []
        while row > 0:
            row -= 1
            begin = starts[row]
            line = source[begin:end].strip()
            if not line.startswith(b"#"):
                break
            # Magic comments and tool directives are no doc; each holds a colon or ``-*-``.
            if (b":" not in line and b"-*-" not in line) or not directive(line):
                lines.append(line.decode("utf-8", "replace"))
            end = begin
        if not lines:
            return ()
        lines.reverse()
        return tuple(lines)

    def _scan_marks(self, body: Any, scope: Scope) -> None:
        """Record bare visibility words among a body's statements (see ``Scope.marks``)."""
        if body is None:
            return
        for child in body.named_children:
            if child.type == "identifier":
                word = child.text
                if word in _VISIBILITY_WORDS:
                    scope.marks.append((child.start_byte, word.decode()))

    def _add(self, kind: str, name: str, node: Any, name_node: Any, parent: Scope | None, **fields: Any) -> int:
        return self._add_at(
            kind, name, node.start_byte, node.end_byte, name_node.start_byte, name_node.end_byte, parent.index if parent is not None else -1, **fields
        )

    def _add_at(
        self, kind: str, name: str, start: int, end: int, name_start: int, name_end: int, parent: int, ident: int | None = None, **fields: Any
    ) -> int:
        """``_add`` given the byte ranges of the definition and its name, and its parent's index
        (and its id when the native step made it: ``definition_id(self.uri, start, name)``)."""
        index = len(self.definitions)
        self.definitions.append(
            DefinitionRecord(
                id=self.make_id(start, name) if ident is None else ident,
                kind=cast(DefinitionKind, kind),
                name=name,
                start=start,
                end=end,
                name_start=name_start,
                name_end=name_end,
                parent=parent,
                **fields,
            )
        )
        return index

    def _const_path(self, node: Any) -> ConstPath | None:
        """The ConstPath of a ``constant``/``scope_resolution`` node, iteratively."""
        t = node.type
        if t == "constant":
            return ConstPath((node_text(node),), False, node.start_byte, node.end_byte)
        if t != "scope_resolution":
            return None
        segments: list[str] = []
        absolute = False
        dynamic = False
        cur = node
        while True:
            name = cur.child_by_field_name("name")
            segments.append(node_text(name) if name is not None else "")
            scope = cur.child_by_field_name("scope")
            if scope is None:
                absolute = True
                break
            if scope.type == "scope_resolution":
                cur = scope
                continue
            if scope.type == "constant":
                segments.append(node_text(scope))
            else:
                dynamic = True
            break
        segments.reverse()
        return ConstPath(tuple(segments), absolute, node.start_byte, node.end_byte, dynamic)

    def _prefix_ref(self, path: ConstPath, scope: int) -> None:
        """Record the scope part of a compact definition name (``A`` of ``class A::B``), in
        the scope of definition ``scope`` (-1: the top level)."""
        if len(path.segments) > 1 and not path.dynamic:
            prefix_end = path.end - len(path.segments[-1]) - 2
            prefix = ConstPath(path.segments[:-1], path.absolute, path.start, prefix_end)
            self.const_refs.append(ConstRef(prefix, scope))

    def _top_object(self, node: Any) -> Scope:
        """A synthetic reopening of ``Object`` for top-level ``include``/``private``."""
        if self.top_object < 0:
            self.top_object = len(self.definitions)
            self.definitions.append(
                DefinitionRecord(
                    id=definition_id(self.uri, 0, "Object"),
                    kind=DefinitionKind.CLASS,
                    name="Object",
                    start=0,
                    end=0,
                    name_start=0,
                    name_end=0,
                    path=ConstPath(("Object",), True, 0, 0),
                )
            )
            self._top_scope = Scope(len(self.source) + 1, 0, self.top_object, False)
            self._top_scope.set_visibility("private")
        return self._top_scope

    # -- handlers ------------------------------------------------------------------------

    def _symbol_args(self, call: Any) -> list[tuple[str, Any]]:
        args = call.child_by_field_name("arguments")
        if args is None:
            return []
        out = []
        for arg in args.named_children:
            name = symbol_name(arg)
            if name is not None and arg.type != "string":
                out.append((name, arg))
            elif (unrolled := expand_names(self.loops, arg, self.root)) is not None:
                out.extend(unrolled)
        return out

    def on_constant(self, node: Any) -> bool | None:
        start = node.start_byte
        if start < self.skip_const_until:
            return None
        path = self._const_path(node)
        if path is None:
            return None
        if path.dynamic:
            return None  # The scope expression is walked; its own constants are recorded.
        self.skip_const_until = node.end_byte
        scope = self._scope(start)
        self.const_refs.append(ConstRef(path, scope.index if scope else -1))
        return None

    def on_identifier(self, node: Any) -> None:
        """A bare identifier: a local variable read or a call of a method without arguments.

        Binding sites (parameters, assignment targets, rescue variables, patterns) are handled
        by their parents, which are visited first and add the names to the scope's locals."""
        field = self._cursor.field_id
        if field and field in _NOT_A_CALL_FIELD_IDS:
            if field == _PATTERN_FIELD_ID:
                self._locals(node.start_byte).add(node.text)
            return
        start = node.start_byte
        scope = self._scope(start)
        word = node.text
        if word in (scope.locals if scope is not None else self.top_locals):
            return
        if word == b"end":
            # tree-sitter-ruby reads a stray ``end`` as an identifier; report it unless it is
            # part of a syntax error already reported.
            if start >= self._error_until:
                self._diag("syntax-error", "unexpected 'end'", node)
            return
        name = word.decode("utf-8", "replace")
        self.method_refs.append(MethodRef(name, start, node.end_byte, scope.index if scope else -1, ReceiverKind.IMPLICIT_SELF))
        if name in self.method_names and not (scope is not None and scope.is_method):
            note_call(self, node, scope)

    def on_binding(self, node: Any) -> None:
        """Parameter lists, multiple-assignment targets, rescue variables and patterns."""
        names = self._locals(node.start_byte)
        for child in node.named_children:
            t = child.type
            if t == "identifier":
                names.add(child.text)
            elif t.endswith("parameter") or t == "rest_assignment":
                name = child.child_by_field_name("name")
                if name is None and child.named_child_count:
                    name = child.named_children[0]
                if name is not None and name.type == "identifier":
                    names.add(name.text)

    def _locals(self, start: int) -> set[bytes]:
        scope = self._scope(start)
        return scope.locals if scope is not None else self.top_locals

    def on_call(self, node: Any) -> None:
        # The hottest handler (a third of the walk's time): fields read by id, each once.
        meth = node.child_by_field_id(_METHOD_FIELD_ID)
        if meth is None:
            return
        name = meth.text.decode("utf-8", "replace")
        start = node.start_byte
        scope = self._scope(start)
        at = scope.index if scope is not None else -1
        in_method = scope is not None and scope.is_method
        recv = node.child_by_field_id(_RECEIVER_FIELD_ID)
        block = node.child_by_field_id(_BLOCK_FIELD_ID)
        if block is not None:
            register_loop(self.loops, node, recv, name, self.root, block)
        if recv is None:
            receiver_kind, receiver, receiver_text = _IMPLICIT_SELF, None, None
        else:
            receiver_kind, receiver, receiver_text = receiver_of(self, recv)
        if block is not None:
            self._block_selves[block.start_byte] = self._block_self(block, name, recv, receiver_kind, receiver, scope)
        setter_calls = self.setter_calls
        role = setter_calls.get((start, node.end_byte)) if setter_calls else None
        meth_start = meth.start_byte
        meth_end = meth.end_byte
        if role == READ_AND_WRITE:  # ``x.y += 1`` reads ``y`` first.
            self.method_refs.append(MethodRef(name, meth_start, meth_end, at, receiver_kind, receiver, receiver_text))
        if role is not None:
            name += "="
        self.method_refs.append(MethodRef(name, meth_start, meth_end, at, receiver_kind, receiver, receiver_text))
        if not in_method and receiver_kind <= _CONSTANT and (name in self.method_names or name in SEND):
            note_call(self, node, scope)  # Perhaps a load-time call of a method of this file.
        if receiver_kind == _OTHER and scope is not None and scope.hook_param is not None and recv is not None and recv.text == scope.hook_param:
            hook_mixin(self, node, name, scope)
            hook_directive(self, node, name, scope)
        if name in MIXIN_CALLS and not in_method and recv is not None and recv.type == "identifier":
            # ``[A, B].each { |k| k.prepend(M) }``: once per constant of the list.
            loop = loop_at(self.loops, recv, recv.text.decode())
            for element in loop.nodes if loop is not None else ():
                path = self._const_path(element)
                if path is not None and not path.dynamic:
                    external_mixin(self, node, name, path, scope)
        if receiver_kind <= _SELF:
            if receiver_kind == _IMPLICIT_SELF and scope is not None:
                if name == "class_methods":
                    definitions.class_methods_block(self, node, meth, scope)  # ActiveSupport::Concern (rdx.ruby.discover.definitions).
                elif name == "included" and not in_method and block is not None:
                    if self.too_deep(node):
                        return
                    deferred = Scope(node.end_byte, block.start_byte, scope.index, False)
                    deferred.deferred = True
                    self.push_scope(deferred)
            handler = DIRECTIVES.get(name)
            if handler is not None:
                handler(self, node, name, scope)
            elif name in SEND:
                send_mixin(self, node, None, scope)
        elif receiver_kind == _CONSTANT and receiver is not None and not in_method:
            # Inside a method body the call runs only if the method does: not part of the graph.
            on_receiver = RECEIVER_DIRECTIVES.get(name)
            if on_receiver is not None:
                on_receiver(self, node, name, receiver, scope)
            else:
                literal_call(self, node, name, receiver, scope)  # Perhaps a computed require (rdx.ruby.evaluate.computed).

    # -- directives: calls on self with a meaning for the graph (rdx.ruby.discover.directives) --

    def on_block(self, node: Any) -> None:
        self._open_block(node.start_byte, node.end_byte)

    def _open_block(self, start: int, end: int) -> None:
        """Enter the block from byte ``start`` to ``end``, whose self the call before it said."""
        self.in_block(start)
        kind, callee, receiver = self._block_selves.pop(start, _UNKNOWN_SELF)
        self._blocks.append(Block(start, end, kind, callee, receiver))

    def _block_self(
        self, block: Any, name: str, recv: Any, receiver_kind: ReceiverKind, receiver: ConstPath | None, scope: Scope | None
    ) -> tuple[BlockSelf, str, ConstPath | None]:
        """What self is in the block of a call of ``name`` (see ``BlockSelf``)."""
        loops = self.loops
        if (loops and loops[-1].start == block.start_byte) or (recv is not None and name in _SELF_KEEPING_ITERATORS):
            return BlockSelf.SAME, name, None  # A loop rdx unrolls, or a core iterator.
        if name in _EVAL_CALLS:
            if receiver_kind <= ReceiverKind.SELF:
                return BlockSelf.SAME, name, None
            if scope is not None and scope.hook_param is not None and recv is not None and recv.text == scope.hook_param:
                return BlockSelf.HOOK_BASE, name, None  # ``base.class_eval do include X end`` in a hook.
            if receiver_kind == ReceiverKind.CONSTANT and receiver is not None:
                return BlockSelf.RECEIVER, name, receiver
        elif receiver_kind == ReceiverKind.CONSTANT and receiver is not None and (receiver.segments[-1], name) in _ANONYMOUS_FACTORIES and len(receiver.segments) == 1:
            return BlockSelf.ANONYMOUS, name, None
        return BlockSelf.UNKNOWN, name, None

    def in_block(self, start: int, since: int = -1) -> bool:
        """Whether the node being visited, at byte ``start``, sits in a block that starts
        after byte ``since`` (the start of the namespace around it, say). Only for the node the
        walk is at: blocks it has left behind are forgotten."""
        blocks = self._blocks
        while blocks and blocks[-1].end <= start:
            blocks.pop()
        return bool(blocks) and blocks[-1].start > since

    def self_block(self, start: int, since: int = -1) -> Block | None:
        """The innermost block around the node being visited (at byte ``start``) that starts
        after byte ``since`` and changes self (or may: ``BlockSelf.UNKNOWN``); None when every
        such block keeps the self around it."""
        self.in_block(start)
        for block in reversed(self._blocks):
            if block.start <= since:
                return None
            if block.self_kind != BlockSelf.SAME:
                return block
        return None

    def ancestors(self) -> Iterator[Any]:
        """The ancestors of the node the walk is at, innermost first, read with a second cursor
        set to the walk's: ``goto_parent`` costs O(1) on a cursor, ``Node.parent`` O(depth).
        (``TreeCursor.copy`` crashes py-tree-sitter 0.26; ``reset_to`` does not.)"""
        cursor = self._probe
        if cursor is None:
            cursor = self._probe = self.root.walk()
        cursor.reset_to(self._cursor)
        while cursor.goto_parent():
            yield cursor.node

    def on_conditional(self, node: Any) -> None:
        """Note the branches of a load-time ``if``/``unless`` that Ruby does not run (see
        ``untaken``); inside a method body nothing it holds is a load-time effect anyway."""
        scope = self._scope(node.start_byte)
        if scope is None or not scope.is_method:
            self.untaken += untaken_branches(node)

    def untaken_at(self, start: int) -> bool:
        """Whether byte ``start`` (of the node being visited) is in a branch Ruby does not run."""
        if not self.untaken:
            return False
        self.untaken = [r for r in self.untaken if r[1] > start]
        return any(s <= start for s, _ in self.untaken)

    def in_arguments(self) -> bool:
        """Whether the node the walk is at is part of another call's arguments rather than a
        statement of its own (``expect(x).to include(:a)``), up to the statement list or block
        around it."""
        for node in self.ancestors():
            t = node.type
            if t == "argument_list":
                return True
            if t in _STATEMENT_LISTS:
                return False
        return False

    def _directive_scope(self, node: Any, scope: Scope | None) -> Scope | None:
        """The namespace body a directive applies to, or None inside a method body.

        At top level, directives apply to Object unless they sit in a block, whose ``self`` is
        unknown statically (``ActiveSupport.on_load(:x) { include M }``)."""
        if scope is None:
            return None if self.in_block(node.start_byte) else self._top_object(node)
        if scope.is_method:
            return None
        return scope

    def on_error(self, node: Any) -> None:
        gap = parenthesized_statements_gap(node, self.ancestors())
        if gap is not None:
            self._diag(GRAMMAR_LIMITATION, gap, node, "warning")  # Valid Ruby (rdx.ruby.discover.gaps).
        else:
            text = node_text(node)[:40].splitlines()[0] if node.end_byte > node.start_byte else ""
            self._diag("syntax-error", f"syntax error near {text!r}", node)
        self._error_until = max(self._error_until, node.end_byte)
        definitions.recover_namespace(self, node)

_UNKNOWN_SELF: tuple[BlockSelf, str, ConstPath | None] = (BlockSelf.UNKNOWN, "", None)
_IMPLICIT_SELF, _SELF, _CONSTANT, _OTHER = ReceiverKind.IMPLICIT_SELF, ReceiverKind.SELF, ReceiverKind.CONSTANT, ReceiverKind.OTHER
# Methods that run their block at once on the self around it, on any receiver.
_SELF_KEEPING_ITERATORS = frozenset(
    {"each", "each_with_index", "each_with_object", "reverse_each", "each_pair", "each_key", "each_value", "map", "flat_map", "times", "tap", "then"}
)
# Methods that run their block with the receiver as self.
_EVAL_CALLS = frozenset({"class_eval", "module_eval", "class_exec", "module_exec", "instance_eval", "instance_exec"})
# ``Class.new(Base) do ... end`` and its kin: the block runs with a new class (or module) as self.
_ANONYMOUS_FACTORIES = frozenset({("Class", "new"), ("Module", "new"), ("Struct", "new"), ("Data", "define")})
# Nodes whose children are statements (or that end an expression: blocks, bodies).
_STATEMENT_LISTS = frozenset(
    {"program", "body_statement", "block_body", "then", "else", "do", "begin", "ensure", "parenthesized_statements", "begin_block", "end_block", *BLOCK_TYPES}
)

_HANDLERS: dict[str, Callable[[Walker, Any], Any]] = {
    "class": definitions.on_namespace,
    "module": definitions.on_namespace,
    "singleton_class": definitions.on_singleton_class,
    "method": definitions.on_method,
    "singleton_method": definitions.on_method,
    "assignment": definitions.on_assignment,
    "operator_assignment": definitions.on_assignment,
    "constant": Walker.on_constant,
    "scope_resolution": Walker.on_constant,
    "call": Walker.on_call,
    "alias": directives.on_alias,
    "undef": directives.on_undef,
    "identifier": Walker.on_identifier,
    "binary": calls.on_binary,
    "unary": calls.on_unary,
    "element_reference": calls.on_element_reference,
    "block_argument": calls.on_block_argument,
    "pair": calls.on_pair,
    "ERROR": Walker.on_error,
}

for _name in STATEMENT_CONDITIONALS:
    _HANDLERS[_name] = Walker.on_conditional

for _name in BLOCK_TYPES:
    _HANDLERS[_name] = Walker.on_block

# Dispatch on numeric kind ids of named nodes: cheaper than type strings, and keywords such
# as the ``class`` token (an anonymous node with the same type string) never match.
# Nodes whose identifier children (or parameters' names) bind local variables.
_BINDING_NODES = (
    "method_parameters", "lambda_parameters", "block_parameters", "left_assignment_list", "exception_variable",
    "destructured_parameter", "destructured_left_assignment", "array_pattern", "find_pattern", "alternative_pattern",
)

for _name in _BINDING_NODES:
    _HANDLERS[_name] = Walker.on_binding

_HANDLERS_BY_ID: dict[int, Callable[[Walker, Any], Any]] = {
    (65535 if name == "ERROR" else int(_LANGUAGE.id_for_node_kind(name, True) or 0)): handler for name, handler in _HANDLERS.items()
}

# Fields in which an identifier is never a call: names of methods, parameters and aliases.
_NOT_A_CALL_FIELDS = frozenset({"name", "method", "alias", "pattern", "key"})
_NOT_A_CALL_FIELD_IDS = frozenset(i for f in _NOT_A_CALL_FIELDS if (i := _LANGUAGE.field_id_for_name(f)))
_PATTERN_FIELD_ID = _LANGUAGE.field_id_for_name("pattern")
_METHOD_FIELD_ID = int(_LANGUAGE.field_id_for_name("method") or 0)
_RECEIVER_FIELD_ID = int(_LANGUAGE.field_id_for_name("receiver") or 0)
_BLOCK_FIELD_ID = int(_LANGUAGE.field_id_for_name("block") or 0)

# The handled kinds as the table the native step reads (rdx.native; one byte per kind id): 1
# for a kind whose handler runs wherever it is, 2 for identifiers, whose handler does nothing
# in the fields flagged in the second table (``on_identifier``: names, never calls) nor on a
# known local variable, 3 for constants, whose handler does nothing before
# ``skip_const_until`` (``on_constant``), 4 for hash pairs, whose handler does nothing unless
# they have one named child (``calls.on_pair``).
_IDENTIFIER_ID = int(_LANGUAGE.id_for_node_kind("identifier", True) or 0)
_CONSTANT_IDS = frozenset(int(_LANGUAGE.id_for_node_kind(name, True) or 0) for name in ("constant", "scope_resolution"))
_PAIR_ID = int(_LANGUAGE.id_for_node_kind("pair", True) or 0)
_HANDLED_KINDS = bytes(
    (2 if kind == _IDENTIFIER_ID else 3 if kind in _CONSTANT_IDS else 4 if kind == _PAIR_ID else 1) if kind in _HANDLERS_BY_ID else 0
    for kind in range(65536)
)
# The same table for the collecting native step (``walk``): 5 for calls (``on_call``), 6 for
# binary and 7 for unary operators (``calls.on_binary``, ``calls.on_unary``), 8 for element
# references (``calls.on_element_reference``), 9 for assignments (``definitions.on_assignment``),
# 10 for the nodes that bind local variables (``on_binding``), whose plain cases it records
# itself, 11 for conditional statements (``on_conditional``), which do nothing in a method,
# 12 for blocks (``on_block``), which it opens through the batch (``_record_batch``), 13 for
# operator assignments (``definitions.on_assignment``), 14 for method definitions
# (``definitions.on_method``: the scopes of those it records open in the batch too), 15 for
# block arguments (``calls.on_block_argument``) and 16 for classes and modules
# (``definitions.on_namespace``, their scopes opened in the batch too), 17 for ``alias``
# (``directives.on_alias``).
_COLLECTED_IDS = {
    int(_LANGUAGE.id_for_node_kind(name, True) or 0): code
    for name, code in (
        *(("call", 5), ("binary", 6), ("unary", 7), ("element_reference", 8), ("assignment", 9)),
        *((binding, 10) for binding in _BINDING_NODES),
        *((conditional, 11) for conditional in STATEMENT_CONDITIONALS),
        *((block, 12) for block in BLOCK_TYPES),
        ("operator_assignment", 13),
        ("method", 14),
        ("singleton_method", 14),
        ("block_argument", 15),
        ("class", 16),
        ("module", 16),
        ("alias", 17),
    )
}
_COLLECTED_KINDS = bytes(_COLLECTED_IDS.get(kind, code) for kind, code in enumerate(_HANDLED_KINDS))
# Method names whose calls ``on_call`` does more with than record them: directives, ``send``,
# mixins (on self or in a loop), ``class_methods``, ``included``. The native step leaves
# their calls, and those of the methods the file defines (``note_call``), to ``on_call``.
_CALL_SPECIAL_NAMES = frozenset({*DIRECTIVES, *SEND, *MIXIN_CALLS, "class_methods", "included"})
_RECEIVER_KINDS = tuple(ReceiverKind)
_BATCH_OTHER = int(ReceiverKind.OTHER)
_BATCH_CONST_REF = 5
_BATCH_DEFINITION = 6
_BATCH_BLOCK_SELF = 7
_BATCH_BLOCK = 8
_BATCH_METHOD = 9
_BATCH_NAMESPACE = 10
_BATCH_METHOD_RECORD = 11
_BATCH_RECORD = 12
_BATCH_MIXIN = 13
_BATCH_ATTRS = 14
_BATCH_CONSTANT = 15
_BATCH_VISIBILITY = 16
_BATCH_ALIAS = 17
_VARIABLE_KINDS = ("InstanceVariable", "ClassVariable", "GlobalVariable")
_KIND_OF = itemgetter(4)
_BLOCK_SELVES = tuple(BlockSelf)


_SPEC: list[object] = []


def _collect_spec() -> object:
    """The grammar facts the collecting native step reads (rdx.native ``spec``), made once;
    None while the native module is not in use."""
    if not _SPEC:
        names = (
            "method", "receiver", "block", "operator", "left", "operand", "object", "pattern", "name", "scope", "parameters", "superclass", "body", "arguments", "right", "alias",
        )
        ids = tuple(int(_LANGUAGE.field_id_for_name(f) or 0) for f in names)
        hooks = frozenset(hook.decode() for hook in definitions.HOOKS)
        # The calls whose plain forms the step records (walk.c's collect_directive): those
        # ``DIRECTIVES`` gives to the handlers of ``include``, ``attr_reader``, ``private`` and
        # ``alias_method``.
        mixins = frozenset(name for name in MIXIN_CALLS if DIRECTIVES.get(name) is DIRECTIVES["include"])
        attrs = {name: (0, kind) for name, kind in ATTR_KINDS.items() if DIRECTIVES.get(name) is DIRECTIVES["attr_reader"]}
        attrs |= {name: (1, "MethodVisibility") for name, handler in DIRECTIVES.items() if handler is DIRECTIVES["private"]}
        attrs |= {name: (2, "MethodAlias") for name, handler in DIRECTIVES.items() if handler is DIRECTIVES["alias_method"]}
        made = native_spec(
            ids, _CALL_SPECIAL_NAMES, WRITE, _SELF_KEEPING_ITERATORS, _EVAL_CALLS, hooks, MAX_NESTING, frozenset(_VISIBILITY_WORDS), mixins, attrs,
            definitions.NAMESPACE_FACTORY_RECEIVERS,
        )
        if made is None:
            return None
        _SPEC.append(made)
    return _SPEC[0]


_IDENTIFIER_SKIPPED_FIELDS = bytes(1 if field in _NOT_A_CALL_FIELD_IDS and field != _PATTERN_FIELD_ID else 0 for field in range(65536))

