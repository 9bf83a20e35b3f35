"""The graph store: documents from discovery and the declarations resolution built from them.

The store is plain data with lookups by id and by name. Discovery results go in through
``put_document``/``remove_document``; resolution replaces the resolved part wholesale through
``ResolvedState``. Nothing here parses or resolves.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import ItemsView, Iterable, Iterator, Sequence, ValuesView
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath, FileResult

__all__ = ["CORE_URI", "DeclarationTable", "Declarations", "DocumentSharing", "DocumentSource", "Documents", "LazyTable", "RowTable", "Rows", "GraphStore", "MemberBookkeeping", "ResolutionDiagnostic", "ResolvedImage", "ResolvedState", "Unread", "holds_tables", "stored_entries"]

# The built-in description of Ruby core, indexed like any other document and always first.
CORE_URI = "rdx-core:///core.rb"


class ResolutionDiagnostic(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A problem resolution found (an unresolvable mixin, a superclass mismatch...): document
    index, stable kebab-case code, one-sentence message, byte span and severity."""

    doc: int
    code: str
    message: str
    start: int
    end: int
    severity: str


K = TypeVar("K")


class DocumentSource(Protocol):
    """Where ``Unread`` documents come from (``rdx.cache.snapshot.SavedDocuments``)."""

    def read(self, index: int) -> FileResult: ...


def holds_tables(doc: FileResult | Unread) -> bool:
    """Whether a document holds db/schema.rb tables (a stub says so without being decoded)."""
    if type(doc) is Unread:
        return doc.tables
    rails = doc.rails  # type: ignore[union-attr]
    return rails is not None and bool(rails.tables)


class DocumentSharing:
    """What the documents decoded from one snapshot share instead of each holding equal
    objects of its own (issue 23): decoding gives every occurrence of a value an object of
    its own, so that a prepared graph held each byte offset as an int object of its own (16
    million of them, 444 MiB, on 10 copies of the Debian corpus: 4 million calls with a start
    and an end each), each constant path's segments as a tuple of new strings, each comment
    as a new string. Here equal names, comments, constant path segments, offsets and line
    tables become one object each: the documents of a prepared 10-copy graph went from 1,568
    to 864 MiB, those of the Debian corpus alone from 162 to 114 MiB.

    Every value is replaced by an equal one, of the same type, before any reader sees the
    document (``share`` runs as it is decoded), so nothing that reads a document can tell;
    frozen records get theirs with ``force_setattr`` (their hash, computed from equal
    values, is unchanged). The tables live as long as documents are still to be decoded
    (the reader drops this once every document is)."""

    __slots__ = ("ints", "lines", "strings", "tuples")

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}
        self.ints: dict[int, int] = {}
        self.tuples: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.lines: dict[bytes, bytes] = {}

    def share(self, doc: FileResult) -> FileResult:
        """``doc`` with its values replaced by the equal ones earlier documents hold."""
        strings = self.strings.setdefault
        ints = self.ints.setdefault
        tuples = self.tuples
        force = _force
        lines = doc.line_starts
        if lines:
            doc.line_starts = self.lines.setdefault(lines, lines)
        paths: list[ConstPath] = []  # Shared last, all alike.
        for call in doc.method_refs:
            force(call, "name", strings(call.name, call.name))
            start = call.start
            force(call, "start", ints(start, start))
            end = call.end
            force(call, "end", ints(end, end))
            if call.receiver is not None:
                paths.append(call.receiver)
            text = call.receiver_text
            if text is not None:
                force(call, "receiver_text", strings(text, text))
        paths += [ref.path for ref in doc.const_refs]
        for d in doc.definitions:
            d.name = strings(d.name, d.name)
            d.start = ints(d.start, d.start)
            d.end = ints(d.end, d.end)
            d.name_start = ints(d.name_start, d.name_start)
            d.name_end = ints(d.name_end, d.name_end)
            if d.params is not None:
                d.params = strings(d.params, d.params)
            comments = d.comments
            if comments:
                shared = tuples.get(comments)  # type: ignore[call-overload]
                if shared is None:
                    shared = tuples[comments] = tuple([strings(c, c) for c in comments])  # type: ignore[index]
                d.comments = shared
            if d.path is not None:
                paths.append(d.path)
            if d.superclass is not None:
                paths.append(d.superclass)
            if d.receiver is not None:
                paths.append(d.receiver)
            if d.target is not None:
                paths.append(d.target)
        for path in paths:
            segments = path.segments
            shared = tuples.get(segments)
            if shared is None:
                shared = tuples[segments] = tuple([strings(x, x) for x in segments])
            force(path, "segments", shared)
            start = path.start
            force(path, "start", ints(start, start))
            end = path.end
            force(path, "end", ints(end, end))
        return doc


_force = msgspec.structs.force_setattr


class Unread:
    """A document of the snapshot that nobody has asked for yet: what the open compared with
    the file on disk (URI, path, size, mtime, content hash) and how to decode the rest.

    ``read`` gives the one FileResult every holder of this stub shares (the reader remembers
    it), so the store's table and a resolved state's table hand out the same object."""

    __slots__ = ("content_hash", "index", "library", "mtime_ns", "path", "size", "source", "tables", "uri")

    def __init__(
        self,
        source: DocumentSource,
        index: int,
        uri: str,
        path: str | None,
        size: int,
        mtime_ns: int,
        content_hash: int,
        tables: bool,
        library: str | None = None,
    ) -> None:
        self.source = source
        self.index = index
        self.uri = uri
        self.path = path
        self.size = size
        self.mtime_ns = mtime_ns
        self.content_hash = content_hash
        # Holds db/schema.rb tables, which ``rdx.rails.schema`` joins with every model.
        self.tables = tables
        # The gem of a dependency's document (see ``FileResult.library``).
        self.library = library

    def read(self) -> FileResult:
        return self.source.read(self.index)


V = TypeVar("V")


class LazyDict(dict[K, V]):
    """What the two lazy tables (``Documents``, ``LazyTable``) share: the dict operations that
    read every value go through ``read_all`` first (``setdefault`` reads one), so no stored
    stub or encoded value escapes through them."""

    __slots__ = ()

    def read_all(self) -> None:
        raise NotImplementedError

    def values(self) -> ValuesView[V]:  # type: ignore[override]
        self.read_all()
        return dict.values(self)

    def items(self) -> ItemsView[K, V]:  # type: ignore[override]
        self.read_all()
        return dict.items(self)

    def setdefault(self, key: K, default: Any = None) -> Any:
        if key in self:
            return self[key]
        dict.__setitem__(self, key, default)
        return default

    def __or__(self, other: Any) -> Any:
        self.read_all()
        return dict(dict.items(self)) | other

    def __ror__(self, other: Any) -> Any:
        self.read_all()
        return other | dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self.read_all()
        if isinstance(other, LazyDict):
            other.read_all()
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        self.read_all()
        return (dict, (dict(dict.items(self)),))


class Documents(LazyDict[K, FileResult]):
    """Documents by key (URI in the store, document key in a resolved state), some of them
    still ``Unread``: decoded from the snapshot when first asked for, so that a warm open
    decodes only what its first questions read (issue 23).

    Every way of reading a value decodes it: indexing and ``get`` decode one document,
    ``values``, ``items``, ``pop`` and copies into other dicts (``dict(d)``, ``{**d}``: the
    overridden ``__iter__`` makes CPython take the keys-and-``__getitem__`` path) decode all
    of them once. ``entries`` is the one way to see the stubs themselves, for code that needs
    only what a stub carries (URIs, paths, sizes, hashes)."""

    __slots__ = ("unread",)

    def __init__(self, items: Iterable[tuple[K, FileResult | Unread]] = ()) -> None:
        super().__init__(items)  # type: ignore[arg-type]  # stubs are stored as they are
        self.unread = any(type(v) is Unread for v in dict.values(self))

    def __getitem__(self, key: K) -> FileResult:
        value: Any = dict.__getitem__(self, key)
        if type(value) is Unread:
            value = value.read()
            dict.__setitem__(self, key, value)
        return value  # type: ignore[no-any-return]

    def get(self, key: K, default: Any = None) -> Any:
        value: Any = dict.get(self, key, default)
        if type(value) is Unread:
            value = value.read()
            dict.__setitem__(self, key, value)
        return value

    def __iter__(self) -> Iterator[K]:
        # Defined here so that copies into other dicts go through ``__getitem__`` (see above).
        return dict.__iter__(self)

    def put_unread(self, key: K, stub: Unread) -> None:
        dict.__setitem__(self, key, stub)  # type: ignore[misc, assignment]
        self.unread = True

    def peek(self, key: K) -> FileResult | Unread:
        """The value as stored: a FileResult or its ``Unread`` stub (nothing decoded)."""
        return dict.__getitem__(self, key)

    def entries(self) -> ValuesView[FileResult | Unread]:
        """Every value as stored (see ``peek``): for what a stub carries, without decoding."""
        return dict.values(self)  # type: ignore[return-value]

    def read_all(self) -> None:
        """Decode every document not decoded yet (the collector paused: these are long-lived)."""
        if not self.unread:
            return
        enabled = gc.isenabled()
        gc.disable()
        try:
            for key, value in list(dict.items(self)):
                if type(value) is Unread:
                    dict.__setitem__(self, key, value.read())
        finally:
            if enabled:
                gc.enable()
        self.unread = False

    def pop(self, key: K, *default: Any) -> Any:
        value: Any = dict.pop(self, key, *default)
        return value.read() if type(value) is Unread else value

    def popitem(self) -> tuple[K, FileResult]:
        self.read_all()
        return dict.popitem(self)

    def copy(self) -> dict[K, FileResult]:  # type: ignore[override]
        """A new table of the same documents: a plain dict once everything is decoded (the
        copy of one that may hold stubs says so without looking at every value again)."""
        if not self.unread:
            return dict(dict.items(self))
        out: Documents[K] = Documents()
        dict.update(out, dict.items(self))
        out.unread = True
        return out  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<Documents: {len(self)}, {sum(type(v) is Unread for v in dict.values(self))} not decoded>"


_record_decoder = msgspec.msgpack.Decoder(DeclarationRecord)
# Held while a lazy table decodes (queries may run in several threads): each value is decoded
# once, and a table never lets its records go while another thread still decodes one.
_decoding = threading.RLock()


class LazyTable(LazyDict[K, V]):
    """A table of a saved resolved graph whose values are decoded when first read (issue 23):
    a warm start to a first answer decodes the few it reads. Subclasses say which stored
    values are still encoded (``_encoded``), how to decode one (``_decode_value``) and which
    plain class the table becomes once every value is decoded (``_decoded_class``: it
    overrides nothing, so reads run at a dict's speed again).

    Every way of reading values decodes them: indexing and ``get`` one value; ``values``,
    ``items``, ``pop``, copies (``dict(d)``, ``{**d}``: the overridden ``__iter__`` makes
    CPython take the keys-and-``__getitem__`` path; ``copy``, ``|``, pickling) all of them."""

    __slots__ = ()
    _decoded_class: type

    def _encoded(self, value: Any) -> bool:
        raise NotImplementedError

    def _decode_value(self, value: Any) -> V:
        raise NotImplementedError

    def _decode(self, key: K) -> V:
        # One thread decodes a value (the others then find it): a value is one object.
        with _decoding:
            value: Any = dict.__getitem__(self, key)
            if not self._encoded(value):
                return value  # type: ignore[no-any-return]
            decoded = self._decode_value(value)
            dict.__setitem__(self, key, decoded)
            return decoded

    def __getitem__(self, key: K) -> V:
        value: Any = dict.__getitem__(self, key)
        return self._decode(key) if self._encoded(value) else value  # type: ignore[no-any-return]

    def get(self, key: K, default: Any = None) -> Any:
        value: Any = dict.get(self, key, default)
        return self._decode(key) if key in self and self._encoded(value) else value

    def __iter__(self) -> Iterator[K]:
        # Defined here so that copies into other dicts go through ``__getitem__``.
        return dict.__iter__(self)

    def _start_all(self) -> None:
        """Called before every value left is decoded at once (``read_all``)."""

    def _let_go(self) -> None:
        """Called once every value is decoded: drop what decoding needed."""

    def read_all(self) -> None:
        """Decode every value not decoded yet (the collector paused: they are long-lived)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            with _decoding:
                if not isinstance(self, LazyTable):
                    return  # Another thread decoded them all meanwhile.
                self._start_all()
                encoded = self._encoded
                for key, value in list(dict.items(self)):
                    if encoded(value):
                        self._decode(key)
                self._let_go()
                self.__class__ = self._decoded_class
        finally:
            if enabled:
                gc.enable()

    def pop(self, key: K, *default: Any) -> Any:
        if key in self:
            self[key]
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[K, V]:
        self.read_all()
        return dict.popitem(self)

    def copy(self) -> dict[K, V]:  # type: ignore[override]
        self.read_all()
        return dict(dict.items(self))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)}, {sum(map(self._encoded, dict.values(self)))} not decoded>"


class DeclarationTable(dict[int, DeclarationRecord]):
    """A state's declarations by id, every record decoded: what a ``Declarations`` becomes
    once it has decoded them all."""

    __slots__ = ("names", "records", "sharing")


class _Sharing:
    """What the records decoded together (``Declarations.read_all``) share instead of each
    holding equal objects of its own: the ids they name are the table's keys (decoding gives
    every occurrence an int of its own, 36 bytes), document keys one int per document, and
    equal strings (unqualified names, member names) one object. That is a third of what the
    records cost: with the definitions' rows (``share_ids``), 236 MiB of a prepared graph of
    10 copies of the Debian corpus (issue 23)."""

    __slots__ = ("ints", "strings")

    def __init__(self, ids: dict[int, Any]) -> None:
        self.ints: dict[int, int] = dict(zip(ids, ids, strict=True))
        self.strings: dict[str, str] = {}

    def share(self, record: DeclarationRecord) -> None:
        """Replace ``record``'s values by equal shared ones (its containers by equal new ones)."""
        get = self.ints.get
        record.id = get(record.id, record.id)
        if (owner := record.owner) is not None:
            record.owner = get(owner, owner)
        if (superclass := record.superclass) is not None:
            record.superclass = get(superclass, superclass)
        if (singleton := record.singleton) is not None:
            record.singleton = get(singleton, singleton)
        if (attached := record.attached) is not None:
            record.attached = get(attached, attached)
        if (target := record.target) is not None:
            record.target = get(target, target)
        strings = self.strings.setdefault
        unqualified = record.unqualified
        record.unqualified = strings(unqualified, unqualified)
        if record.definitions:
            documents = self.ints.setdefault
            record.definitions = [(documents(doc, doc), index) for doc, index in record.definitions]
        if record.members:
            record.members = {strings(name, name): get(member, member) for name, member in record.members.items()}


class Declarations(LazyTable[int, DeclarationRecord], DeclarationTable):
    """The declarations of a saved resolved graph by id, each decoded when first read (see
    ``LazyTable``): a warm start to a first answer decodes the few records it reads, not
    100,000. Stored values are the records' positions (ints) until decoded; ``names`` (in
    position order) are the strings the state's ``by_name`` keys are, and each decoded record
    gets its own, so that both share them."""

    __slots__ = ()
    _decoded_class = DeclarationTable

    def __init__(self, ids: list[int], names: Sequence[str], records: Sequence[msgspec.Raw | memoryview]) -> None:
        # ``records``: each record's encoding by position (``rdx.ruby.resolve.image.PackedRecords``).
        dict.__init__(self, zip(ids, range(len(ids)), strict=True))  # type: ignore[misc]  # positions until decoded
        self.names = names
        self.records = records
        self.sharing: _Sharing | None = None
        if not ids:
            self.read_all()

    def _encoded(self, value: Any) -> bool:
        return type(value) is int

    def _decode_value(self, value: Any) -> DeclarationRecord:
        record = _record_decoder.decode(self.records[value])
        record.name = self.names[value]
        if self.sharing is not None:
            self.sharing.share(record)
        return record

    def _start_all(self) -> None:
        # The records decoded one by one before (a first answer's few) keep their own values.
        self.sharing = _Sharing(self)

    def _let_go(self) -> None:
        # The file's bytes (the records are views of them), the names and the shared values.
        self.records = []
        self.names = []
        self.sharing = None


class RowTable(dict[int, list[int | None]]):
    """Per-document rows of declaration ids, every row decoded (what ``Rows`` becomes)."""

    __slots__ = ()


class Rows(LazyTable[int, list[int | None]], RowTable):
    """Per-document rows of a saved resolved graph (definitions' declarations, constant
    targets, receivers), each row stored encoded (``msgspec.Raw``) until read (see
    ``LazyTable``)."""

    __slots__ = ()
    _decoded_class = RowTable

    def __init__(self, rows: dict[int, msgspec.Raw]) -> None:
        # Copies: a Raw is a view, which would keep the whole file's bytes alive as long as one
        # row is not decoded (a row nobody reads is never decoded).
        dict.__init__(self, zip(rows, map(msgspec.Raw.copy, rows.values()), strict=True))  # type: ignore[misc]
        if not rows:
            self.read_all()

    def _encoded(self, value: Any) -> bool:
        return type(value) is msgspec.Raw

    def _decode_value(self, value: Any) -> list[int | None]:
        return _row_decoder.decode(value)


_row_decoder = msgspec.msgpack.Decoder(list[int | None])


def stored_entries(documents: dict[K, FileResult]) -> Iterable[FileResult | Unread]:
    """Every document of ``documents`` as stored, stubs included (see ``Documents.entries``):
    for what a stub carries (URI, path, size, content hash), without decoding anything."""
    return documents.entries() if isinstance(documents, Documents) else documents.values()


@dataclass
class ResolvedState:
    """Everything resolution computes; replaced as a whole by each ``resolve()``."""

    # Documents by document key, in resolution (load) order: core first, requires before
    # requirers. Keys are sparse ordered integers (``rdx.ruby.resolve.order``): a document keeps
    # its key when files are added or removed around it, and comparing keys compares positions.
    documents: dict[int, FileResult] = field(default_factory=dict)
    declarations: dict[int, DeclarationRecord] = field(default_factory=dict)
    by_name: dict[str, int] = field(default_factory=dict)
    # Per document key: declaration id of each definition (None when it declares nothing).
    definition_declarations: dict[int, list[int | None]] = field(default_factory=dict)
    # Per document key: resolved declaration id of each constant reference (None: unresolved).
    constant_targets: dict[int, list[int | None]] = field(default_factory=dict)
    # Per document key: declaration id of each method reference's receiver (None: unknown).
    method_receivers: dict[int, list[int | None]] = field(default_factory=dict)
    # Linearized ancestors of every namespace declaration, self included.
    ancestors: dict[int, tuple[int, ...]] = field(default_factory=dict)
    diagnostics: list[ResolutionDiagnostic] = field(default_factory=list)
    object_id: int = 0


class ResolvedImage(msgspec.Struct, array_like=True, gc=False):
    """A resolved state plus the resolver's bookkeeping, as plain data for the snapshot.

    ``fingerprint`` names the exact documents it was resolved from (see ``rdx.api.graph``); an
    image is only ever restored onto those documents. Dict-shaped parts are stored as parallel
    lists where that decodes faster."""

    fingerprint: str
    # Document key -> URI, in load order.
    uris: dict[int, str]
    # The declarations, in the state's order: ids, names (the name table is built from them
    # and the records get them) and each record encoded on its own, without its name, so that
    # a warm start decodes only the records it reads (``Declarations``).
    # The ids (packed little-endian uint64s) and the positions in id order (the same): an id
    # is found by bisection before (or without) the table of them being built
    # (``rdx.ruby.resolve.image.PackedDeclarations``).
    declaration_ids: memoryview
    declaration_id_order: memoryview
    # The names in UTF-8, separated by NUL bytes, where each ends (uint64s) and the positions
    # in name order (uint64s): a name is found by bisection before (or without) the name
    # table being built (``rdx.ruby.resolve.image.PackedNames``).
    declaration_names: memoryview
    declaration_name_ends: memoryview
    declaration_name_order: memoryview
    declaration_records: memoryview
    # Where each record's encoding ends in ``declaration_records`` (packed little-endian
    # uint64s): one bytes object rather than 100,000 ``Raw`` to decode (issue 23).
    declaration_ends: memoryview
    # Per document key, each row encoded on its own and packed as the records are: (document
    # keys as uint64s, the rows one after the other, their ends); read as ``Rows``, decoded
    # when read.
    definition_declarations: tuple[memoryview, memoryview, memoryview]
    constant_targets: tuple[memoryview, memoryview, memoryview]
    method_receivers: tuple[memoryview, memoryview, memoryview]
    # Each namespace's chain encoded on its own, packed the same way (decoded when read).
    # Packed and ordered as the declarations' ids are (``declaration_ids``).
    ancestor_ids: memoryview
    ancestor_id_order: memoryview
    ancestors: memoryview
    ancestor_ends: memoryview
    diagnostics: list[ResolutionDiagnostic]
    object_id: int
    object_mixins: bool
    # (namespace, document key, index into that document's external mixins)
    externals: list[tuple[int, int, int]]
    # Encoded ``dict[int, list[int]]`` and ``dict[int, bool]``: only the resolver reads them.
    concern_deps: msgspec.Raw
    concern_cache: msgspec.Raw
    member_created: list[int]
    removed_keys: dict[int, list[str]]
    # Needed only by member-edit replays and new ancestor chains, so kept encoded until then
    # (a ``MemberBookkeeping`` and a list of ancestor-chain times parallel to ``ancestors``):
    # decoding them would cost a warm start hundreds of thousands of objects.
    members: msgspec.Raw
    times: msgspec.Raw


class MemberBookkeeping(msgspec.Struct, array_like=True, gc=False):
    """What ``Resolver.refresh_members`` needs from the member phase (see the resolver)."""

    member_index: dict[int, list[tuple[int, int]]]
    doc_owners: dict[int, list[int | None]]
    lookup_keys: dict[int, list[str]]


class GraphStore:
    """Documents keyed by URI plus the latest resolved state."""

    def __init__(self) -> None:
        # Snapshot documents stay ``Unread`` until asked for (see ``Documents``).
        self.documents: Documents[str] = Documents()
        self.resolved: ResolvedState | None = None
        self.revision = 0
        self.resolved_revision = -1
        # Since the last resolve: URIs whose documents were replaced, added or removed (a URI
        # is in one set at most; removing an added document forgets it).
        self.replaced: set[str] = set()
        self.added: set[str] = set()
        self.removed: set[str] = set()
        # URIs of the documents holding db/schema.rb tables (``holds_tables``), kept as
        # documents come and go so that a resolve need not look at every document.
        self.schema_uris: set[str] = set()

    def put_document(self, result: FileResult | Unread) -> None:
        """Add or replace a document; an ``Unread`` stub is decoded when first read."""
        uri = result.uri
        if uri in self.documents:
            if uri not in self.added:
                self.replaced.add(uri)
        elif uri in self.removed:
            self.removed.discard(uri)
            self.replaced.add(uri)
        else:
            self.added.add(uri)
        if type(result) is Unread:
            self.documents.put_unread(uri, result)
        else:
            self.documents[uri] = result  # type: ignore[assignment]
        if holds_tables(result):
            self.schema_uris.add(uri)
        else:
            self.schema_uris.discard(uri)
        self.revision += 1

    def remove_document(self, uri: str) -> bool:
        if self.documents.pop(uri, None) is None:
            return False
        self.schema_uris.discard(uri)
        self.replaced.discard(uri)
        if uri in self.added:
            self.added.discard(uri)
        else:
            self.removed.add(uri)
        self.revision += 1
        return True

    def mark_resolved(self, state: ResolvedState) -> None:
        self.resolved = state
        self.resolved_revision = self.revision
        self.replaced.clear()
        self.added.clear()
        self.removed.clear()

    @property
    def is_stale(self) -> bool:
        return self.resolved is None or self.resolved_revision != self.revision
