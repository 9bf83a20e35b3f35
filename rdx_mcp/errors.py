"""The error every rdx MCP tool raises: a tool error whose text is ``{type, message, suggestion}``.

Messages quote bad input through ``rdx.excerpt``; as a last guard, a message or suggestion
longer than ``MAX_MESSAGE_CHARS`` is cut here, so no error reply (or the SDK's log line of it)
grows with the size of what a client sent.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["MAX_MESSAGE_CHARS", "tool_error"]

MAX_MESSAGE_CHARS = 1000


def _bounded(text: str) -> str:
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return f"{text[:MAX_MESSAGE_CHARS]}… ({len(text)} chars)"


def tool_error(kind: str, message: str, suggestion: str) -> ToolError:
    # The SDK is imported when an error is made, not with this module: a workspace (which
    # raises these) is used without the MCP server too, and the SDK costs a second to import.
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(json.dumps({"type": kind, "message": _bounded(message), "suggestion": _bounded(suggestion)}))
