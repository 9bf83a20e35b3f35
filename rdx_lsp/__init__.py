"""rdx's language server (``rdx lsp``): LSP over stdio on pygls, a thin layer over the public
``rdx`` API. See ``server.py`` (lifecycle, documents, indexing) and ``features.py``."""

from rdx_lsp.app import build_server, main
from rdx_lsp.server import RdxLanguageServer

__all__ = ["RdxLanguageServer", "build_server", "main"]
