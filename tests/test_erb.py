"""ERB templates (issue 25): the Ruby of their tags is indexed at the template's own positions,
constants in views resolve, and a helper's references include its calls in views."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import rdx
from rdx.ruby.discover.erb import is_erb_file, ruby_of_template

RUBY = shutil.which("ruby")

VIEW = """\
<h1><%= t("products.title") %></h1>
<%# a comment that mentions NotAConstant %>
<% if @products.any? -%>
  <ul>
  <%- @products.each do |product| %>
    <li><%= link_to product.name, product %> <%= format_price(product.price) %></li>
  <% end %>
  </ul>
<% else %>
  <p>None yet: <%= Shop::Product.count %> in stock, 100<%% literal %></p>
<% end %>
<%= form_with model: Shop::Product.new do |f| %>
  <%= f.text_field :name %>
<% end %>
"""

HELPER = """\
module ProductsHelper
  def format_price(cents)
    format("%.2f", cents / 100.0)
  end
end
"""

MODEL = """\
module Shop
  class Product
    def self.count = 0
    def name = "x"
  end
end
"""


def test_the_ruby_of_a_template_keeps_every_offset_and_line():
    data = VIEW.encode()
    ruby = ruby_of_template(data)
    assert len(ruby) == len(data)
    assert [i for i, b in enumerate(data) if b == 0x0A] == [i for i, b in enumerate(ruby) if b == 0x0A]
    for code in ("format_price(product.price)", "@products.each do |product|", "Shop::Product.count", "f.text_field :name"):
        at = data.index(code.encode())
        assert ruby[at : at + len(code)] == code.encode(), code
    # Text, comments and literal ``<%%`` are blank.
    for text in (b"<h1>", b"NotAConstant", b"literal", b"<li>"):
        assert text not in ruby
    assert is_erb_file("app/views/products/index.html.erb") and not is_erb_file("index.html")


@pytest.mark.skipif(RUBY is None, reason="needs ruby")
def test_the_ruby_of_a_template_is_valid_ruby(tmp_path):
    # Ruby's own judgement: the translation parses (ruby -c). (Ruby's ERB library cannot be the
    # oracle here: ``<%= form_with ... do |f| %>`` is Rails' block output, which it rejects.)
    out = tmp_path / "view.rb"
    out.write_bytes(ruby_of_template(VIEW.encode()))
    check = subprocess.run([RUBY, "-c", str(out)], capture_output=True, text=True)
    assert check.returncode == 0 and "Syntax OK" in check.stdout, check.stderr


def graph() -> rdx.Graph:
    g = rdx.Graph()
    g.index_source("file:///app/app/helpers/products_helper.rb", HELPER)
    g.index_source("file:///app/app/models/shop/product.rb", MODEL)
    g.index_source("file:///app/app/views/products/index.html.erb", VIEW)
    g.resolve()
    return g


def _position(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    at = text.index(needle) + offset
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1)


def test_views_resolve_constants_at_their_positions():
    g = graph()
    view = "/app/app/views/products/index.html.erb"
    line, col = _position(VIEW, "Shop::Product.count", len("Shop::"))
    target = g.definition_at(view, line, col)
    assert target is not None and target.name == "Shop::Product" and target.certain
    refs = [r for r in g.references_to("Shop::Product") if r.location.path == view]
    assert sorted((r.location.start_line, r.location.start_column) for r in refs) == [
        _position(VIEW, "Shop::Product.count"),
        _position(VIEW, "Shop::Product.new"),
    ]
    assert not [d for d in g.diagnostics if d.location.path == view and d.severity == "error"]


def test_a_helpers_references_include_its_calls_in_views():
    g = graph()
    view = "/app/app/views/products/index.html.erb"
    refs = [r for r in g.references_to("ProductsHelper#format_price()") if r.location.path == view]
    assert [(r.location.start_line, r.location.start_column, r.certain) for r in refs] == [(*_position(VIEW, "format_price("), False)]
    line, col = _position(VIEW, "format_price(")
    target = g.definition_at(view, line, col)
    # The view context is unknown: a guess by name, marked uncertain, with the helper as candidate.
    assert target is not None and not target.certain and target.candidates == ["ProductsHelper#format_price()"]
