# `make run` and `make test` work on a fresh clone: each creates or updates .venv itself.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8050

.PHONY: run test test-fast bench chromium lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

# Browser tests use Debian's Chromium (Playwright cannot download browsers here).
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: $(STAMP)
	$(VENV)/bin/llm-roofline serve --host $(HOST) --port $(PORT)

# ruff: lint rules (bugbear, bandit, ...) and formatting, configured in pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: $(STAMP) chromium lint
	$(PY) -m pytest

# Engine, API and figure tests only (no browser).
test-fast: $(STAMP)
	$(PY) -m pytest --ignore=tests/e2e

bench: $(STAMP)
	$(PY) scripts/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache
