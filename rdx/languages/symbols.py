"""The records extractors yield, re-exported from ``rdx.model.symbols`` where they live (plain
data that the snapshot and the graph keep too)."""

from rdx.model.symbols import Import, Reference, RefKind, Symbol, SymbolKind

__all__ = ["Import", "RefKind", "Reference", "Symbol", "SymbolKind"]
