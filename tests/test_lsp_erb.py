"""ERB templates in the language server (issue 25): a view's tokens, definitions and
references, at the template's own positions, and its instance variables' assignments in the
controller action that renders it (Rails' naming convention), over stdio through pytest-lsp."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_erb import HELPER, MODEL, VIEW
from test_lsp_editing import MODIFIERS, TYPES, decode

VIEW_PATH = "app/views/products/index.html.erb"

# A controller whose actions and before_action callbacks assign the show view's instance
# variables (``PostsController#show`` renders ``app/views/posts/show.html.erb``).
APPLICATION_CONTROLLER = """\
class ApplicationController
  before_action :set_locale

  private

  def set_locale
    @locale = :en
  end
end
"""
POSTS_CONTROLLER = """\
class PostsController < ApplicationController
  before_action :set_author, only: [:show]
  before_action :set_heading, only: :edit

  def index
    @posts = []
  end

  def show
    @post = Post.find(params[:id])
    @title = @post.title
  end

  def edit
    @title = "Edit"
  end

  private

  def set_author
    @author = "someone"
  end

  def set_heading
    @title = "Heading"
  end
end
"""
SHOW = "<h1><%= @title %></h1>\n<p><%= @post %> by <%= @author %> (<%= @locale %>, <%= @posts %>)</p>\n"
FORM = "<%= @title %>\n"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("erb") / "app"
    files = {
        "app/helpers/products_helper.rb": HELPER, "app/models/shop/product.rb": MODEL, VIEW_PATH: VIEW,
        "app/controllers/application_controller.rb": APPLICATION_CONTROLLER, "app/controllers/posts_controller.rb": POSTS_CONTROLLER,
        "app/views/posts/show.html.erb": SHOW, "app/views/posts/_form.html.erb": FORM,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, root: Path) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "app")]
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def position(needle: str) -> lsp.Position:
    at = VIEW.index(needle)
    return lsp.Position(VIEW.count("\n", 0, at), at - (VIEW.rfind("\n", 0, at) + 1))


async def test_a_view_is_indexed_from_the_walk_and_navigates(client: LanguageClient, root: Path) -> None:
    view = lsp.TextDocumentIdentifier((root / VIEW_PATH).as_uri())
    # The constant in a tag: a certain definition in the model's file.
    at = position("Shop::Product.count")
    found = await client.text_document_definition_async(lsp.DefinitionParams(view, lsp.Position(at.line, at.character + len("Shop::"))))
    assert found and [Path(loc.uri).name if "://" not in loc.uri else loc.uri.rsplit("/", 1)[1] for loc in found] == ["product.rb"]
    # The helper called from the view: its references include the view's call.
    helper = lsp.TextDocumentIdentifier((root / "app/helpers/products_helper.rb").as_uri())
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(text_document=helper, position=lsp.Position(1, 6), context=lsp.ReferenceContext(include_declaration=False))
    )
    assert [(r.uri.rsplit("/", 1)[1], r.range.start.line, r.range.start.character) for r in refs or []] == [
        ("index.html.erb", position("format_price(").line, position("format_price(").character)
    ]


async def test_semantic_tokens_of_a_view(client: LanguageClient, root: Path) -> None:
    view = lsp.TextDocumentIdentifier((root / VIEW_PATH).as_uri())
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(view.uri, "eruby", 1, VIEW)))
    result = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(view))
    tokens = decode(result.data, VIEW)
    assert TYPES and MODIFIERS
    at = position("Shop::Product.count")
    assert tokens.get((at.line, at.character)) == ("Shop", "namespace", set())
    assert tokens.get((at.line, at.character + len("Shop::"))) == ("Product", "class", set())
    block = position("|product|")
    assert tokens.get((block.line, block.character + 1)) == ("product", "parameter", {"declaration"})
    # Nothing in the template's text or comments is a token.
    comment = position("NotAConstant")
    assert (comment.line, comment.character) not in tokens


def assigned(needle: str, occurrence: int = 0, text: str = POSTS_CONTROLLER) -> tuple[str, int, int]:
    """(file, line, column) of the ``occurrence``-th assignment ``needle`` in a controller."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    name = "posts_controller.rb" if text is POSTS_CONTROLLER else "application_controller.rb"
    return name, text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)


@pytest.mark.parametrize(
    ("view", "variable", "expected"),
    [
        # The action's own assignment; another action's and another action's callback's are not.
        ("show.html.erb", "@post", [assigned("@post = Post")]),
        ("show.html.erb", "@title", [assigned("@title = @post")]),
        # A before_action callback that runs before show (only: [:show]), and one inherited.
        ("show.html.erb", "@author", [assigned("@author =")]),
        ("show.html.erb", "@locale", [assigned("@locale =", text=APPLICATION_CONTROLLER)]),
        # Not assigned by show nor its callbacks: every assignment in the controller.
        ("show.html.erb", "@posts", [assigned("@posts =")]),
        # A partial belongs to no one action: every assignment, in source order.
        ("_form.html.erb", "@title", [assigned("@title ="), assigned("@title =", 1), assigned("@title =", 2)]),
    ],
)
async def test_a_views_instance_variables_go_to_the_controller_action(
    client: LanguageClient, root: Path, view: str, variable: str, expected: list[tuple[str, int, int]]
) -> None:
    text = SHOW if view == "show.html.erb" else FORM
    at = text.index(variable)
    position = lsp.Position(text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1) + 1)
    doc = lsp.TextDocumentIdentifier((root / "app/views/posts" / view).as_uri())
    found = await client.text_document_definition_async(lsp.DefinitionParams(doc, position))
    assert [(loc.uri.rsplit("/", 1)[1], loc.range.start.line, loc.range.start.character) for loc in found or []] == expected


async def test_hover_on_a_views_instance_variable_shows_its_assignment(client: LanguageClient, root: Path) -> None:
    doc = lsp.TextDocumentIdentifier((root / "app/views/posts/show.html.erb").as_uri())
    at = SHOW.index("@post ")
    hover = await client.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(1, at - (SHOW.index("\n") + 1))))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "assigned by the action" in hover.contents.value
    assert "`PostsController#show` (posts_controller.rb:10)" in hover.contents.value
    assert "@post = Post.find(params[:id])" in hover.contents.value
    # Text outside a tag names nothing.
    assert await client.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(0, 1))) is None


async def test_completion_of_a_views_instance_variables(client: LanguageClient, root: Path) -> None:
    """After ``@po`` in the show view: the controller's variables of that prefix, what the action
    assigns first; each replaces the typed prefix."""
    doc = lsp.TextDocumentIdentifier((root / "app/views/posts/show.html.erb").as_uri())
    line = SHOW.split("\n")[1]
    column = line.index("@post") + len("@po")
    found = await client.text_document_completion_async(lsp.CompletionParams(doc, lsp.Position(1, column)))
    items = found.items if isinstance(found, lsp.CompletionList) else found or []
    mine = sorted((i for i in items if i.label.startswith("@")), key=lambda i: i.sort_text or "")
    assert [(i.label, i.detail) for i in mine] == [("@post", "PostsController#@post"), ("@posts", "PostsController#@posts")]
    edit = mine[0].text_edit
    assert isinstance(edit, lsp.TextEdit) and (edit.range.start.character, edit.range.end.character) == (column - 3, column)
