# Everything installs itself into .venv on first use; `make test` and `make run` are the quick start.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint run bench bot-bench replay clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bot tests
	$(BIN)/mypy bot

test: lint
	$(BIN)/pytest -q

run: $(STAMP)
	$(BIN)/python -m bot

bench: $(STAMP)
	$(BIN)/python -m bot.engine.bench

bot-bench: $(STAMP)
	$(BIN)/python -m bot.bench --tables 100

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
