"""Public handles for what sits in documents: ``ConstantReference``, ``MethodReference`` (a
name as written and what it resolves to) and ``Document`` (an indexed file and its
definitions). Like the handles of ``rdx.ruby.query.handles``, each holds the view it came from."""

from __future__ import annotations

from collections.abc import Iterator

from rdx.model.ids import name_id, reference_id, string_id, uri_id
from rdx.model.kinds import ReceiverKind
from rdx.model.public import Location
from rdx.model.records import FileResult
from rdx.ruby.query.handles import (
    Declaration,
    Definition,
    Indexed,
    View,
)

__all__ = ["ConstantReference", "Document", "MethodReference", "iter_constant_references", "iter_method_references"]


class ConstantReference(Indexed):
    """A constant as written somewhere, and what it resolves to."""

    __slots__ = ()

    @property
    def id(self) -> int:
        """ReferenceId: stable hash of (uri, start offset, name)."""
        d = self._view.state.documents[self._doc]
        p = d.const_refs[self._index].path
        return reference_id(d.uri, p.start, p.text)

    @property
    def name(self) -> str:
        return self._view.state.documents[self._doc].const_refs[self._index].path.text

    @property
    def name_id(self) -> int:
        """NameId of the unresolved name: its last segment, the scope written before it, and the
        lexical nesting around it (stable across runs, like Rubydex's)."""
        ref = self._view.state.documents[self._doc].const_refs[self._index]
        segments = ref.path.segments
        scope = ("::" if ref.path.absolute else "") + "::".join(segments[:-1])
        nesting = "\x00".join(self._view.nesting_text(self._doc, ref.scope, inclusive=True))
        return name_id(segments[-1], string_id(scope), string_id(nesting))

    @property
    def location(self) -> Location:
        p = self._view.state.documents[self._doc].const_refs[self._index].path
        return self._view.location(self._doc, p.start, p.end)

    @property
    def declaration(self) -> Declaration | None:
        return self._view.declaration(self._view.state.constant_targets[self._doc][self._index])

    def __repr__(self) -> str:
        return f"<ConstantReference {self.name} at {self.location}>"


class MethodReference(Indexed):
    """A call site: the method name, where, and the namespace its receiver is an instance of."""

    __slots__ = ()

    @property
    def id(self) -> int:
        """ReferenceId: stable hash of (uri, start offset, name)."""
        d = self._view.state.documents[self._doc]
        r = d.method_refs[self._index]
        return reference_id(d.uri, r.start, r.name)

    @property
    def name(self) -> str:
        return self._view.state.documents[self._doc].method_refs[self._index].name

    @property
    def location(self) -> Location:
        r = self._view.state.documents[self._doc].method_refs[self._index]
        return self._view.location(self._doc, r.start, r.end)

    @property
    def receiver_text(self) -> str | None:
        r = self._view.state.documents[self._doc].method_refs[self._index]
        if r.receiver is not None:
            return r.receiver.text + (".new" if r.receiver_kind == ReceiverKind.CONSTANT_INSTANCE else "")
        if r.receiver_kind == ReceiverKind.SELF:
            return "self"
        return r.receiver_text

    @property
    def receiver(self) -> Declaration | None:
        """Where the method is looked up: ``Foo.bar`` -> ``Foo::<Foo>``, ``Foo.new.bar`` -> ``Foo``."""
        return self._view.declaration(self._view.state.method_receivers[self._doc][self._index])

    @property
    def method(self) -> Declaration | None:
        """The method the call reaches through the receiver's ancestors, when it is known."""
        recv = self.receiver
        return recv.find_member(self.name + "()") if recv is not None else None

    def __repr__(self) -> str:
        return f"<MethodReference {self.name} at {self.location}>"


class Document:
    """An indexed file."""

    __slots__ = ("_doc", "_view")

    def __init__(self, view: View, doc: int) -> None:
        self._view = view
        self._doc = doc

    @property
    def revision(self) -> int:
        """The graph revision this answer describes; compare with ``Graph.revision``."""
        return self._view.revision

    @property
    def _result(self) -> FileResult:
        return self._view.state.documents[self._doc]

    @property
    def id(self) -> int:
        """UriId: stable hash of the document's URI."""
        return uri_id(self._result.uri)

    @property
    def uri(self) -> str:
        return self._result.uri

    @property
    def library(self) -> str | None:
        """The dependency this file belongs to (``"activerecord-6.1.7.10"``), or None for the
        project's own files (see rdx.workspace.dependencies)."""
        return self._result.library

    @property
    def path(self) -> str | None:
        return self._result.path

    @property
    def size(self) -> int:
        return self._result.size

    @property
    def language(self) -> str:
        return self._result.language

    @property
    def definitions(self) -> list[Definition]:
        result = self._result
        if result.language != "ruby":
            return list(self._view.foreign.definitions_in(result.uri))
        return [Definition(self._view, self._doc, i) for i in range(len(result.definitions))]

    @property
    def constant_references(self) -> list[ConstantReference]:
        """The constant references written in this file, in the order discovery met them (Ruby
        files; other languages' references are ``Graph.references``)."""
        return [ConstantReference(self._view, self._doc, i) for i in range(len(self._result.const_refs))]

    @property
    def method_references(self) -> list[MethodReference]:
        """The method calls written in this file, in the order discovery met them (Ruby files)."""
        return [MethodReference(self._view, self._doc, i) for i in range(len(self._result.method_refs))]

    def __repr__(self) -> str:
        return f"<Document {self.uri}>"


def iter_constant_references(view: View) -> Iterator[ConstantReference]:
    for doc, result in view.state.documents.items():
        for i in range(len(result.const_refs)):
            yield ConstantReference(view, doc, i)


def iter_method_references(view: View) -> Iterator[MethodReference]:
    for doc, result in view.state.documents.items():
        for i in range(len(result.method_refs)):
            yield MethodReference(view, doc, i)
