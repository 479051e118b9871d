# The whole set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck pytest bench stress clean chromium

# Playwright drives Debian's Chromium; it must never download a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
CHROMIUM := /usr/bin/chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files make the installs idempotent: they rerun only when pyproject.toml changes.
# The default install includes the web page's extra: the README's commands (agentprompt ui
# too) work after make demo.
$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[ui]'
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

# The copy-paste bridge on a temporary copy of examples/bridge/repo: pack (browse mode,
# copied to the clipboard, or printed and saved when there is none), then a dry run of the
# sample reply, showing the coloured diff and the next prompt. No network, no model.
demo: $(VENV)/.installed
	@set -e; demo=$$(mktemp -d); trap 'rm -rf "$$demo"' EXIT; \
	cp -R examples/bridge/repo "$$demo/repo"; \
	printf '\n== 1/3  agentprompt pack --task ...: the prompt you paste into a web chat model\n'; \
	printf '        (browse mode: the file structure and signatures; --copy puts it on the clipboard)\n\n'; \
	$(BIN)/agentprompt pack --root "$$demo/repo" --lang en \
		--task "parseJSON throws on invalid input; make it return null and report the error."; \
	printf '\n== 2/3  the model'"'"'s reply you copy back (examples/bridge/reply.md):\n'; \
	printf '        it patches src/utils.ts and src/index.ts and asks for scripts/report.py\n\n'; \
	cat examples/bridge/reply.md; \
	printf '\n== 3/3  agentprompt apply --dry-run examples/bridge/reply.md: what it would change,\n'; \
	printf '        and the next prompt (a follow-up: only the file the model asked for)\n\n'; \
	$(BIN)/agentprompt apply examples/bridge/reply.md --root "$$demo/repo" --dry-run

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports --no-cache

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The web page's browser tests (tests/web) need Debian's chromium package (and an emoji
# font, so the snippet icons show in their screenshots): installed when missing
# (idempotent; sudo only when not root).
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
chromium:
	@if [ ! -x $(CHROMIUM) ] || [ ! -f $(EMOJI_FONT) ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -q && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			chromium fonts-noto-color-emoji; \
	fi

pytest: $(VENV)/.installed-dev chromium
	$(BIN)/pytest

test: lint typecheck pytest

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/compose_bench.py
	$(BIN)/python bench/edits_bench.py
	$(BIN)/python bench/map_bench.py
	$(BIN)/python bench/discovery_bench.py
	$(BIN)/python bench/agent_bench.py
	$(BIN)/python bench/tiers_bench.py
	$(BIN)/python bench/pack_bench.py
	$(BIN)/python bench/peers.py
	$(BIN)/python bench/peers_diff_bench.py
	$(BIN)/python bench/peers_map_bench.py
	$(BIN)/python bench/peers_pack_bench.py

# The adversarial probe's shapes at full counts (tests/stress runs them small).
stress: $(VENV)/.installed-dev
	$(BIN)/python bench/stress_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
