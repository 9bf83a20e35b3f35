# rdx: `make run` sets everything up and indexes the built-in example; `make test` runs the suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check system-deps capi native bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP) native
	$(BIN)/rdx demo

# Ruby is the oracle of the differential tests; Rails and RuboCop are the real-world corpus.
system-deps:
	scripts/install-system-deps

# The C ABI: bindings/build/librdx.so from bindings/rdx.h through cffi's embedding mode (needs gcc
# and Python's headers). Rebuilds only when the header, bindings/src or the baked paths change.
capi: $(STAMP)
	$(BIN)/python bindings/build_capi.py

# The native walk step of Ruby discovery: rdx/native/_walk*.so from rdx/native/walk.c and the
# tree-sitter runtime of the installed py-tree-sitter's version (its source is fetched from the
# package index once, into rdx/native/build/). Needs gcc and Python's headers, as capi does.
# Without it rdx walks in Python and gives the same records, more slowly.
native: $(STAMP)
	$(BIN)/python rdx/native/build.py

# Everything, on two workers (the suite's modules are independent; loadscope keeps each module's
# fixtures on one worker): about half the wall time of one worker on a two-core machine.
test: $(STAMP) system-deps capi native
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist loadscope

# The fast tier for the edit-test loop: every test but those marked corpus (the Debian Ruby corpus,
# Rails, RuboCop, other languages' real-world corpora, neovim, the long random samples) or slow
# (tests that take seconds each: end-to-end runs of rdx, Ruby or a C program as processes of their
# own, worker pools, hundreds of random examples, sweeps of every grammar, walks of the whole test
# process's heap, and the further variants of a check make check already runs once; each surface
# keeps at least one end-to-end test here; each slow marker says why), on two workers: 8 % less CPU
# time (user+sys) than before the two shared paths below (173 s against 188 s, and 147 s against
# 160 s, each pair measured side by side; CPU time itself moves with the machine's load): 88.7 to
# 92.7 s of pytest on a quiet two-core machine at stop 34, 101 s on the same machine on a slower
# day at stop 35 (the target is 90; stop 34's code took 103 to 105 s that day), against about ten
# minutes for make test, which runs everything, also on two workers. The largest part was the
# 2,900 full resolves (37 s), most of it Ruby core resolved again in every test graph (30 to 50
# ms each).
# What is shared, with a test that compares it with the unshared path: a full resolve of a small
# project (at most 12 Ruby files besides core; about 770 a run) starts from Ruby core resolved
# once per process and adds the project's files with the incremental updater
# (rdx/ruby/resolve/base.py, tests/test_core_base.py; RDX_CORE_BASE_CHECK=1 makes every such
# resolve compare itself with one from scratch): about 470 of them do, 12 ms each against 40 ms
# from scratch, the rest fall back (mostly a top-level class Object with mixins or a first
# class << self body of an existing class); the
# ranked-search index starts from the database of core's rows that the process's first build kept
# (rdx/search/ranked.py, tests/test_ranked_core_rows.py), and tests/test_incremental.py's dump
# takes the entries of core's declarations a graph leaves as a graph of core alone has them from
# that graph (RDX_DUMP_CHECK=1 makes every dump compare both). tests/conftest.py trims the fixed
# costs: modules that -m leaves out whole are not imported, the workers' collector runs every
# 100,000 allocations, a worker freezes its heap after its last test (pytest's closing collections
# then walk nothing) and leaves without tearing its interpreter down. The processes the tests
# start (rdx commands and servers) import only what their command uses (rdx/__init__.py imports
# its names at first use; tests/test_lazy_imports.py). The controller, which runs no test, loads
# neither Hypothesis (pyproject.toml's warning filter names its category as Warning) nor
# pytest-lsp's plugin (-p no:pytest-lsp below; tests/conftest.py registers it again in each
# worker): their imports, about 1 s of CPU, delayed the workers' start. No test of the tier uses
# Hypothesis (tests/test_search_random.py, its one property test, is slow), and its plugin, which
# imported it in the controller's closing summary (0.4 s after the last test), is off
# (-p no:hypothesispytest).
#
# loadscope keeps each module on one worker, so a module's fixtures (an indexed tree, the C test
# program) are built once; tests/conftest.py hands the modules out longest first, by the durations
# the previous run of the same -m expression left in .pytest_cache, so that both workers finish
# together instead of one running the last long module alone. Bytecode stays on even where the
# environment turns it off (PYTHONDONTWRITEBYTECODE): each worker then reuses pytest's rewritten
# test modules (in the ignored __pycache__ folders) instead of rewriting them all on every run, a
# few seconds each.
check: $(STAMP) capi native
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -m "not corpus and not slow" -n 2 --dist loadscope -p no:pytest-lsp -p no:hypothesispytest

bench: $(STAMP) system-deps native
	$(BIN)/python bench/bench_index.py
	$(BIN)/python bench/bench_native.py
	$(BIN)/python bench/bench_edits.py
	$(BIN)/python bench/bench_typing.py
	$(BIN)/python bench/bench_memory.py
	$(BIN)/python bench/bench_mcp.py
	$(BIN)/python bench/bench_lsp.py
	$(BIN)/python bench/bench_grep.py
	$(BIN)/python bench/bench_search.py
	$(BIN)/python bench/bench_repomap.py
	$(BIN)/python bench/bench_mcp_tokens.py
	$(BIN)/python bench/bench_polyglot.py
	$(BIN)/python bench/bench_hostile.py
	$(BIN)/python bench/bench_capi.py /usr/share/rubygems-integration ActiveRecord::Base --iterations 2000
	$(BIN)/python bench/bench_cli.py
	$(BIN)/python bench/bench_web.py
	$(BIN)/python bench/bench_lsp_editing.py

lint: $(STAMP)
	$(BIN)/pip install --quiet ruff
	$(BIN)/ruff check rdx rdx_mcp bindings tests bench
	$(BIN)/pip install --quiet mypy
	$(BIN)/mypy rdx --ignore-missing-imports

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache bindings/build
