# rdx: `make run` sets everything up and indexes the built-in example; `make test` runs the suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test system-deps bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/rdx demo

# Ruby is the oracle of the differential tests; Rails and RuboCop are the real-world corpus.
system-deps:
	scripts/install-system-deps

test: $(STAMP) system-deps
	$(BIN)/python -m pytest

bench: $(STAMP) system-deps
	$(BIN)/python bench/bench_index.py
	$(BIN)/python bench/bench_mcp.py

lint: $(STAMP)
	$(BIN)/pip install --quiet ruff
	$(BIN)/ruff check rdx rdx_mcp tests bench
	$(BIN)/pip install --quiet mypy
	$(BIN)/mypy rdx --ignore-missing-imports

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
