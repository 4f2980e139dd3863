# The two commands of the README: `make demo` and `make test`. Both set up .venv from the
# project's own files (pyproject.toml) on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := build/demo

.PHONY: all install install-dev test check demo bench clean catalogs schema-checks

all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A non-editable install, so that every run checks that the package (schemas included) installs.
# setuptools' build/lib would carry modules that no longer exist into the install: cleared first.
install: $(BIN)/python
	rm -rf build/lib build/bdist.*
	$(BIN)/python -m pip install --quiet --disable-pip-version-check '.[test]'

# The linter and the type checker (pyproject.toml's dev extra and their settings there).
install-dev: $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check '.[test,dev]'

# ruff over the whole package, its tests, its benchmarks and its scripts, with pyproject.toml's
# rules; mypy checks the files pyproject.toml names.
RUFF_PATHS := rebis_pbm tests bench scripts

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

# The gettext catalogs of the players' languages (rebis_pbm.present.i18n, docs/views.md "Languages"):
# extract the messages marked in the source into the template (.pot), merge it into each
# language's .po (new messages come untranslated: translate them, then run this again), and
# compile the .mo files the package reads. All three are committed; tests/test_i18n.py fails
# when they are out of step with the source.
LOCALE := rebis_pbm/locale
BABEL_KEYWORDS := -k N_ -k n_:1,2

catalogs: install
	$(BIN)/pybabel extract --no-location --sort-output --project rebis-pbm --version 0.1.0 \
	    --msgid-bugs-address "" $(BABEL_KEYWORDS) -o $(LOCALE)/rebis_pbm.pot rebis_pbm
	$(BIN)/pybabel update --no-fuzzy-matching --ignore-obsolete -i $(LOCALE)/rebis_pbm.pot \
	    -d $(LOCALE) -D rebis_pbm
	$(BIN)/pybabel compile -d $(LOCALE) -D rebis_pbm --statistics

# fastjsonschema's compiled check of the move schema, generated once instead of at every start
# (rebis_pbm/formats/_fastchecks/, used only while it matches the schema's text and the installed
# fastjsonschema). Run after changing schemas/move.schema.json; tests/test_schemas_fast.py fails
# when it is stale.
schema-checks: install
	$(BIN)/python scripts/compile-schema-checks.py
