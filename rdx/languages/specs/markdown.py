"""Markdown: headings as sections, nested by level (``Guide.Install.Linux``)."""

from __future__ import annotations

from rdx.languages.engine import Spec

QUERY = """
(section (atx_heading heading_content: (_) @name)) @section
(section (setext_heading heading_content: (_) @name)) @section
(setext_heading heading_content: (_) @name) @section
"""

SPEC = Spec(language="markdown", grammar="markdown", query=QUERY, comments=frozenset())
