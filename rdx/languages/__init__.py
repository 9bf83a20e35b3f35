"""Every language other than Ruby (Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, PHP,
C#, Markdown headings), through tree-sitter-language-pack: extraction, discovery, resolution
and the read-only questions about them.

``extract(spec_for("python"), source, module="pkg.mod")`` lists a file's definitions: kind
(one vocabulary for every language, ``SymbolKind``), name, qualified name in the language's
convention, name location, range, signature and doc comment, nested as written. One engine
(``engine.py``) runs a small per-language spec (``specs/``: a tree-sitter query and a few
hooks; ``registry.py`` maps language names to specs). Checked against Universal Ctags on real
code (``tests/test_polyglot.py``). ``discover.py`` turns one file into a ``FileResult`` in the
worker processes; ``resolve.py`` (with ``binding.py``, ``units.py``, ``importing.py``,
``import_rust.py``, ``layout.py``, ``modules.py``) resolves declarations, imports and
references into a ``ForeignState``; ``view.py`` and ``navigation.py`` answer questions about
them with the same handles as Ruby's.
"""

from rdx.languages.engine import Extraction, Spec, extract, extract_all
from rdx.languages.modules import module_name
from rdx.languages.registry import SPECS, spec_for
from rdx.languages.symbols import Import, Reference, RefKind, Symbol, SymbolKind

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
