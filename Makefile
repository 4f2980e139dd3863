# The two commands of the README: `make demo` and `make test`. Both set up .venv from the
# project's own files (pyproject.toml) on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := build/demo

.PHONY: all install install-dev test check demo bench clean

all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A non-editable install, so that every run checks that the package (schemas included) installs.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check '.[test]'

# The linter and the type checker (pyproject.toml's dev extra and their settings there).
install-dev: $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check '.[test,dev]'

# ruff over the engine and its tests only for now: the rest of the tree is being restructured
# (issue 11) and will join RUFF_PATHS once its findings are fixed. mypy checks the files that
# pyproject.toml names (the engine, strict).
RUFF_PATHS := rebis_pbm/engine tests/test_engine_enums.py tests/test_information_set.py \
	tests/test_information_sets.py tests/test_legal_moves.py tests/test_properties.py \
	tests/test_rules_end.py tests/test_rules_setup.py tests/test_rules_turn.py tests/test_shuffle.py

check: install-dev
	$(BIN)/ruff check $(RUFF_PATHS)
	$(BIN)/mypy

test: install
	$(BIN)/pytest -q -p no:cacheprovider

demo: install
	PATH="$(CURDIR)/$(BIN):$$PATH" bash examples/play-example.sh $(DEMO)

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info
