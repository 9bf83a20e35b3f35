"""rdx_web: ``rdx serve``, the web surface of rdx: a code browser for people (search, source
with resolved links, declaration pages with hierarchy pictures, the repository map) and the
HTTP JSON API under ``/api/``. It uses only names exported by ``rdx`` and, from the MCP
package, ``Workspace`` (one project's graph kept current, and its public ``lock``) and the
functions that build the MCP tools' answers (``rdx_mcp.server.ANSWERS``: the JSON API's
answers have the MCP server's shapes without calling its tools). See docs/browser.md.
"""

from rdx_web.guard import MAX_URL_BYTES, is_loopback
from rdx_web.server import TOKEN_ENV, build_app, serve

__all__ = ["MAX_URL_BYTES", "TOKEN_ENV", "build_app", "is_loopback", "serve"]
