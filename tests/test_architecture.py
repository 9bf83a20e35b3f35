"""The dependency table of docs/architecture.md, enforced on the source."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import rdx

ROOT = Path(__file__).resolve().parent.parent

# Package area -> the rdx areas it may import (besides itself), bottom to top. An area is a
# package of rdx (``rdx/model/``...), two levels deep under ``rdx/ruby/`` (``ruby.discover``);
# ``ruby.syntax`` is the module ``rdx/ruby/syntax.py``.
ALLOWED: dict[str, set[str]] = {
    "model": set(),  # Plain data, ids, errors, text positions: the bottom.
    "data": set(),
    "cache": {"model"},
    "ruby": set(),  # rdx/ruby/__init__.py, a docstring.
    "ruby.syntax": set(),
    "ruby.evaluate": {"model", "ruby.syntax"},
    "rails": {"model", "ruby.syntax", "ruby.evaluate"},
    "native": set(),  # C helpers (rdx/native/walk.c) and their loader: imports nothing of rdx.
    "ruby.discover": {"model", "ruby.syntax", "ruby.evaluate", "rails", "native"},
    "ruby.resolve": {"model"},
    "ruby.query": {"model", "ruby.resolve"},
    "languages": {"model", "ruby.query", "native"},
    "workspace": {"model", "cache", "ruby.discover", "languages"},
    "search": {"model", "cache", "workspace"},
    "map": {"model", "ruby.query"},
}
ALLOWED["api"] = set(ALLOWED)  # The façade may use every subsystem...
ALLOWED["cli"] = set(ALLOWED)  # ...and the command line the façade too.

# Imports made only for type annotations (under ``if TYPE_CHECKING:``) that go against the
# direction above, each with its reason. Nothing imported here runs.
TYPE_ONLY = {
    # The evaluator's functions take the walker that calls them (``Walker``, ``Scope``).
    ("ruby.evaluate", "ruby.discover"),
    # ``View.foreign`` is a ``ForeignView``; the graph hands the view its factory at run time.
    ("ruby.query", "languages"),
}


@cache
def _tree(path: Path) -> ast.Module:
    """The parsed source of ``path``: each module's tests read the same files (never changed)."""
    return ast.parse(path.read_text())


def _area(path: Path) -> str:
    parts = path.relative_to(ROOT / "rdx").with_suffix("").parts
    if len(parts) == 1:
        return parts[0]  # rdx/__init__.py
    if parts[0] == "ruby" and parts[1] != "__init__":
        return f"ruby.{parts[1]}"
    return parts[0]


def _module_area(module: str) -> str:
    parts = module.split(".")[1:]
    if parts[0] == "ruby" and len(parts) > 1:
        return f"ruby.{parts[1]}"
    return parts[0]


def _statements(body: list[ast.stmt]):
    """Every statement of ``body`` and of the statement lists nested in it (imports are
    statements, so this finds them all without visiting expressions)."""
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for part in getattr(stmt, "handlers", ()) or getattr(stmt, "cases", ()):
            yield from _statements(part.body)


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    inside: set[int] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside.update(id(n) for n in _statements(node.body))
    return inside


def _rdx_imports(path: Path) -> set[tuple[str, bool]]:
    """(area, only for type checking) of every rdx module the file imports."""
    tree = _tree(path)
    typing_only = _type_checking_nodes(tree)
    found = set()
    for node in _statements(tree.body):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rdx."):
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("rdx.")]
        found.update((_module_area(n), id(node) in typing_only) for n in names)
    return found


def test_dependency_direction():
    violations = []
    for path in sorted((ROOT / "rdx").rglob("*.py")):
        area = _area(path)
        if area == "__init__":
            continue  # rdx/__init__.py re-exports the public API.
        if area not in ALLOWED:
            violations.append(f"{path.relative_to(ROOT)} is in no area of ALLOWED")
            continue
        for dep, typing_only in sorted(_rdx_imports(path)):
            if dep == area or dep in ALLOWED[area] or (typing_only and (area, dep) in TYPE_ONLY):
                continue
            violations.append(f"{path.relative_to(ROOT)} imports rdx.{dep}" + (" (for type checking)" if typing_only else ""))
    assert violations == []


def test_the_table_has_no_cycle():
    """Every area can be placed above the areas it imports (type-only imports aside)."""
    placed: list[str] = []
    left = dict(ALLOWED)
    while left:
        ready = [a for a, deps in left.items() if deps - {a} <= set(placed)]
        assert ready, f"cycle among {sorted(left)}"
        for a in ready:
            placed.append(a)
            del left[a]


def test_outer_packages_use_only_the_public_api():
    public = set(rdx.__all__)
    for pkg in ("rdx_mcp", "rdx_lsp", "rdx_web", "rdx_fleet", "bindings"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            tree = _tree(path)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and (node.module == "rdx" or node.module.startswith("rdx.")):
                    assert node.module == "rdx", f"{path} imports {node.module}; use names exported by rdx"
                    assert {a.name for a in node.names} <= public
                if isinstance(node, ast.Import):
                    assert not any(a.name.startswith("rdx.") for a in node.names), f"{path} imports rdx internals"


def test_every_module_has_a_docstring():
    missing = [str(p.relative_to(ROOT)) for p in (ROOT / "rdx").rglob("*.py") if p.stat().st_size and ast.get_docstring(_tree(p)) is None]
    assert missing == []


def test_error_codes_are_zero_or_negative_and_unique():
    codes = [c.value for c in rdx.ErrorCode]
    assert codes[0] == 0 and all(c < 0 for c in codes[1:])
    assert len(set(codes)) == len(codes)
    for cls in (rdx.InvalidArgumentError, rdx.NotFoundError, rdx.InvalidHandleError, rdx.IOFailureError,
                rdx.EncodingFailureError, rdx.NotResolvedError, rdx.InternalError):
        assert issubclass(cls, rdx.RdxError) and cls.code in rdx.ErrorCode


def test_every_definition_field_has_a_role_for_incremental_resolution():
    from rdx.model.records import DEFINITION_FIELD_ROLES, DefinitionRecord

    assert set(DefinitionRecord.__struct_fields__) == set(DEFINITION_FIELD_ROLES), (
        "classify every DefinitionRecord field in DEFINITION_FIELD_ROLES (rdx/model/records.py)"
    )


def test_an_edit_to_any_resolved_field_is_seen_by_the_edit_diff():
    """Changing any IDENTITY or ANCESTRY field of a definition changes the document's
    signature, and changing only POSITION fields does not (so no field is invisible)."""
    import msgspec

    from rdx.model.records import DEFINITION_FIELD_ROLES, ConstPath, DefinitionRecord, FieldRole, FileResult, Mixin
    from rdx.ruby.resolve.edits import signature

    base = DefinitionRecord(id=1, kind="Class", name="Foo", start=0, end=10, name_start=6, name_end=9)
    other = {
        "id": 2, "kind": "Module", "name": "Bar", "start": 1, "end": 11, "name_start": 7, "name_end": 8, "parent": 0,
        "path": ConstPath(("Foo",), False, 6, 9), "superclass": ConstPath(("Base",), False, 12, 16), "superclass_self": True,
        "mixins": (Mixin("include", None, 0),), "deferred_mixins": (Mixin("include", None, 0),), "comments": ("# x",),
        "receiver": ConstPath(("R",), False, 0, 1), "self_receiver": True, "visibility": "private", "module_function": True,
        "params": "(x)", "target": ConstPath(("T",), False, 0, 1), "old_name": "old", "lexical": False, "generated": True,
        "instance_receiver": True, "superclass_new": True,
    }
    assert set(other) == set(DEFINITION_FIELD_ROLES)
    before = signature(FileResult(uri="file:///x.rb", path=None, definitions=[base]))
    for field, value in other.items():
        changed = msgspec.structs.replace(base, **{field: value})
        after = signature(FileResult(uri="file:///x.rb", path=None, definitions=[changed]))
        assert (after != before) == (DEFINITION_FIELD_ROLES[field] != FieldRole.POSITION), field


# Calls that change the container they are made on.
MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "clear", "update", "setdefault", "add", "discard", "remove", "sort",
     "difference_update", "intersection_update", "symmetric_difference_update"}
)


def _resolution_fields() -> tuple[dict[str, str], set[str], tuple[str, ...]]:
    """The parts of the resolver's state, found in the modules themselves: every class of
    ``rdx/ruby/resolve/`` with ``HELD_AS`` is a part, owned by the module that defines it; its
    fields are its ``__slots__`` (and ``HELD_AS``, the attribute the resolver holds it as).
    A module's ``OWNED_STATE_FIELDS`` are fields of the resolved state only it writes.
    Returns field -> owner module, the fields of plain records (msgspec structs of the model
    and slotted classes of the resolver's modules that are not parts), and ``StateView.VIEW``."""
    import dataclasses
    import importlib
    import inspect
    import pkgutil

    import msgspec

    import rdx.model
    import rdx.ruby.resolve

    owners: dict[str, str] = {}
    records: set[str] = set()
    modules = [importlib.import_module(f"rdx.ruby.resolve.{m.name}") for m in pkgutil.iter_modules(rdx.ruby.resolve.__path__)]
    modules += [importlib.import_module(f"rdx.model.{m.name}") for m in pkgutil.iter_modules(rdx.model.__path__)]
    for module in modules:
        for name in getattr(module, "OWNED_STATE_FIELDS", ()):
            owners[name] = module.__name__.rsplit(".", 1)[1]  # Fields of the state only it writes.
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            if "HELD_AS" in vars(cls):
                owner = module.__name__.rsplit(".", 1)[1]
                assert "__slots__" in vars(cls), f"part {cls.__name__} declares its fields in __slots__"
                for name in (*cls.__slots__, cls.HELD_AS):
                    assert owners.get(name, owner) == owner, f"{name} is a field of two parts"
                    owners[name] = owner
            elif issubclass(cls, msgspec.Struct):
                records.update(cls.__struct_fields__)
            elif dataclasses.is_dataclass(cls) and module.__name__.startswith("rdx.model."):
                records.update(f.name for f in dataclasses.fields(cls))
            elif "__slots__" in vars(cls) and module.__name__.startswith("rdx.ruby.resolve."):
                records.update(cls.__slots__)
    from rdx.ruby.resolve.lookup import StateView

    role_classes = {cls for module in modules for cls in vars(module).values() if inspect.isclass(cls) and issubclass(cls, StateView)}
    # What a role is wired with: the parameters of its constructor (the binding, parts and the
    # passes it calls), bound to ``self`` in ``__init__`` only.
    wiring = {name for cls in role_classes if "__init__" in vars(cls) for name in inspect.signature(cls.__init__).parameters if name != "self"}
    return owners, records, StateView.VIEW, {cls.__name__ for cls in role_classes}, wiring


def _writes(tree: ast.AST) -> list[tuple[ast.expr, str, bool, int, str | None, str | None]]:
    """Every write to an attribute in ``tree``: (the object written, the attribute, whether
    the attribute itself is rebound rather than its contents changed, line, the class whose
    body holds it, the function whose body holds it)."""
    out: list[tuple[ast.expr, str, bool, int, str | None, str | None]] = []
    enclosing: dict[int, str] = {}
    function: dict[int, str] = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for sub in ast.walk(cls):
                enclosing[id(sub)] = cls.name
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef):
            for sub in ast.walk(fn):
                function.setdefault(id(sub), fn.name)  # Outermost first: methods, not inner functions.

    def target(t: ast.expr) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)
        elif isinstance(t, ast.Starred):
            target(t.value)
        elif isinstance(t, ast.Attribute):
            out.append((t.value, t.attr, True, t.lineno, enclosing.get(id(t)), function.get(id(t))))
        elif isinstance(t, ast.Subscript):
            base = t.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Attribute):
                out.append((base.value, base.attr, False, t.lineno, enclosing.get(id(t)), function.get(id(t))))

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            target(node.target)
        elif isinstance(node, ast.Delete):
            for t in node.targets:
                target(t)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
            held = node.func.value
            if isinstance(held, ast.Attribute):
                out.append((held.value, held.attr, False, node.lineno, enclosing.get(id(node)), function.get(id(node))))
    return out


def test_resolution_state_has_one_writer():
    """Architecture invariant: every piece of the resolver's state is a field of one part,
    and only the part's module writes it: no assignment, augmented assignment, ``del``,
    item assignment or deletion, or mutating call (``append``, ``pop``, ``clear``...) on a
    part's field happens in another module of ``rdx/ruby/resolve/``. Roles (the passes, lookups
    and the resolver: ``StateView``s) hold parts and passes, bound in ``__init__`` only, from
    their constructor's parameters (the resolver, ``driver.Resolver``, builds and holds them
    all). The tables every role reads (``StateView.VIEW``) are bound by ``lookup`` and written
    into only by ``builder`` (writes through a local alias escape this check: the updates build
    the next state's tables as local copies before ``Binding.read`` binds them). Any other
    attribute written must be a field of a plain record (a msgspec struct of the model, or a
    slotted class that is not a part), so a new field of the resolver is classified or fails."""
    owners, records, view, roles, wiring = _resolution_fields()
    problems = []
    for path in sorted((ROOT / "rdx" / "ruby" / "resolve").glob("*.py")):
        module = path.stem
        for obj, attr, rebinds, line, cls, function in _writes(_tree(path)):
            where = f"{path.name}:{line} {ast.unparse(obj)}.{attr}"
            on_self = isinstance(obj, ast.Name) and obj.id == "self" and cls in roles
            if on_self and rebinds and function == "__init__" and (attr in wiring or module == "driver"):
                continue  # Wiring: a role holds the binding, parts and passes it was built with; the resolver, all it builds.
            if attr in owners:
                if owners[attr] != module:
                    problems.append(f"{where}: written outside {owners[attr]}.py, its owner")
            elif attr in view and on_self:
                if rebinds and module != "lookup":
                    problems.append(f"{where}: a lookup's view is bound only by lookup.py (``Lookup.read``)")
                if not rebinds and module != "builder":
                    problems.append(f"{where}: the declaration tables are written only by builder.py")
            elif attr not in records:
                problems.append(f"{where}: {attr} is a field of no part and of no record")
    assert not problems, "\n".join(problems)


