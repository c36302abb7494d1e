# Thin aliases onto nox. When uv or nox is not on PATH, both are bootstrapped into
# .tools/ (git-ignored) with python3 -m venv + pip, so Python 3.11+ and make suffice.
SHELL := /bin/bash
.DEFAULT_GOAL := help

TOOLS := $(CURDIR)/.tools
UV_VERSION := 0.13.9
NOX_VERSION := 2026.10.20
HAVE_TOOLS := $(shell command -v uv >/dev/null 2>&1 && command -v nox >/dev/null 2>&1 && echo yes)

ifeq ($(HAVE_TOOLS),yes)
BOOTSTRAP :=
else
BOOTSTRAP := $(TOOLS)/bin/nox
export PATH := $(TOOLS)/bin:$(PATH)
endif
NOX := nox

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(TOOLS)/bin/nox:
	@echo "uv/nox not found on PATH: bootstrapping them into .tools/" >&2
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet "uv==$(UV_VERSION)" "nox==$(NOX_VERSION)"

tools: $(BOOTSTRAP) ## Make sure uv and nox are available (bootstraps .tools/ if needed)
	@uv --version && nox --version

evals: $(BOOTSTRAP) ## Run every suite, write reports/, print the report and the gate verdict
	$(NOX) -s evals gate

gate: $(BOOTSTRAP) ## Compare all suites (flaky excluded) with reports/baseline.json
	$(NOX) -s gate

baseline: $(BOOTSTRAP) ## Regenerate reports/baseline.json deliberately
	$(NOX) -s baseline

test: $(BOOTSTRAP) ## Run every package's tests, each in its own venv
	$(NOX) -s tests

lint: $(BOOTSTRAP) ## ruff format --check and ruff check
	$(NOX) -s lint

typecheck: $(BOOTSTRAP) ## mypy --strict over every package's src/
	$(NOX) -s typecheck

lock-check: $(BOOTSTRAP) ## Check that uv.lock matches the pyproject files
	uv lock --check

.PHONY: help tools evals gate baseline test lint typecheck lock-check
