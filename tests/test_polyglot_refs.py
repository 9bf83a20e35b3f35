"""References of other languages (``rdx.languages.extract_all``): one fixture per language
listing every call, qualified call, type and base it names, with the enclosing symbol of
some; every reference query compiled and run on broken input; and, on a slice of real code
per language (the corpora of ``tests/test_polyglot.py``), references found in most files,
each naming exactly the bytes it spans inside the symbol it is attributed to."""

from __future__ import annotations

import os
from pathlib import Path
from textwrap import dedent

import pytest
from test_polyglot import CORPORA, NPM_CORPUS, _files, _npm_corpus

from rdx.languages import Extraction, Symbol, extract_all
from rdx.languages.registry import SPECS, spec_for


def check_refs(language: str, source: str, expected: str, scopes: dict[str, str] | None = None) -> Extraction:
    """The references of ``source`` are exactly ``expected``, one ``kind qualifier name`` a
    line (``-``: no qualifier; a qualifier may hold spaces, a name never does); for each name
    in ``scopes``, every reference of that name sits in the symbol of that qualified name
    (``""``: the top level). Each reference spans exactly its name."""
    spec = spec_for(language)
    assert spec is not None
    data = dedent(source).encode()
    extraction = extract_all(spec, data)
    for ref in extraction.references:
        assert data[ref.start : ref.end].decode() == ref.name, ref
    wanted = set()
    for line in expected.strip().splitlines():
        kind, rest = line.split(maxsplit=1)
        qualifier, name = rest.rsplit(maxsplit=1)
        wanted.add((kind, None if qualifier == "-" else qualifier, name))
    found = {(r.kind, r.qualifier, r.name) for r in extraction.references}
    assert found == wanted, (sorted(found - wanted, key=str), sorted(wanted - found, key=str))
    for name, qualified in (scopes or {}).items():
        where = {extraction.symbols[r.scope].qualified if r.scope >= 0 else "" for r in extraction.references if r.name == name}
        assert where == {qualified}, (name, where)
    return extraction


def test_python() -> None:
    source = """
        import os.path
        class Shop(base.Model, Mixin):
            items: list[Item]
            def total(self, tax: Rate) -> Money:
                self.check()
                return sum(os.path.join(x) for x in self.items)
        def helper(cart: 'Cart') -> typing.Optional[Shop]:
            return Shop()
    """
    # FIXME(issue 11): Python's query reads ``X[...]`` only when X is a plain name, so
    # ``typing.Optional[Shop]`` yields neither Optional nor Shop. A string annotation
    # (``'Cart'``) is text, not a name, by design.
    expected = """
        base base Model
        base - Mixin
        type - list
        type - Item
        type - Rate
        type - Money
        call self check
        call - sum
        call os.path join
        call - Shop
    """
    check_refs("python", source, expected, {"Mixin": "Shop", "Item": "Shop", "check": "Shop.total", "join": "Shop.total", "Shop": "helper"})


def test_javascript() -> None:
    source = """
        import { Base } from "./base";
        class Cart extends ns.Base {
          total() { return this.items.reduce(add, 0) + round(this.#tax()); }
        }
        class Dyn extends mixin(Base) {}
        function render(items) {
          const el = new Widget(items);
          return <Layout><ui.Card/><div>{new ns.Row()}</div></Layout>;
        }
    """
    # ``extends mixin(Base)`` names no base, only a call; ``<div>`` is a tag, not a name; an
    # import is no reference (imports are read apart).
    expected = """
        base ns Base
        call this.items reduce
        call - round
        call this #tax
        call - mixin
        call - Widget
        call - Layout
        call ui Card
        call ns Row
    """
    check_refs("javascript", source, expected, {"Base": "Cart", "reduce": "Cart.total", "mixin": "Dyn", "Layout": "render"})


def test_typescript() -> None:
    source = """
        interface Priced extends ns.Item<number>, Named { price(): Money; }
        export class Cart<T extends Item> extends Base<T> implements Priced, ns.Sized {
          private items: Map<string, ns.a.Line[]> = new Map();
          price(): Money { return sum(this.items.values()) as Money; }
        }
        type Pair = [Cart<Book>, Rate | null];
        function make<K>(fn: () => K): K { return fn(); }
    """
    # What is defined here (Priced, Cart, T, Pair, K where they are declared) is no reference.
    expected = """
        base ns Item
        base - Named
        type - Money
        type - Item
        base - Base
        type - T
        base - Priced
        base ns Sized
        type - Map
        type ns.a Line
        call - Map
        call - sum
        call this.items values
        type - Cart
        type - Book
        type - Rate
        type - K
        call - fn
    """
    extraction = check_refs(
        "typescript", source, expected, {"Named": "Priced", "Sized": "Cart", "sum": "Cart.price", "Book": "Pair", "fn": "make"}
    )
    # ``Item``: a base of Priced (line 2 of the dedented source), a constraint in Cart (line 3).
    assert sorted((r.line, r.kind) for r in extraction.references if r.name == "Item") == [(2, "base"), (3, "type")]


def test_tsx() -> None:
    source = """
        export function App({ items }: Props): JSX.Element {
          return <Layout title="x"><ui.Card/>{items.map(i => <Row key={i} />)}</Layout>;
        }
    """
    expected = """
        type - Props
        type JSX Element
        call - Layout
        call ui Card
        call items map
        call - Row
    """
    check_refs("tsx", source, expected, {"Row": "App"})


def test_go() -> None:
    source = """
        package shop

        type Cart struct {
            Base
            *sync.Mutex
            Items []Item
            byID  map[string]*Line
        }

        type Pricer interface {
            fmt.Stringer
            Price(c Currency) (Money, error)
        }

        func (c *Cart) Total(ctx context.Context) Money {
            fmt.Println(c.Items)
            c.mu.Lock()
            return Sum[Money](helper(c))
        }
    """
    # Embedded fields and interfaces are bases; predeclared types (string, error) are names
    # like any other (a package may shadow them); a generic call reads as a call.
    expected = """
        base - Base
        base sync Mutex
        type - Item
        type - string
        type - Line
        base fmt Stringer
        type - Currency
        type - Money
        type - error
        type - Cart
        type context Context
        call fmt Println
        call c.mu Lock
        call - Sum
        call - helper
    """
    scopes = {
        "Mutex": "shop.Cart",
        "Line": "shop.Cart.byID",
        "Currency": "shop.Pricer.Price",
        "Println": "shop.Cart.Total",
        "Cart": "shop.Cart.Total",
    }
    check_refs("go", source, expected, scopes)


def test_rust() -> None:
    source = """
        pub struct Cart { items: Vec<Item>, rate: tax::Rate }
        pub trait Priced: Named + fmt::Debug { fn price(&self) -> Money; }
        impl fmt::Display for Cart {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                let total = Money::new(0);
                write_line(f, self.items.len());
                std::io::stdout().flush();
                println!("{}", total);
                Ok(())
            }
        }
        impl Priced for Cart { fn price(&self) -> Money { Line { n: 1 }.sum::<Money>() } }
    """
    # Supertraits and implemented traits are bases; a macro is no call; an impl is no symbol,
    # so what its header names belongs to the enclosing scope (the top level here).
    expected = """
        type - Vec
        type - Item
        type tax Rate
        base - Named
        base fmt Debug
        type - Money
        base fmt Display
        type - Cart
        type fmt Formatter
        type fmt Result
        call Money new
        call - write_line
        call self.items len
        call std::io stdout
        call std::io::stdout() flush
        call - Ok
        base - Priced
        type - Line
        call Line { n: 1 } sum
    """
    check_refs(
        "rust",
        source,
        expected,
        {"Debug": "Priced", "Display": "", "Cart": "", "stdout": "Cart::fmt", "Rate": "Cart::rate", "sum": "Cart::price"},
    )


def test_java() -> None:
    source = """
        package shop;
        public class Cart extends base.Model<Item> implements Priced, java.io.Serializable {
            private List<Line> lines;
            public Money total(Rate rate) throws PriceException {
                var sum = Money.zero();
                this.lines.forEach(l -> add(l));
                return new Money(rate.apply(sum));
            }
        }
        interface Priced extends Named { Money total(Rate rate); }
    """
    # ``var`` is no type; ``java.io`` qualifies Serializable and is no type of its own.
    expected = """
        base base Model
        type - Item
        base - Priced
        base java.io Serializable
        type - List
        type - Line
        type - Money
        type - Rate
        type - PriceException
        call Money zero
        call this.lines forEach
        call - add
        call - Money
        call rate apply
        base - Named
    """
    check_refs(
        "java",
        source,
        expected,
        {"Serializable": "shop.Cart", "Line": "shop.Cart.lines", "apply": "shop.Cart.total", "Named": "shop.Priced"},
    )


def test_c() -> None:
    source = """
        #include <stdio.h>
        typedef struct cart { struct line *lines; size_t n; } Cart;
        static money_t total(const Cart *cart, rate_t rate) {
            money_t sum = zero();
            for (size_t i = 0; i < cart->n; i++) sum = add(sum, cart->lines[i].price);
            return cart->ops->round(sum, (money_t) rate);
        }
    """
    # ``struct line`` names a struct without defining it, ``struct cart {...}`` and the typedef
    # define theirs; size_t is one of the grammar's primitive types.
    expected = """
        type - line
        type - money_t
        type - Cart
        type - rate_t
        call - zero
        call - add
        call cart->ops round
    """
    check_refs("c", source, expected, {"line": "Cart::cart", "round": "total"})


def test_cpp() -> None:
    source = """
        namespace shop {
        class Cart : public Base, private util::Sized<Cart> {
          std::vector<Line> lines;
         public:
          Money total(const Rate &rate) const {
            Money sum = Money::zero();
            for (auto &l : lines) sum = util::math::add(sum, l.price());
            auto *p = new Printer(std::cout);
            return std::accumulate<Money>(sum, static_cast<Money>(rate));
          }
        };
        }
        void shop::Cart::clear() { this->lines.clear(); }
    """
    # ``util::math::add``: the grammar nests scopes from the right, so the qualifier is the
    # nearest; ``static_cast`` is a keyword, no call; ``new Printer`` calls Printer.
    expected = """
        base - Base
        base util Sized
        type - Cart
        type std vector
        type - Line
        type - Money
        type - Rate
        call Money zero
        call math add
        call l price
        call - Printer
        call std accumulate
        call this->lines clear
    """
    check_refs("cpp", source, expected, {"Sized": "shop::Cart", "add": "shop::Cart::total", "clear": "shop::Cart::clear"})


def test_php() -> None:
    source = r"""
        <?php
        namespace App;
        class Cart extends Base\Model implements \Countable, Priced {
            use HasItems;
            public function total(Rate $rate): ?Money {
                $sum = Money::zero();
                foreach ($this->lines as $l) { $sum = add($sum, $l->price()); }
                $p = new \App\Printer($sum);
                return $rate instanceof Fixed ? $sum : Util\round($sum);
            }
        }
    """
    # A used trait is a base; ``\Countable`` has no namespace part, hence no qualifier.
    expected = """
        base Base Model
        base - Countable
        base - Priced
        base - HasItems
        type - Rate
        type - Money
        call Money zero
        call - add
        call $l price
        call App Printer
        type - Fixed
        call Util round
    """
    check_refs("php", source, expected, {"HasItems": "App\\Cart", "Printer": "App\\Cart::total"})


def test_csharp() -> None:
    source = """
        namespace Shop {
        public class Cart : Base<Item>, IPriced, System.IDisposable {
            private List<Line> lines;
            public Money Total(Rate rate) {
                var sum = Money.Zero();
                this.lines.ForEach(l => Add(l));
                return new Money(rate?.Apply(sum));
            }
        }
        interface IPriced : INamed { Money Total(Rate rate); }
        }
    """
    expected = """
        base - Base
        type - Item
        base - IPriced
        base System IDisposable
        type - List
        type - Line
        type - Money
        type - Rate
        call Money Zero
        call this.lines ForEach
        call - Add
        call - Money
        call rate Apply
        base - INamed
    """
    check_refs(
        "csharp", source, expected, {"IDisposable": "Shop.Cart", "Line": "Shop.Cart", "Apply": "Shop.Cart.Total", "INamed": "Shop.IPriced"}
    )


@pytest.mark.slow  # every language's queries over broken input; each language's own tests above stay in make check
def test_every_reference_query_compiles_and_survives_broken_input() -> None:
    # A query that does not compile raises at its first use: this is that use, for each.
    for language in SPECS:
        spec = spec_for(language)
        assert spec is not None
        for source in (b"", b"\xff\xfe garbage \x00", b"(((((" * 2000, "é ünïcode ☃ f(x)\n".encode() * 10):
            assert isinstance(extract_all(spec, source), Extraction), language


# -- real code ------------------------------------------------------------------------------

# The corpora of tests/test_polyglot.py (language, root, glob), and Java from the concurrent-ruby
# gem that Rails brings (its JRuby extension).
_JAVA = sorted(Path("/usr/share/rubygems-integration/all/gems").glob("concurrent-ruby-*/ext"))
REAL = [(c[0], c[3], c[4]) for c in CORPORA] + [("java", str(_JAVA[-1] if _JAVA else "/missing/concurrent-ruby"), "**/*.java")]
_SLICE = 120  # Files per language: enough to meet most constructs, quick enough to run always.


@pytest.mark.corpus
@pytest.mark.parametrize(("language", "root", "pattern"), REAL, ids=[r[0] for r in REAL])
def test_references_of_real_code(language: str, root: str, pattern: str) -> None:
    if root.startswith(str(NPM_CORPUS)):
        assert _npm_corpus(), "the JavaScript corpus comes from the npm registry through npm (make test installs npm)"
    assert os.path.isdir(root), f"{root} is missing (make test installs golang-src, librust-*-dev and ruby-rails)"
    files = [f for f in _files(root, pattern) if not f.endswith(".min.js") and "/site-packages/" not in f and "/test/" not in f]
    assert len(files) > 10
    # An even spread over the corpus, not its first directory.
    files = files[:: max(1, len(files) // _SLICE)]
    spec = spec_for(language)
    assert spec is not None
    with_refs = total = 0
    kinds: set[str] = set()
    for path in files:
        data = Path(path).read_bytes()
        extraction = extract_all(spec, data)
        children: dict[int, list[Symbol]] = {}
        for symbol in extraction.symbols:
            children.setdefault(symbol.parent, []).append(symbol)
        with_refs += bool(extraction.references)
        total += len(extraction.references)
        for ref in extraction.references:
            kinds.add(ref.kind)
            where = (path, ref.line, ref.name)
            assert data[ref.start : ref.end].decode("utf-8", "replace") == ref.name, where
            assert data.count(b"\n", 0, ref.start) + 1 == ref.line, where
            if ref.qualifier is not None:
                assert ref.qualifier.encode() in data[max(0, ref.start - 400) : ref.start], where
            # The scope holds the reference, and none of its own symbols does (the innermost).
            if ref.scope >= 0:
                scope = extraction.symbols[ref.scope]
                assert scope.start <= ref.start < scope.end, (where, scope.qualified)
            inner = [c.qualified for c in children.get(ref.scope, []) if c.start <= ref.start < c.end]
            assert not inner, (where, inner)
    # Most files use names (a few hold only constants, docs or macros: a Rust table of
    # primitive values, a C header of #defines); at least 10 references a file on average.
    assert with_refs >= 2 * len(files) // 3, (language, with_refs, len(files))
    # The slice of JavaScript declares no class (and the language names no types); C has no bases.
    wanted = {"call"} if language == "javascript" else {"call", "type"} if language == "c" else {"call", "type", "base"}
    assert total >= 10 * len(files) and wanted <= kinds, (language, total, kinds)
