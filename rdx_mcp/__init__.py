"""rdx_mcp: the Model Context Protocol server for rdx.

Thin tool adapters over the public ``rdx`` API only (see ``server.py``). Start it with
``rdx mcp [PATH]`` or ``python -m rdx_mcp [PATH]``.
"""

from rdx_mcp.server import Workspace, build_server

__all__ = ["Workspace", "build_server"]
