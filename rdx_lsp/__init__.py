"""rdx's language server (``rdx lsp``): LSP over stdio on pygls, a thin layer over the public
``rdx`` API. See ``server.py`` (lifecycle, documents, indexing), ``features.py`` (navigation)
and one module per editing request (``semantic_tokens.py``, ``signature_help.py``,
``inlay_hints.py``, ``selection_ranges.py``, ``document_links.py``, ``code_lens.py``,
``on_type_formatting.py``, ``call_hierarchy.py``, ``syntax_tree.py``, ``watching.py``,
``rubocop.py``); ``syntax.py`` reads buffers' syntax trees for them."""

from rdx_lsp.app import build_server, main
from rdx_lsp.server import RdxLanguageServer

__all__ = ["RdxLanguageServer", "build_server", "main"]
