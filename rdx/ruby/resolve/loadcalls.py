"""Load-time calls across files: ``LoadCall`` records bound to other files' ``MethodEffects``.

Discovery (``rdx.discovery.loadtime``) inlines a load-time call of a method the same file
defines; a call of another file's method (``DidYouMean.correct_error(self, Correction)`` in a
Rails error class, the method in did_you_mean.rb) is left to resolution as a ``LoadCall``, and
every method a file makes callable on a namespace leaves a template of its mixin effects. Once
every namespace is declared (the end of phase 1, before any chain is kept), this module binds
them: the receiver and arguments are looked up where the call is written, the method is the
last definition callable on the receiver's namespace (``def self.m``, ``class << self``,
``module_function``, ``extend self`` in the same file) that precedes the call in load order,
its parameters are bound to the arguments, and each mixin of its template becomes a mixin of
the resolved target, ordered at the call (``AppliedMixin``). Calls in the template of methods
with templates are followed the same way, four deep, never into a method already running.

It only reads the model; ``Namespaces._collect_external_mixins`` applies what it returns, in
program order with the other external mixins (a guarded one only when the target lacks the
module then). Incremental edits that could change a binding fall back to a full resolve
(``load_call_conflict``): an edit of a document whose calls applied mixins, whose calls
change, whose templates change for a method a call may run (by its name: one no call names,
such as the ``end`` method tree-sitter reads while ``def`` is typed above a class's
``include`` lines, changes nothing; ``keep_current`` keeps the names current), or that
changes a method of a name such a call uses. ``hook_run`` tells
which hook runs a deferred mixin (``included``, ``prepended``, ``extended``...); an edit that
changes only that also falls back.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from rdx.model.kinds import MixinKind
from rdx.model.records import ConstPath, DefinitionRecord, FileResult, LoadCall, MethodEffects, Operand, OperandKind
from rdx.ruby.resolve.edits import IDENTITY_FIELDS, fields_of, load_time_paths, strip_path
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import MEMBER_DEF_KINDS, Site

if TYPE_CHECKING:
    from rdx.ruby.resolve.lookup import Binding, Lookup

__all__ = ["AppliedMixin", "hook_run", "LoadCallBook", "LoadCalls"]

MAX_DEPTH = 4
# The hook methods whose ``base.include X`` (``deferred_mixins``) Ruby runs, by what runs them.
_HOOK_RUNS = {
    "included": "include", "append_features": "include", "prepended": "prepend", "prepend_features": "prepend",
    "extended": "extend", "extend_object": "extend", "inherited": "inherit",
}
# (namespace, method name) -> the definitions callable so, in program order: (doc, end, index).
CalleeIndex = dict[tuple[int, str], list[tuple[int, int, int]]]


class AppliedMixin(NamedTuple):
    """A mixin a load-time call applies, shaped like ``Mixin`` (kind, target, call, start) so
    that linearization orders it like any other, at the call; ``target`` is the module,
    already resolved (``Ancestors._mixin_target`` takes an int as it is)."""

    kind: MixinKind
    target: int
    call: int
    start: int


class Applied(NamedTuple):
    """``mixin`` applied to namespace ``namespace`` (for ``extend``, to its singleton class);
    ``guarded``: only when the namespace lacks the module at that point."""

    namespace: int
    mixin: AppliedMixin
    guarded: bool


class _Frame:
    """One template being run: where it is, what ``self`` and its parameters are."""

    __slots__ = ("bound", "chain", "doc", "position", "self_ns", "site", "template")

    def __init__(self, doc: int, template: MethodEffects, site: Site, self_ns: int, bound: list[int | None], chain: frozenset[tuple[int, int]]) -> None:
        self.doc, self.template, self.site, self.self_ns, self.bound, self.chain = doc, template, site, self_ns, bound, chain
        self.position = 0


class LoadCallBook:
    """What binding load-time calls across files keeps (owned by this module): per document,
    every mixin its calls apply (guarded ones included; the image refers to them by
    position); the templates by (document, method index); the method names the calls use."""

    __slots__ = ("applied", "called_names", "self_called", "template_names", "templates")
    HELD_AS = "load_book"

    def __init__(self) -> None:
        self.applied: dict[int, list[Applied]] = {}
        self.templates: dict[tuple[int, int], MethodEffects] = {}
        self.called_names: set[str] | None = None
        # The names of the methods that have a template (what a call on ``self`` can run).
        self.template_names: set[str] = set()
        # The names of every load-time call on ``self`` (those that run nothing rdx applies too:
        # a template added later with one of these names would be run by it).
        self.self_called: set[str] = set()

    def reset_applied(self) -> None:
        self.applied = {}

    def set_applied(self, doc: int, applied: list[Applied]) -> None:
        self.applied[doc] = applied


class LoadCalls(StateView):
    """The load-time call pass: binding of calls that run while files load, across files."""

    def __init__(self, binding: Binding, *, load_book: LoadCallBook, lookup: Lookup) -> None:
        self.load_book = load_book
        self.lookup = lookup
        binding.join(self)

    def callee_index(self) -> CalleeIndex:
        """The methods callable on a namespace under a name some load-time call or template
        uses, and the templates by (doc, method index); remembers those names."""
        names: set[str] = set()
        self_calls: set[str] = set()
        self.load_book.templates = {}
        self.load_book.template_names = set()
        for doc, result in self.docs.items():
            for c in result.load_calls:
                (self_calls if c.receiver.kind == OperandKind.SELF else names).add(c.name)
            for t in result.method_effects:
                self.load_book.templates[(doc, t.method)] = t
                self.load_book.template_names.add(result.definitions[t.method].name)
                names.update(e.name for e in t.effects if not e.mixin)
        # A call on ``self`` of a method no template has runs nothing rdx applies (``runs_calls``).
        names |= self_calls & self.load_book.template_names
        self.load_book.called_names = names
        self.load_book.self_called = self_calls
        index: CalleeIndex = {}
        if not names:
            return index
        for doc, result in self.docs.items():
            defs = result.definitions
            extends_self: set[int] | None = None
            for i, d in enumerate(defs):
                if d.kind != "Method" or d.name not in names or d.parent < 0:
                    continue
                if extends_self is None:
                    extends_self = self._extending_self(doc, defs)
                ns = self._callable_on(doc, defs, d, extends_self)
                if ns is not None:
                    index.setdefault((ns, d.name), []).append((doc, d.end, i))
        return index

    def _extending_self(self, doc: int, defs: list[DefinitionRecord]) -> set[int]:
        """The modules that a definition of this document makes ``extend self``."""
        out = set()
        for j, m in enumerate(defs):
            if m.kind == "Module" and any(x.kind == MixinKind.EXTEND and x.target is None for x in m.mixins):
                decl = self.def_decl[doc][j]
                if decl is not None:
                    out.add(decl)
        return out

    def _callable_on(self, doc: int, defs: list[DefinitionRecord], d: DefinitionRecord, extends_self: set[int]) -> int | None:
        """The namespace on which method definition ``d`` can be called, if any."""
        parent = defs[d.parent]
        decl = self.def_decl[doc][d.parent]
        if decl is None or d.receiver is not None:
            return None
        if d.self_receiver:
            return decl if parent.kind in ("Class", "Module") else None
        if parent.kind == "SingletonClass" and parent.target is None:
            return self.decls[decl].attached
        if parent.kind == "Module" and (d.module_function or decl in extends_self):
            return decl
        return None

    def _find_callee(self, index: CalleeIndex, ns: int, name: str, doc: int, start: int) -> tuple[int, MethodEffects] | None:
        """The template of the last method ``name`` callable on ``ns`` loaded before the call
        (None when that method has no effects, or there is none). A class without one
        inherits its superclasses' singleton methods (Liquid's ``class Render < Tag`` runs
        ``Tag``'s ``disable_tags``): they are tried in its chain's order; modules' singleton
        methods are not inherited."""
        if (ns, name) in index or name not in self.load_book.template_names or self.decls[ns].kind != "Class":
            return self._callee_on(index, ns, name, doc, start)
        for anc in self.lookup.ancestors(ns):
            if self.decls[anc].kind == "Class" and (anc, name) in index:
                return self._callee_on(index, anc, name, doc, start)
        return None

    def _callee_on(self, index: CalleeIndex, ns: int, name: str, doc: int, start: int) -> tuple[int, MethodEffects] | None:
        found = None
        for cdoc, end, i in index.get((ns, name), ()):
            if cdoc > doc or (cdoc == doc and end > start):
                break
            found = (cdoc, i)
        if found is None:
            return None
        template = self.load_book.templates.get(found)
        return (found[0], template) if template is not None else None

    def _value(self, op: Operand, site: Site, self_ns: int | None, bound: list[int | None]) -> int | None:
        """The namespace an operand stands for, or None."""
        if op.kind == OperandKind.CONSTANT and op.path is not None:
            return self.lookup.lookup_namespace(op.path, site)
        if op.kind == OperandKind.SELF:
            return self_ns
        if op.kind == OperandKind.PARAM and 0 <= op.param < len(bound):
            return bound[op.param]
        return None

    def _enter(self, cdoc: int, template: MethodEffects, args: list[int | None], chain: frozenset[tuple[int, int]], receiver: int) -> _Frame | None:
        """The frame of a call of ``template`` on ``receiver`` (``self`` in its body: the
        method's namespace, or a subclass that inherits it) with ``args`` (None when Ruby
        would raise)."""
        given = len(args)
        most = template.required + len(template.defaults)
        if given < template.required or (given > most and not template.rest):
            return None
        site = self.lookup.cref(cdoc, template.scope)
        self_ns = receiver
        if site is None:
            return None
        args = args[:most]  # Those past them go to the splat, which the effects do not read.
        given = len(args)
        bound = list(args)
        for op in template.defaults[given - template.required:]:
            bound.append(self._value(op, site, self_ns, bound))
        return _Frame(cdoc, template, site, self_ns, bound, chain | {(cdoc, template.method)})

    def _instantiate(self, doc: int, call: LoadCall, index: CalleeIndex) -> list[Applied]:
        """The mixins one load-time call applies, in the order Ruby applies them."""
        site = self.lookup.cref(doc, call.scope)
        if site is None:
            return []
        here = site[0] if site else None
        receiver = self._value(call.receiver, site, here, [])
        callee = self._find_callee(index, receiver, call.name, doc, call.start) if receiver is not None else None
        if callee is None:
            return []
        assert receiver is not None
        first = self._enter(callee[0], callee[1], [self._value(a, site, here, []) for a in call.args], frozenset(), receiver)
        out: list[Applied] = []
        stack = [first] if first is not None else []
        while stack:
            frame = stack[-1]
            if frame.position >= len(frame.template.effects):
                stack.pop()
                continue
            effect = frame.template.effects[frame.position]
            frame.position += 1
            target = self._value(effect.receiver, frame.site, frame.self_ns, frame.bound)
            if target is None:
                continue
            args = [self._value(a, frame.site, frame.self_ns, frame.bound) for a in effect.args]
            if effect.mixin:
                out += self._mixins(target, MixinKind(effect.name), args, effect.guarded, call.start, len(out))
            elif len(stack) < MAX_DEPTH and (found := self._find_callee(index, target, effect.name, doc, call.start)) is not None:
                if (found[0], found[1].method) not in frame.chain and (pushed := self._enter(found[0], found[1], args, frame.chain, target)) is not None:
                    stack.append(pushed)
        return out

    def _mixins(self, target: int, kind: MixinKind, modules: list[int | None], guarded: bool, start: int, n: int) -> list[Applied]:
        """``target.include(A, B)``: B is inserted first, so that A ends up first, as in Ruby.
        Nothing when a module is unknown or not a module (Ruby would raise)."""
        if not modules or any(m is None or self.decls[m].kind != "Module" for m in modules):
            return []
        return [Applied(target, AppliedMixin(kind, m, n + k, start), guarded) for k, m in enumerate(reversed(modules)) if m is not None]

    def applied_mixins(self, index: CalleeIndex, doc: int, result: FileResult) -> list[Applied]:
        """Every mixin the load-time calls of one document apply (guarded ones included)."""
        return [a for call in result.load_calls for a in self._instantiate(doc, call, index)]

    def load_call_names(self) -> set[str]:
        """The method names load-time calls and templates use (computed on first use)."""
        if self.load_book.called_names is None:
            self.callee_index()
        assert self.load_book.called_names is not None
        return self.load_book.called_names

    def runs_calls(self, result: FileResult) -> bool:
        """Whether a document has load-time calls that may run another file's method
        (``_may_run``)."""
        if not result.load_calls:
            return False
        self.load_call_names()  # The template names, computed with the callee index.
        templated = self.load_book.template_names
        return any(_may_run(c, templated) for c in result.load_calls)

    def binding_paths(self, result: FileResult) -> list[tuple[ConstPath, int]]:
        """The constant paths of a document whose answers can change what its load-time calls
        apply (``load_time_paths``), with the scope each is looked up at: those of its
        templates, and those of its calls of a method name some template has. A call of any
        other name (``PROBE(q1, Foo)``, ``has_many :x``) binds nothing (``_callee_on`` finds
        templates by name), wherever its receiver and arguments lead."""
        if not result.load_calls:
            return load_time_paths(result)
        self.load_call_names()  # The template names, computed with the callee index.
        templated = self.load_book.template_names
        return load_time_paths(result, lambda call: call.name in templated)

    def load_call_conflict(self, index: int, old: FileResult, new: FileResult) -> str | None:
        """Why a member edit of document ``index`` from ``old`` to ``new`` may change what a
        load-time call across files applies (then only a full resolve is sound), or None."""
        if index in self.load_book.applied:
            return "its load-time calls apply mixins of another file's method"
        old_hooks, new_hooks = _hook_runs(old), _hook_runs(new)
        if old_hooks != new_hooks and [m for m, _ in old_hooks] == [m for m, _ in new_hooks]:
            # The same deferred mixins (no chain is computed again), run by other hooks.
            return "a hook method around a hook's mixins changes (included, prepended, extended...)"
        self.load_call_names()  # The template names, computed with the callee index.
        templated = self.load_book.template_names
        if _calls_key(old, templated) != _calls_key(new, templated):
            return "its load-time calls of other files' methods change"
        names = self.load_call_names()
        if old.method_effects or new.method_effects:
            old_templates, new_templates = Counter(_templates_key(old)), Counter(_templates_key(new))
            if old_templates != new_templates:
                changed = {t[0] for t in (old_templates - new_templates) + (new_templates - old_templates)}
                own = {c.name for c in (*old.load_calls, *new.load_calls)}
                if not (changed.isdisjoint(names) and changed.isdisjoint(self.load_book.self_called) and changed.isdisjoint(own)):
                    return "the mixin effects of a method a load-time call may run change"
        if names and _methods_key(old, names) != _methods_key(new, names):
            return "it changes a method that a load-time call of another file may run"
        return None

    def keep_current(self, new: FileResult) -> None:
        """After ``load_call_conflict`` let an edit through: the names its checks read take in
        what the new version brings (a template no call runs yet, a call on ``self`` that runs
        nothing yet), so that a later edit that makes one run the other is seen. They only grow
        until the next full resolve computes them anew (``callee_index``); more names only make
        the checks stricter. The templates by position are not kept: only a full resolve binds
        calls (``applied_mixins``), after computing the index again."""
        if not (new.load_calls or new.method_effects):
            return
        book = self.load_book
        self.load_call_names()
        assert book.called_names is not None
        for c in new.load_calls:
            (book.self_called if c.receiver.kind == OperandKind.SELF else book.called_names).add(c.name)
        for t in new.method_effects:
            book.template_names.add(new.definitions[t.method].name)
            book.called_names.update(e.name for e in t.effects if not e.mixin)
        book.called_names |= book.self_called & book.template_names


def hook_run(defs: list[DefinitionRecord], index: int, start: int) -> str:
    """What makes Ruby run the deferred mixin at byte ``start`` of namespace definition
    ``index``: "include" for an ``included do`` block or a ``def self.included(base)`` hook,
    "prepend" for ``prepended``, "extend" for ``extended``, "inherit" for ``inherited`` (the
    innermost hook method around it, among the definitions that follow the namespace's)."""
    end = defs[index].end
    run = "include"
    for j in range(index + 1, len(defs)):
        d = defs[j]
        if d.start > start or d.start >= end:
            break
        if d.kind == "Method" and d.end > start and d.name in _HOOK_RUNS:
            run = _HOOK_RUNS[d.name]
    return run


def _hook_runs(result: FileResult) -> list[tuple[object, str]]:
    """Each deferred mixin of the document (without its position) with what runs it."""
    defs = result.definitions
    return [((m.kind, strip_path(m.target)), hook_run(defs, i, m.start)) for i, d in enumerate(defs) for m in d.deferred_mixins]


def _ordinals(result: FileResult) -> dict[int, int]:
    """Definition index -> its position among the document's non-member definitions (what
    stays put when only members change)."""
    out: dict[int, int] = {-1: -1}
    for i, d in enumerate(result.definitions):
        if d.kind not in MEMBER_DEF_KINDS:
            out[i] = len(out) - 1
    return out


def _op_key(op: Operand) -> tuple:
    return (op.kind, strip_path(op.path), op.param)


def _may_run(call: LoadCall, templated: set[str]) -> bool:
    """Whether a load-time call may run another file's method: not a call on ``self`` of a
    method no template has (``has_many :x``, a class-body macro), which runs nothing rdx
    applies (``templated``: the names of the methods with a template)."""
    return call.receiver.kind != OperandKind.SELF or call.name in templated


def _calls_key(result: FileResult, templated: set[str]) -> tuple:
    """The document's load-time calls that may run another file's method (``_may_run``),
    where they are: a template added in another file changes that file's ``_templates_key``."""
    pos = _ordinals(result)
    return tuple(
        (_op_key(c.receiver), c.name, tuple(map(_op_key, c.args)), pos.get(c.scope))
        for c in result.load_calls
        if _may_run(c, templated)
    )


def _templates_key(result: FileResult) -> tuple:
    pos = _ordinals(result)
    defs = result.definitions
    return tuple(
        (defs[t.method].name, pos.get(t.namespace), pos.get(t.scope), t.required, tuple(map(_op_key, t.defaults)),
         tuple((e.name, _op_key(e.receiver), tuple(map(_op_key, e.args)), e.mixin, e.guarded) for e in t.effects))
        for t in result.method_effects
    )


def _methods_key(result: FileResult, names: set[str]) -> tuple:
    """The methods of ``names`` a document defines that a load-time call could run (callable on
    a namespace: singleton methods, ``class << self``, a module's own methods for ``extend
    self``/``module_function``), by where they sit (the names of the enclosing definitions, so
    an unrelated class added above moves nothing) and as what (no positions)."""
    defs = result.definitions
    out = []
    for d in defs:
        if d.kind != "Method" or d.name not in names:
            continue
        parent = defs[d.parent] if d.parent >= 0 else None
        callable_on_namespace = d.receiver is not None or d.self_receiver or (parent is not None and parent.kind in ("SingletonClass", "Module"))
        if not callable_on_namespace:
            continue
        where = []
        p = d.parent
        while p >= 0:
            where.append((defs[p].kind, defs[p].name))
            p = defs[p].parent
        out.append((tuple(where), fields_of(d, IDENTITY_FIELDS)))
    return tuple(sorted(out, key=repr))
