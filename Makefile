# The two commands of the README: `make quick` and `make test`. Both install what is missing.
PYTHON ?= python3
MPICC  ?= mpicc
VENV   := .venv
STAMP  := $(VENV)/.hpceval-installed
REPORT ?= hpceval-report.html

.PHONY: quick test deps setup build clean

quick: setup build
	$(VENV)/bin/hpceval run quick
	$(VENV)/bin/hpceval report -o $(REPORT)

test: setup build
	@HPCEVAL_BROWSER=1 MPICC="$(MPICC)" sh scripts/install-deps.sh
	HPCEVAL_REQUIRE_BROWSER=1 $(VENV)/bin/python -m pytest

deps:
	@MPICC="$(MPICC)" sh scripts/install-deps.sh

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -e '.[test]'
	touch $@

setup: deps
	@$(MAKE) --no-print-directory $(STAMP)

build: deps
	@$(MAKE) --no-print-directory -C csrc MPICC="$(MPICC)"

clean:
	$(MAKE) -C csrc clean
	rm -rf $(VENV) *.egg-info
