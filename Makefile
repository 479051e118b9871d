# The whole set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files make the installs idempotent: they rerun only when pyproject.toml changes.
$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/agentprompt inspect --profile demo --task "Explain how this repository is organised."

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	$(BIN)/pytest

test: lint typecheck pytest

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/compose_bench.py
	$(BIN)/python bench/edits_bench.py
	$(BIN)/python bench/map_bench.py
	$(BIN)/python bench/discovery_bench.py
	$(BIN)/python bench/agent_bench.py
	$(BIN)/python bench/tiers_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
