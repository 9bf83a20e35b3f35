"""The error every rdx MCP tool raises: a tool error whose text is ``{type, message, suggestion}``."""

from __future__ import annotations

import json

from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["tool_error"]


def tool_error(kind: str, message: str, suggestion: str) -> ToolError:
    return ToolError(json.dumps({"type": kind, "message": message, "suggestion": suggestion}))
