"""Structural symbols of languages other than Ruby, through tree-sitter-language-pack.

``extract(spec_for("python"), source, module="pkg.mod")`` lists a file's definitions: kind
(one vocabulary for every language, ``SymbolKind``), name, qualified name in the language's
convention, name location, range, signature and doc comment, nested as written. One engine
(``engine.py``) runs a small per-language spec (``languages/``: a tree-sitter query and a
few hooks). Checked against Universal Ctags on real code (``tests/test_polyglot.py``).
Not yet part of the graph: declarations, references, imports and the query surfaces for
these languages come next (issue 11).
"""

from rdx.polyglot.engine import Extraction, Spec, extract, extract_all
from rdx.polyglot.modules import module_name
from rdx.polyglot.registry import SPECS, spec_for
from rdx.polyglot.symbols import Import, Reference, RefKind, Symbol, SymbolKind

__all__ = [
    "SPECS",
    "Extraction",
    "Import",
    "RefKind",
    "Reference",
    "Spec",
    "Symbol",
    "SymbolKind",
    "extract",
    "extract_all",
    "module_name",
    "spec_for",
]
