"""``rdx.model.languages.language_of`` against its definition: the language of a file's name
(``_BY_NAME``), else of its extension as ``os.path.splitext`` reads it, lowercased."""

from __future__ import annotations

import itertools
import os

from rdx.model.languages import LANGUAGES, language_of

# The names the table knows by their whole name.
_NAMES = {
    "Gemfile": "ruby", "Rakefile": "ruby", "Guardfile": "ruby", "Capfile": "ruby", "Thorfile": "ruby",
    "Makefile": "make", "GNUmakefile": "make", "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake",
}


def _by_definition(path: str) -> str:
    name = os.path.basename(path)
    if name in _NAMES:
        return _NAMES[name]
    extension = os.path.splitext(name)[1].lower()
    # The extensions the table knows: those language_of gives for a plain ``x<extension>``.
    found = language_of("x" + extension) if extension else "text"
    return found


def test_language_of_reads_extensions_as_splitext_does() -> None:
    names = [
        "a.js", ".js", "..js", "...js", "a..js", ".a.js", "..a.js", "a.", ".", "..", "...", "", "a", "a.JS", "x.TSX", "x.tsx",
        "Gemfile", "CMakeLists.txt", "dir/.js", "dir.x/y", "a.b.c.rb", "a.tar.gz", ". .js", "._js", "a/..", "x/.tsx", "é.py",
        "a.Py", ".x.", "A.RB", "/p/pkg/mod.py", "lib/x.d.ts", "x.min.js", "dir/Gemfile", "dir/gemfile", "x.mjs", "x.cc", "x.h",
    ]
    alphabet = ["a", ".", "/", "j", "s", "J", "p", "y"]
    for length in range(1, 6):
        names += ["".join(letters) for letters in itertools.product(alphabet, repeat=length)]
    for name in names:
        assert language_of(name) == _by_definition(name), name
        assert language_of(name) in LANGUAGES


def test_known_extensions() -> None:
    assert [language_of(x) for x in ("a.rb", "b.PY", "c.tsx", "d.jsx", "e.rs", "f", ".rb", "g.unknown")] == [
        "ruby", "python", "typescript", "javascript", "rust", "text", "text", "text"
    ]
