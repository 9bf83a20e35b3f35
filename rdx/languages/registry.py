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


def spec_for(language: str) -> Spec | None:
    entry = SPECS.get(language)
    if entry is None:
        return None
    return getattr(importlib.import_module(f"rdx.languages.specs.{entry[0]}"), entry[1])  # type: ignore[no-any-return]
