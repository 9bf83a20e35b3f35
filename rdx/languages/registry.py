"""Which spec reads which language (by the names of ``rdx.model.languages``)."""

from __future__ import annotations

import importlib

from rdx.languages.engine import Spec

__all__ = ["SPECS", "spec_for"]

# rdx language name -> (module under rdx.languages.specs, attribute).
SPECS = {
    "python": ("python", "SPEC"),
    "go": ("go", "SPEC"),
    "javascript": ("javascript", "JAVASCRIPT"),
    "typescript": ("javascript", "TYPESCRIPT"),
    "tsx": ("javascript", "TSX"),
    "rust": ("rust", "SPEC"),
    "java": ("java", "SPEC"),
    "c": ("c", "C"),
    "cpp": ("c", "CPP"),
    "php": ("php", "SPEC"),
    "csharp": ("csharp", "SPEC"),
    "markdown": ("markdown", "SPEC"),
}


_loaded: dict[str, Spec] = {}


def spec_for(language: str) -> Spec | None:
    # Discovery asks once per file: the module lookup is done once per language.
    found = _loaded.get(language)
    if found is not None:
        return found
    entry = SPECS.get(language)
    if entry is None:
        return None
    spec: Spec = getattr(importlib.import_module(f"rdx.languages.specs.{entry[0]}"), entry[1])
    _loaded[language] = spec
    return spec
