"""Which language a file is written in, by its name: one table shared by search filters.

The names are the usual lowercase ones (``ruby``, ``python``, ``typescript``...). A file whose
name says nothing (``LICENSE``, ``foo.dat``) has the language ``text``.
"""

from __future__ import annotations

import os

__all__ = ["FOREIGN_LANGUAGES", "LANGUAGES", "language_of"]

_BY_EXTENSION: dict[str, str] = {}
_BY_NAME = {
    "Gemfile": "ruby", "Rakefile": "ruby", "Guardfile": "ruby", "Capfile": "ruby", "Thorfile": "ruby",
    "Makefile": "make", "GNUmakefile": "make", "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake",
}
for _language, _extensions in {
    "ruby": ".rb .rake .gemspec .ru .rbi .thor .jbuilder .builder",
    "rbs": ".rbs",
    "erb": ".erb .rhtml",
    "python": ".py .pyi",
    "javascript": ".js .jsx .mjs .cjs",
    "typescript": ".ts .tsx .mts .cts",
    "go": ".go",
    "rust": ".rs",
    "java": ".java",
    "kotlin": ".kt .kts",
    "c": ".c .h",
    "cpp": ".cc .cpp .cxx .hh .hpp .hxx",
    "csharp": ".cs",
    "php": ".php",
    "swift": ".swift",
    "shell": ".sh .bash .zsh",
    "markdown": ".md .markdown",
    "rdoc": ".rdoc",
    "yaml": ".yml .yaml",
    "json": ".json",
    "toml": ".toml",
    "xml": ".xml",
    "html": ".html .htm",
    "css": ".css .scss .sass",
    "sql": ".sql",
    "lua": ".lua",
}.items():
    for _ext in _extensions.split():
        _BY_EXTENSION[_ext] = _language

# The languages besides Ruby whose files become graph documents: ``rdx.languages`` has an
# extractor for each (a test checks the two agree).
FOREIGN_LANGUAGES = frozenset({"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp", "php", "csharp", "markdown"})

LANGUAGES = frozenset(_BY_EXTENSION.values()) | frozenset(_BY_NAME.values()) | {"text"}


def language_of(path: str) -> str:
    name = os.path.basename(path)
    found = _BY_NAME.get(name)
    if found is not None:
        return found
    # ``os.path.splitext(name)[1]`` without its call (discovery asks once per file): the name
    # from its last dot, unless only dots come before that one (``.js``, ``..js``: none).
    dot = name.rfind(".")
    if dot <= 0 or name[dot - 1] == "." and not name[:dot].strip("."):
        return "text"
    return _BY_EXTENSION.get(name[dot:].lower(), "text")
