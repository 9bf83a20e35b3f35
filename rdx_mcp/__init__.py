"""rdx_mcp: the Model Context Protocol server for rdx.

Thin tool adapters over the public ``rdx`` API only (see ``server.py``). Start it with
``rdx mcp [PATH]`` or ``python -m rdx_mcp [PATH]``.

``Workspace`` is imported here; ``build_server`` at its first use: the MCP SDK it needs costs a
process over a second of CPU to import, and a process that only keeps a project's graph (a
fleet shard before its first tool call, ``rdx serve``'s pages) has no use for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdx_mcp.workspace import Workspace

if TYPE_CHECKING:
    from rdx_mcp.server import build_server

__all__ = ["Workspace", "build_server"]


def __getattr__(name: str) -> Any:
    if name == "build_server":
        from rdx_mcp.server import build_server

        return build_server
    raise AttributeError(f"module 'rdx_mcp' has no attribute {name!r}")
