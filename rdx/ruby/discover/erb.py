"""ERB templates (``*.erb``) read as Ruby: the code of their tags, at the byte offsets it has in
the template, so that every position discovery records is a position in the template itself.

It owns this translation and nothing else: the Ruby it makes is discovered like any file's, and
what the template renders is never evaluated. tree-sitter's embedded-template grammar finds the
tags (``<% %>``, ``<%= %>``, ``<%- -%>``, comments ``<%# %>`` and the literal ``<%%``); the text
between them becomes spaces (newlines kept, so lines and columns stay), each tag's delimiters
become spaces too, and a ``;`` takes the place of its closing ``%>``, so that ``<% if x %>
...<% end %>`` or ``<%= form_for x do |f| %>`` read as the statements they are.

A view's ``self`` is the view context Rails builds (every helper module, the controller's
instance variables), which a static reading cannot name: calls without a receiver at the top
of a template are therefore recorded with an unknown receiver, so that navigation offers the
methods of that name, marked uncertain, and a helper's references include its uses in views.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from msgspec.structs import replace

from rdx.model.kinds import ReceiverKind
from rdx.model.records import FileResult, MethodRef

__all__ = ["ERB_SUFFIX", "is_erb_file", "ruby_of_template", "view_receivers"]

ERB_SUFFIX = ".erb"

# Tags whose code runs (statements, and outputs whose value is written out).
_CODE_TAGS = frozenset({"directive", "output_directive"})


def is_erb_file(name: str) -> bool:
    """Whether a file named so is an ERB template (``show.html.erb``, ``mailer.text.erb``)."""
    return name.endswith(ERB_SUFFIX)


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_embedded_template

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_embedded_template.language()))


def ruby_of_template(data: bytes) -> bytes:
    """The Ruby of an ERB template: as long as ``data``, with its tags' code where it stands and
    everything else blank (see the module docstring)."""
    out = bytearray(b" " * len(data))
    # Newlines stay, so that lines and columns are the template's.
    start = data.find(b"\n")
    while start >= 0:
        out[start] = 0x0A
        start = data.find(b"\n", start + 1)
    tree = _parser().parse(data)
    # The template's tags are the root's children (the grammar does not nest them).
    for tag in tree.root_node.children:
        if tag.type not in _CODE_TAGS:
            continue
        close = None
        for part in tag.children:
            if part.type == "code":
                out[part.start_byte : part.end_byte] = data[part.start_byte : part.end_byte]
            elif part.type in ("%>", "-%>", "=%>", "_%>"):
                close = part.start_byte
        if close is not None:
            out[close] = ord(";")
    return bytes(out)


def view_receivers(result: FileResult) -> FileResult:
    """The template's calls without a receiver outside any ``def`` (and ``self.x`` there) with
    an unknown receiver: the view context, not Ruby's main object."""
    calls = result.method_refs
    changed = False
    out: list[MethodRef] = []
    for call in calls:
        if call.scope == -1 and call.receiver_kind in (ReceiverKind.IMPLICIT_SELF, ReceiverKind.SELF):
            call = replace(call, receiver_kind=ReceiverKind.OTHER, receiver_text=None)
            changed = True
        out.append(call)
    if changed:
        result.method_refs = out
    return result
