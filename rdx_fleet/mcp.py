"""The fleet's MCP server: the tools of one project's server (``rdx_mcp``) that make sense
across repositories, with the same names and parameters plus ``repository`` (a list that
filters; required where the question is about one repository's file or map). Each tool is a
thin call into ``FleetAPI`` (``rdx_fleet.front``), so MCP and HTTP answer the same; errors are
the ``{type, message, suggestion}`` object.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

import rdx
from rdx_fleet.fleet import Unavailable
from rdx_fleet.front import FleetAPI, Problem

__all__ = ["build_fleet_server"]

Repos = Annotated[list[str] | None, Field(description="repository names to ask (default: every repository)")]
One = Annotated[list[str], Field(min_length=1, max_length=1, description="the one repository the file or map belongs to")]


def _args(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


def build_fleet_server(api: FleetAPI) -> MCPServer:
    """The MCP server over ``api``."""
    server = MCPServer("rdx-fleet", instructions="Semantic code graph of many repositories; every answer names its repository.", version=rdx.__version__)

    async def guarded(call: Any) -> dict[str, Any]:
        try:
            return dict(await call)
        except Problem as exc:
            raise ToolError(json.dumps(exc.body)) from None
        except rdx.NotFoundError as exc:
            raise ToolError(json.dumps({"type": "not_found", "message": str(exc), "suggestion": "index_status lists the repositories"})) from None
        except Unavailable as exc:
            raise ToolError(json.dumps({"type": "unavailable", "message": str(exc), "suggestion": "retry: Ray restarts it from its snapshot"})) from None

    @server.tool(description="Grep every file of every repository; lines grouped by repository and file, in order.")
    async def search_code(
        pattern: Annotated[str, Field(min_length=1)], regex: bool = False, ignore_case: bool = False, glob: list[str] | None = None,
        language: str | None = None, context: Annotated[int, Field(ge=0, le=10)] = 0, limit: Annotated[int, Field(ge=1)] = 50,
        offset: Annotated[int, Field(ge=0)] = 0, max_tokens: int | None = None, repository: Repos = None,
    ) -> dict[str, Any]:
        arguments = _args(pattern=pattern, regex=regex, ignore_case=ignore_case, glob=glob, language=language, context=context,
                          limit=limit, offset=offset, max_tokens=max_tokens)
        return await guarded(api.grep(arguments, repository or []))

    @server.tool(description="Find declarations in every repository, best first: by a score comparable across repositories (fleet-wide statistics), or ranks interleaved when the answer is not in score order.")
    async def search_declarations(
        query: Annotated[str, Field(min_length=1)], kind: str | None = None, match_mode: Annotated[str, Field(pattern="^(ranked|fuzzy|exact|prefix)$")] = "ranked",
        path: str | None = None, dependencies: bool = True, limit: Annotated[int, Field(ge=1)] = 20, offset: Annotated[int, Field(ge=0)] = 0,
        max_tokens: int | None = None, repository: Repos = None,
    ) -> dict[str, Any]:
        arguments = _args(query=query, kind=kind, match_mode=match_mode, path=path, dependencies=dependencies, limit=limit, offset=offset, max_tokens=max_tokens)
        return await guarded(api.search(arguments, repository or []))

    @server.tool(description="A declaration in every repository that declares it.")
    async def get_declaration(name: Annotated[str, Field(min_length=1)], max_tokens: int | None = None, repository: Repos = None) -> dict[str, Any]:
        return await guarded(api.declaration(name, _args(max_tokens=max_tokens), repository or []))

    @server.tool(description="Where a constant is referenced, in every repository (uses of a gem another repository builds included).")
    async def find_constant_references(name: Annotated[str, Field(min_length=1)], limit: Annotated[int, Field(ge=1)] = 50, offset: Annotated[int, Field(ge=0)] = 0, repository: Repos = None) -> dict[str, Any]:
        return await guarded(api.references(name, {"kind": "constant", "limit": limit, "offset": offset}, repository or []))

    @server.tool(description="Call sites of a method like Foo#bar(), in every repository.")
    async def find_method_references(name: Annotated[str, Field(min_length=1)], limit: Annotated[int, Field(ge=1)] = 50, offset: Annotated[int, Field(ge=0)] = 0, repository: Repos = None) -> dict[str, Any]:
        return await guarded(api.references(name, {"kind": "method", "limit": limit, "offset": offset}, repository or []))

    @server.tool(description="Go to definition from a position in one repository's file (line 1-based, column 0-based); targets name their repository.")
    async def definition_at(repository: One, file_path: str, line: Annotated[int, Field(ge=1)], column: Annotated[int, Field(ge=0)]) -> dict[str, Any]:
        return await guarded(api.one("definition_at", {"path": file_path, "line": line, "column": column}, repository))

    @server.tool(description="Name, kind, signature, owner and comments at a position in one repository's file.")
    async def hover_at(repository: One, file_path: str, line: Annotated[int, Field(ge=1)], column: Annotated[int, Field(ge=0)]) -> dict[str, Any]:
        return await guarded(api.one("hover_at", {"path": file_path, "line": line, "column": column}, repository))

    @server.tool(description="The map of one repository's most important declarations, within max_tokens.")
    async def repo_map(repository: One, max_tokens: Annotated[int, Field(ge=64, le=65536)] = 2048, focus: list[str] | None = None) -> dict[str, Any]:
        return await guarded(api.one("repo_map", _args(max_tokens=max_tokens, focus=focus), repository))

    @server.tool(description="Counts per repository and in total.")
    async def codebase_stats(repository: Repos = None) -> dict[str, Any]:
        return await guarded(api.stats(repository or []))

    @server.tool(description="Each repository's state, commit and revision, and the links between repositories.")
    async def index_status(repository: Repos = None) -> dict[str, Any]:
        return await guarded(api.status(repository or []))

    return server
