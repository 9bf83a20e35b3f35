"""rdx_mcp: the Model Context Protocol server for rdx (not built yet; see issue 4).

It will be a thin adapter over the public ``rdx`` API only.
"""
