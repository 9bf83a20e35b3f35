"""The language server's purely syntactic rules, without a server: Ruby locals and parameters
for semantic tokens, the active parameter of signature help, on-type formatting on Enter and
the tests code lenses find. Each is a table of small Ruby snippets and what they should give."""

from __future__ import annotations

import pytest

from rdx_lsp.code_lens import test_items as find_tests
from rdx_lsp.on_type_formatting import on_enter
from rdx_lsp.signature_help import active_parameter, open_call, split_parameters, text_arguments, written_arguments
from rdx_lsp.syntax import lexical_tokens, parse_ruby


def names(source: str) -> list[tuple[str, str, bool]]:
    """(text, kind, declaration) of every lexical token of ``source``."""
    lines = source.split("\n")
    return [(lines[t.row][t.start : t.end], t.kind, t.declaration) for t in lexical_tokens(f"memory:{hash(source)}", source.encode())]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Parameters of every shape, and a default that reads an earlier one.
        (
            "def m(a, b = a, *c, d:, e: 1, **f, &g); end",
            [("a", "parameter", True), ("b", "parameter", True), ("a", "parameter", False), ("c", "parameter", True),
             ("d", "parameter", True), ("e", "parameter", True), ("f", "parameter", True), ("g", "parameter", True)],
        ),
        # A local from its first assignment on; a second assignment is no new declaration.
        ("x = 1\nx = x + 1", [("x", "variable", True), ("x", "variable", False), ("x", "variable", False)]),
        # ``foo`` before any assignment is a call (rdx marks it), not a local.
        ("foo\nfoo = 1\nfoo", [("foo", "variable", True), ("foo", "variable", False)]),
        # Blocks see the method's locals and add their own parameters; ``def`` starts afresh.
        (
            "y = 1\n[1].each { |i, (j, k); l| y + i }\ndef m; y; end",
            [("y", "variable", True), ("i", "parameter", True), ("j", "parameter", True), ("k", "parameter", True),
             ("l", "parameter", True), ("y", "variable", False), ("i", "parameter", False)],
        ),
        # Multiple assignment, ``rescue => e``, lambdas.
        (
            "a, *b = 1, 2\nbegin\nrescue => e\n  e\nend\n->(m) { m }",
            [("a", "variable", True), ("b", "variable", True), ("e", "variable", True), ("e", "variable", False),
             ("m", "parameter", True), ("m", "parameter", False)],
        ),
        # Variables and symbols; an interpolated symbol is left to the grammar.
        (
            '@a; @@b; $c; :d; {e: 1}; :"f"; :"g#{1}"',
            [("@a", "ivar", False), ("@@b", "cvar", False), ("$c", "gvar", False), (":d", "symbol", False),
             ("e", "symbol", False), (':"f"', "symbol", False)],
        ),
    ],
)
def test_locals_parameters_and_variables(source: str, expected: list[tuple[str, str, bool]]) -> None:
    assert names(source) == expected


@pytest.mark.parametrize(("args", "active"), [("1", "a"), ("1, 2", "b = 1"), ("1, 2, 3", "*r"), ("1, k: 2", "k:"), ("1, zz: 2", "**kw"), ("&x", "&blk")])
def test_the_active_parameter_of_written_arguments(args: str, active: str) -> None:
    """On a parse of ``m(ARGS)`` with the cursor at the end of the arguments."""
    signature = "(a, b = 1, *r, k:, o: 2, **kw, &blk)"
    params = [signature[a:b] for a, b in split_parameters(signature)]
    assert params == ["a", "b = 1", "*r", "k:", "o: 2", "**kw", "&blk"]
    source = f"m({args})".encode()
    call = parse_ruby(f"memory:{args}", source).root_node.named_children[0]
    index = active_parameter(params, *written_arguments(call.child_by_field_name("arguments"), len(source) - 1))
    assert index is not None and params[index] == active
    # The same arguments typed before the call's parenthesis is closed.
    typed = open_call(source[:-1], len(source) - 1)
    assert typed is not None and typed[:2] == (0, "m")
    index = active_parameter(params, *text_arguments(typed[2]))
    assert index is not None and params[index] == active


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("  price_with(", (2, "price_with", "")),
        ("x = price_with(a, ", (4, "price_with", "a, ")),
        # Closed brackets and strings before the cursor are skipped.
        ('foo(bar(1), "a(b", [2, 3], k', (0, "foo", 'bar(1), "a(b", [2, 3], k')),
        # Inside an unclosed array or hash: no call to help with.
        ("foo([1, ", None),
        ("x = 1", None),
    ],
)
def test_calls_being_typed(text: str, found: tuple[int, str, str] | None) -> None:
    assert open_call(text.encode(), len(text.encode())) == found


def test_parameters_split_at_top_level_commas_only() -> None:
    signature = '(a = f(1, 2), b = [3, 4], c = "x, y", *)'
    assert [signature[a:b] for a, b in split_parameters(signature)] == ["a = f(1, 2)", "b = [3, 4]", 'c = "x, y"', "*"]
    assert split_parameters("()") == []


def enter(text: str, line: int) -> list[tuple[int, int, int, int, str]]:
    """The edits for Enter that made the 0-based ``line`` of ``text``."""
    missing = parse_ruby(f"memory:{hash(text)}", text.encode()).root_node.has_error
    edits = on_enter(text.split("\n"), line, 0, missing)
    return [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in edits]


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("def go\n\n", 1, [(1, 0, 1, 0, "  "), (2, 0, 2, 0, "end\n")]),
        ("  items.each do |i|\n  ", 1, [(1, 0, 1, 2, "    "), (1, 2, 1, 2, "\n  end")]),
        ("if ok\n\n", 1, [(1, 0, 1, 0, "  "), (2, 0, 2, 0, "end\n")]),
        ("private def go\n\n", 1, [(1, 0, 1, 0, "  "), (2, 0, 2, 0, "end\n")]),
        # Already closed: nothing to add.
        ("def go\n\nend\n", 1, []),
        ("def go; end\n\n", 1, []),
        ("def go = 1\n\n", 1, []),
        # A modifier ``if`` opens nothing.
        ("def go\n  return if ok\n\nend\n", 2, []),
        # Enter in the middle of a line: the rest of the line decides, not us.
        ("def go\nx\n", 1, []),
        # Comments continue; magic comments and empty ones do not.
        ("  # Hello\n  \n", 1, [(1, 0, 1, 2, "  # ")]),
        ("# frozen_string_literal: true\n\n", 1, []),
        ("#\n\n", 1, []),
        ("#!/usr/bin/env ruby\n\n", 1, []),
    ],
)
def test_on_enter(text: str, line: int, expected: list) -> None:
    assert enter(text, line) == expected


def test_tests_found_for_code_lenses() -> None:
    minitest = 'class ItemTest < ActiveSupport::TestCase\n  test "adds up" do\n  end\n\n  def test_total; end\n  def helper; end\nend\n'
    found = [(t.row, t.label, t.framework, t.name, t.group) for t in find_tests(minitest.encode(), "memory:minitest", spec=False)]
    assert found == [
        (0, "ItemTest", "minitest", None, True),
        (1, "adds up", "minitest", "test_adds_up", False),
        (4, "test_total", "minitest", "test_total", False),
    ]
    spec = 'RSpec.describe Item do\n  context "empty" do\n    it { }\n    it "is zero" do end\n  end\nend\n'
    found = [(t.row, t.label, t.group) for t in find_tests(spec.encode(), "memory:spec", spec=True)]
    assert found == [(0, "Item", True), (1, "empty", True), (2, "it", False), (3, "is zero", False)]
    # Outside a test class, ``def test_x`` and ``test "..."`` are not tests.
    assert find_tests(b"def test_x; end\ntest 'a' do end\n", "memory:plain", spec=False) == []


def test_inlay_hint_settings_per_kind() -> None:
    from rdx_lsp.inlay_hints import HintSettings

    settings = HintSettings()
    assert (settings.implicit_self, settings.constants) == (False, False)  # Off by default.
    settings.update({"inlayHints": {"constants": True}})
    assert (settings.implicit_self, settings.constants) == (False, True)
    settings.update({"rdx": {"inlayHints": {"implicitSelf": True}}})  # Settings under "rdx", as VS Code nests them.
    assert (settings.implicit_self, settings.constants) == (True, True)
    settings.update(None)
    settings.update({"inlayHints": "yes"})
    assert (settings.implicit_self, settings.constants) == (True, True)


@pytest.mark.parametrize(
    ("old", "new", "rows", "expected"),
    [
        # Lines changed one for one: one edit each; a range keeps its own.
        ("a\nb\nc\n", "A\nb\nC\n", None, [(0, 0, 1, 0, "A\n"), (2, 0, 3, 0, "C\n")]),
        ("a\nb\nc\n", "A\nb\nC\n", (2, 2), [(2, 0, 3, 0, "C\n")]),
        # A line removed and one added.
        ("a\nb\nc\n", "a\nc\nd\n", None, [(1, 0, 2, 0, ""), (3, 0, 3, 0, "d\n")]),
        # A last line without a newline ends the edit at its end.
        ("a\nb", "a\nB", None, [(1, 0, 1, 1, "B")]),
        ("a\n", "a\n", None, []),
    ],
)
def test_line_edits_of_rubocops_corrections(old: str, new: str, rows: tuple[int, int] | None, expected: list) -> None:
    from rdx_lsp.rubocop import line_edits

    edits = line_edits(old, new, len, rows)
    assert [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in edits] == expected


def test_incremental_parses_give_what_fresh_parses_give() -> None:
    """A document edited version after version (the tree reused each time) gets the tokens and
    the tree a first parse of each version gets."""
    import random

    from rdx_lsp import syntax

    rng = random.Random(25)
    pieces = ["x = 1\n", "def m(a, b = 2)\n  a + b\nend\n", "[1].each { |i| i }\n", "@v = :sym\n", "class K\n  y = 3\nend\n", "é = '😀'\n", "(", "end\n"]
    text = "".join(rng.choice(pieces) for _ in range(30))
    for version in range(60):
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.randrange(8))
        text = text[:start] + rng.choice(pieces + [""]) + text[end:]
        source = text.encode()
        edited = syntax.lexical_tokens("memory:edited", source)
        fresh = syntax.lexical_tokens(f"memory:fresh-{version}", source)
        assert edited == fresh, version
        assert str(syntax.parse_ruby("memory:edited", source).root_node) == str(syntax.parse_ruby(f"memory:fresh-{version}", source).root_node)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/app/app/views/posts/show.html.erb", (["PostsController", "Posts"], "show")),
        ("/app/app/views/admin/blog_posts/edit.html.erb", (["Admin::BlogPostsController", "Admin::BlogPosts"], "edit")),
        ("/app/app/views/user_mailer/welcome.text.erb", (["UserMailerController", "UserMailer"], "welcome")),
        # A partial and a layout belong to no one action.
        ("/app/app/views/posts/_form.html.erb", (["PostsController", "Posts"], None)),
        ("/app/app/views/layouts/admin.html.erb", (["AdminController", "Admin"], None)),
        # An engine's views; a template outside app/views, or directly in it.
        ("/app/engines/blog/app/views/blog/posts/index.html.erb", (["Blog::PostsController", "Blog::Posts"], "index")),
        ("/app/lib/templates/show.html.erb", None),
        ("/app/app/views/show.html.erb", None),
    ],
)
def test_the_controller_of_a_view(path: str, expected: tuple[list[str], str | None] | None) -> None:
    from rdx_lsp.rails_views import controller_of_view

    assert controller_of_view(path) == expected


def test_gem_source_comments() -> None:
    """Tapioca's ``# source://`` comments (version maybe empty, line as ``#L18`` or ``#18``); the
    same text outside a comment is no link."""
    from rdx_lsp.document_links import source_comments

    text = (
        "# source://activesupport//lib/active_support/core_ext/object/blank.rb#L18\n"
        "  def x; end # source://rbi/0.1.6/lib/rbi/model.rb#7\n"
        'puts "source://a/1/lib/a.rb"\n'
        "# source://rack/2.2.4/lib/rack.rb\n"
    )
    assert source_comments(text.encode()) == [
        (0, 2, 73, "activesupport", "", "lib/active_support/core_ext/object/blank.rb", 18),
        (1, 15, 52, "rbi", "0.1.6", "lib/rbi/model.rb", 7),
        (3, 2, 33, "rack", "2.2.4", "lib/rack.rb", None),
    ]


def test_tokens_after_edits_inside_a_method_are_those_of_a_fresh_parse() -> None:
    """Typing inside one ``def`` (the tokens of the rest kept, that method swept again, the
    lines after it moved) gives the tokens a fresh parse of each version gives, lines added and
    removed included."""
    import random

    from rdx_lsp import syntax

    rng = random.Random(2511)
    head = "class K\n  X = 1\n  def before(a)\n    a + @v\n  end\n\n"
    tail = "\n  def after(b, *c)\n    d = b\n    [d, :e, c].each { |f| f }\n  end\nend\n@top = 1\n"
    body = ["  def typed(p)\n", "    q = p\n", "    q\n", "  end\n"]
    pieces = ["r", " ", "s = q\n    ", "\n    ", "@w", ":t", "p", "1", ", u", "r = 2; r"]
    for version in range(120):
        # An insertion or deletion strictly inside the typed method's body lines.
        line = rng.randrange(1, len(body) - 1)
        column = rng.randrange(4, len(body[line]))
        if rng.random() < 0.7:
            body[line] = body[line][:column] + rng.choice(pieces) + body[line][column:]
        else:
            body[line] = body[line][:column] + body[line][column + rng.randrange(1, 3) :]
        body = "".join(body).split("\n")
        body = [b + "\n" for b in body[:-1]] + ([body[-1]] if body[-1] else [])
        body[-1] = "  end\n"
        source = (head + "".join(body) + tail).encode()
        edited = syntax.lexical_tokens("memory:typed", source)
        fresh = syntax.lexical_tokens(f"memory:typed-fresh-{version}", source)
        assert edited == fresh, (version, source.decode())
