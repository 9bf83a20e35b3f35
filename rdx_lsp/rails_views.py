"""Rails views in the editor: an instance variable in an ERB template goes to, and hovers with,
its assignments in the controller action that renders the template, found by Rails' naming
convention. ``app/views/posts/show.html.erb`` is ``PostsController#show``'s view (a mailer's,
``app/views/user_mailer/welcome.text.erb``, is ``UserMailer#welcome``'s; ``admin/posts/`` is
``Admin::PostsController``), so ``@post`` there is what ``show`` assigns, and what the
``before_action`` callbacks that run before ``show`` assign (read from the controller's syntax
tree: symbols, with ``only:``/``except:``). When neither assigns it (a partial, a layout, an
assignment in a method the action calls), every assignment of it in the controller and its
ancestors is the answer. Completion after ``@`` in a view offers the controller's instance
variables, those the action and its callbacks assign first. Rails' framework knowledge lives
here, as ruby-lsp keeps its Rails support in an add-on, and reaches the requests through the
server's ``definition_providers`` and ``hover_providers`` (asked when rdx itself has no
answer) and ``completion_providers``.

It reads the graph (names ``rdx`` exports) and the syntax tree of the controller's file; it
never renders a view nor follows ``render`` calls (a view rendered by another action by name
is not found)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types as lsp

import rdx
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["Assignment", "controller_of_view", "instance_variable_at", "register", "view_assignments", "view_variables"]

# A file's text by URI and path, or None.
Reader = Callable[[str, str], "bytes | None"]

# The instance variable being typed before the cursor (``@po``, or ``@`` alone).
_TYPED_VARIABLE = re.compile(rb"@[A-Za-z0-9_]*\Z")

_FILTERS = frozenset({b"before_action", b"prepend_before_action", b"append_before_action"})


def _camelize(segment: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in segment.split("_"))


def controller_of_view(path: str) -> tuple[list[str], str | None] | None:
    """The classes that may render the template at ``path`` (the controller, then a mailer of
    the same name) and the action it is the view of (None for a partial or a layout); None
    for a file outside an ``app/views/`` directory."""
    parts = path.replace(os.sep, "/").split("/")
    found = [i for i in range(1, len(parts)) if parts[i] == "views" and parts[i - 1] == "app"]
    if not found:
        return None
    rest = parts[found[-1] + 1 :]
    if len(rest) < 2:
        return None
    *folders, name = rest
    action: str | None = name.split(".", 1)[0]
    if folders[0] == "layouts":
        # A layout serves every action of the controller it is named after.
        folders = [action or ""]
        action = None
    elif action is None or action.startswith("_"):
        action = None  # A partial: rendered by many actions.
    base = "::".join(_camelize(folder) for folder in folders)
    return [base + "Controller", base], action


def instance_variable_at(uri: str, source: bytes, row: int, column: int) -> str | None:
    """The instance variable (``@post``) at a 0-based row and byte column of a Ruby buffer or
    template, if there is one there."""
    root = parse_ruby(uri, source).root_node
    node = root.named_descendant_for_point_range((row, column), (row, column))
    if node is None or node.type != "instance_variable":
        if column > 0:  # The cursor just after the name, as editors put it after a word.
            node = root.named_descendant_for_point_range((row, column - 1), (row, column - 1))
        if node is None or node.type != "instance_variable":
            return None
    return node.text.decode("utf-8", "replace") if node.text is not None else None


@dataclass(frozen=True)
class Assignment:
    """One assignment of a view's instance variable: where (the variable's name in it), and in
    which method of which controller (``PostsController#show``), and why it counts:
    ``action``, ``callback`` (a ``before_action``) or ``controller`` (anywhere else in the
    controller or its ancestors)."""

    location: rdx.Location
    method: str | None
    reason: str


def _contains(outer: rdx.Location, inner: rdx.Location) -> bool:
    return outer.uri == inner.uri and (outer.start_line, outer.start_column) <= (inner.start_line, inner.start_column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)


def _callbacks(controller: rdx.Declaration, action: str, read: Reader) -> list[str]:
    """The names of the ``before_action`` callbacks (given as symbols) that run before
    ``action``, from the syntax trees of the controller's and its ancestors' files, the
    ancestors' first (as Rails runs them)."""
    names: list[str] = []
    for ancestor in reversed(controller.ancestors):
        if ancestor.kind != "Class":
            continue
        for definition in ancestor.definitions:
            data = read(definition.uri, definition.location.path)
            if not data:
                continue
            body = definition.location
            for names_here, only, exclude in _filter_calls(parse_ruby(definition.uri, data), body.start_line - 1, body.end_line - 1):
                if (only is None or action in only) and (exclude is None or action not in exclude):
                    names += [n for n in names_here if n not in names]
    return names


def _symbols(node) -> list[str]:  # type: ignore[no-untyped-def]
    """The names of a symbol or an array of symbols."""
    items = node.named_children if node.type == "array" else [node]
    return [item.text.decode("utf-8", "replace").lstrip(":") for item in items if item.type == "simple_symbol" and item.text]


def _filter_calls(tree, first_row: int, last_row: int) -> list[tuple[list[str], set[str] | None, set[str] | None]]:  # type: ignore[no-untyped-def]
    """Each ``before_action :a, :b, only: [...], except: [...]`` between two rows: its
    callback names and its ``only`` and ``except`` actions (None when not given). A cursor
    walk (no recursion over syntax trees)."""
    out = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None  # A cursor always stands on a node.
        inside = node.end_point.row >= first_row and node.start_point.row <= last_row
        if inside and node.type == "call" and node.child_by_field_name("receiver") is None:
            method = node.child_by_field_name("method")
            args = node.child_by_field_name("arguments")
            if method is not None and method.text in _FILTERS and args is not None:
                names: list[str] = []
                only: set[str] | None = None
                exclude: set[str] | None = None
                for arg in args.named_children:
                    if arg.type == "simple_symbol":
                        names += _symbols(arg)
                    elif arg.type == "pair":
                        key, value = arg.child_by_field_name("key"), arg.child_by_field_name("value")
                        label = key.text.decode().rstrip(":").lstrip(":") if key is not None and key.text else ""
                        if value is not None and label == "only":
                            only = set(_symbols(value))
                        elif value is not None and label == "except":
                            exclude = set(_symbols(value))
                if names:
                    out.append((names, only, exclude))
        if inside and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def view_assignments(graph: rdx.Graph, view_path: str, name: str, read: Reader | None = None) -> list[Assignment]:
    """Where the instance variable ``name`` of the template at ``view_path`` is assigned (see
    the module docstring); the action's own first, then its callbacks', else every other.
    ``read`` gives a file's text by URI and path (the editor's buffer first); the project's
    files on disk by default."""
    if read is None:
        read = lambda uri, path: graph.read_project_file(path)  # noqa: E731
    found = controller_of_view(view_path)
    if found is None:
        return []
    classes, action = found
    for class_name in classes:
        controller = graph.get(class_name)
        if controller is None or controller.kind != "Class":
            continue
        everywhere: list[tuple[rdx.Location, rdx.Declaration]] = []
        for ancestor in controller.ancestors:
            variable = graph.get(f"{ancestor.name}#{name}")
            if variable is not None:
                everywhere += [(d.name_location, ancestor) for d in variable.definitions]
        if not everywhere:
            continue
        methods: list[tuple[str, rdx.Declaration | None]] = []
        if action is not None:
            methods.append(("action", controller.find_member(f"{action}()")))
            methods += [("callback", controller.find_member(f"{callback}()")) for callback in _callbacks(controller, action, read)]
        out: list[Assignment] = []
        for reason, method in methods:
            if method is None:
                continue
            for where, _ in everywhere:
                if any(_contains(d.location, where) for d in method.definitions):
                    out.append(Assignment(where, method.name.removesuffix("()"), reason))
        if out:
            return out
        return [Assignment(where, _method_around(owner, where), "controller") for where, owner in everywhere]
    return []


def view_variables(graph: rdx.Graph, view_path: str) -> list[tuple[str, str, str]]:
    """The instance variables a view may read: (name, the class whose instance variable it is,
    why), those the action and its callbacks assign first, then the rest of the controller's
    and its ancestors' (``view_assignments`` tells which is which)."""
    found = controller_of_view(view_path)
    if found is None:
        return []
    for class_name in found[0]:
        controller = graph.get(class_name)
        if controller is None or controller.kind != "Class":
            continue
        named: dict[str, str] = {}
        for ancestor in controller.ancestors:
            if ancestor.kind == "Class":
                for member in ancestor.members:
                    if member.kind == "InstanceVariable":
                        named.setdefault(member.unqualified_name, ancestor.name)
        if not named:
            continue
        reasons = {"action": "the action", "callback": "a before_action callback", "controller": "the controller"}
        ranked = []
        for name, owner in named.items():
            places = view_assignments(graph, view_path, name)
            reason = places[0].reason if places else "controller"
            ranked.append((0 if reason != "controller" else 1, name, owner, reasons[reason]))
        return [(name, owner, reason) for _, name, owner, reason in sorted(ranked)]
    return []


def _method_around(owner: rdx.Declaration, where: rdx.Location) -> str | None:
    """The name of the method of ``owner`` whose body holds ``where`` (None at class level)."""
    for member in owner.members:
        if member.kind == "Method" and any(_contains(d.location, where) for d in member.definitions):
            return member.name.removesuffix("()")
    return None


def _hover(name: str, assignments: list[Assignment], line_text: dict[tuple[str, int], str]) -> str:
    reasons = {"action": "the action", "callback": "a before_action callback", "controller": "the controller"}
    parts = [f"```ruby\n{name}\n```", "*instance variable* of the view, assigned by " + reasons[assignments[0].reason] + ":"]
    for a in assignments[:8]:
        where = f"`{a.method}`" if a.method else "the class body"
        code = line_text.get((a.location.uri, a.location.start_line), "").strip()
        parts.append(f"{where} ({os.path.basename(a.location.path)}:{a.location.start_line})" + (f"\n```ruby\n{code}\n```" if code else ""))
    return "\n\n".join(parts)


def register(server: RdxLanguageServer) -> None:
    async def assignments(ls: RdxLanguageServer, uri: str, position: lsp.Position) -> tuple[str, list[Assignment]] | None:
        path = uri_path(uri)
        if path is None or not path.endswith(".erb") or controller_of_view(path) is None:
            return None
        graph = await ls.ready()
        line, column = ls.lines().to_rdx(uri, path, position)
        name = instance_variable_at(uri, ls.source(uri), line - 1, column)
        if name is None:
            return None
        return name, view_assignments(graph, path, name, lambda uri, _: ls.source(uri) or None)

    async def definition(ls: RdxLanguageServer, params: lsp.TextDocumentPositionParams) -> list[lsp.Location] | None:
        found = await assignments(ls, params.text_document.uri, params.position)
        if found is None or not found[1]:
            return None
        lines = ls.lines()
        return [lines.location(a.location) for a in found[1] if a.location.uri.startswith("file://")]

    async def hover(ls: RdxLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = await assignments(ls, params.text_document.uri, params.position)
        if found is None or not found[1]:
            return None
        name, places = found
        texts = {}
        for a in places[:8]:
            text = ls.text(a.location.uri)
            rows = (text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text).split(b"\n")
            if 0 < a.location.start_line <= len(rows):
                texts[(a.location.uri, a.location.start_line)] = rows[a.location.start_line - 1].decode("utf-8", "replace")
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=_hover(name, places, texts)))

    async def completion(ls: RdxLanguageServer, params: lsp.CompletionParams) -> list[lsp.CompletionItem]:
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None or not path.endswith(".erb") or controller_of_view(path) is None:
            return []
        graph = await ls.ready()
        line, column = ls.lines().to_rdx(uri, path, params.position)
        rows = ls.source(uri).split(b"\n")
        before = rows[line - 1][:column] if 0 < line <= len(rows) else b""
        typed = _TYPED_VARIABLE.search(before)
        if typed is None:
            return []
        prefix = typed.group(0).decode("utf-8", "replace")
        start = lsp.Position(params.position.line, params.position.character - len(prefix))
        out = []
        for order, (name, owner, reason) in enumerate(view_variables(graph, path)):
            if name.startswith(prefix):
                out.append(lsp.CompletionItem(
                    label=name, kind=lsp.CompletionItemKind.Variable, detail=f"{owner}#{name}", sort_text=f"{order:04d}",
                    documentation=f"assigned by {reason}",
                    text_edit=lsp.TextEdit(range=lsp.Range(start, params.position), new_text=name), data={"name": f"{owner}#{name}"},
                ))
        return out

    server.definition_providers.append(definition)
    server.hover_providers.append(hover)
    server.completion_providers.append(completion)
