"""The dependency table of docs/architecture.md, enforced on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import rdx

ROOT = Path(__file__).resolve().parent.parent

# Package area -> the rdx areas it may import (besides itself).
ALLOWED = {
    "ids": set(),
    "errors": set(),
    "text": set(),
    "model": {"ids", "errors", "text"},
    "discovery": {"model", "ids", "text", "errors", "polyglot"},
    "resolution": {"model", "ids", "errors"},
    "query": {"model", "text", "resolution", "errors", "ids"},
    "data": set(),
    "cache": {"model"},
    "fulltext": {"discovery", "model", "errors"},
    "polyglot": {"model", "ids"},
}


def _area(path: Path) -> str:
    rel = path.relative_to(ROOT / "rdx")
    return rel.parts[0].removesuffix(".py")


def _rdx_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rdx."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rdx."):
                    found.add(alias.name.split(".")[1])
    return found


def test_dependency_direction():
    violations = []
    for path in sorted((ROOT / "rdx").rglob("*.py")):
        area = _area(path)
        if area not in ALLOWED:
            continue  # graph.py, cli.py and __init__.py may use everything.
        for dep in _rdx_imports(path) - {area}:
            if dep not in ALLOWED[area]:
                violations.append(f"{path.relative_to(ROOT)} imports rdx.{dep}")
    assert violations == []


def test_outer_packages_use_only_the_public_api():
    public = set(rdx.__all__)
    for pkg in ("rdx_mcp", "rdx_lsp", "bindings"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and (node.module == "rdx" or node.module.startswith("rdx.")):
                    assert node.module == "rdx", f"{path} imports {node.module}; use names exported by rdx"
                    assert {a.name for a in node.names} <= public
                if isinstance(node, ast.Import):
                    assert not any(a.name.startswith("rdx.") for a in node.names), f"{path} imports rdx internals"


def test_every_module_has_a_docstring():
    missing = [str(p.relative_to(ROOT)) for p in (ROOT / "rdx").rglob("*.py") if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None]
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
    from rdx.resolution.edits import signature

    base = DefinitionRecord(id=1, kind="Class", name="Foo", start=0, end=10, name_start=6, name_end=9)
    other = {
        "id": 2, "kind": "Module", "name": "Bar", "start": 1, "end": 11, "name_start": 7, "name_end": 8, "parent": 0,
        "path": ConstPath(("Foo",), False, 6, 9), "superclass": ConstPath(("Base",), False, 12, 16), "superclass_self": True,
        "mixins": (Mixin("include", None, 0),), "deferred_mixins": (Mixin("include", None, 0),), "comments": ("# x",),
        "receiver": ConstPath(("R",), False, 0, 1), "self_receiver": True, "visibility": "private", "module_function": True,
        "params": "(x)", "target": ConstPath(("T",), False, 0, 1), "old_name": "old", "lexical": False, "generated": True,
        "instance_receiver": True,
    }
    assert set(other) == set(DEFINITION_FIELD_ROLES)
    before = signature(FileResult(uri="file:///x.rb", path=None, definitions=[base]))
    for field, value in other.items():
        changed = msgspec.structs.replace(base, **{field: value})
        after = signature(FileResult(uri="file:///x.rb", path=None, definitions=[changed]))
        assert (after != before) == (DEFINITION_FIELD_ROLES[field] != FieldRole.POSITION), field


def test_resolution_modules_stay_small():
    sizes = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "rdx" / "resolution").glob("*.py")}
    assert "resolver.py" not in sizes
    assert max(sizes.values()) <= 450, sizes
