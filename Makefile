# The two commands of the README: `make quick` and `make test`. Both install what is missing.
PYTHON ?= python3
MPICC  ?= mpicc
# The second MPI, built beside the first into build-mpich/ (make build-mpich; make test does).
MPICC_MPICH ?= mpicc.mpich
VENV   := .venv
STAMP  := $(VENV)/.hpceval-installed
# The centres' tools' venv (make tools)
TOOLS  ?= .venv-tools
TOOLS_STAMP := $(TOOLS)/.hpceval-tools
REPORT ?= hpceval-report.html
# The C core compiles on every core (one file at a time, make test's three builds left a core
# idle). The wrapper is named by its path, as hpceval build and pip install name it: the
# compile lines are then the same and make test's builds fill ccache for the tests' own.
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: quick test deps setup build build-mpich build-smpi tools clean

quick: setup build
	$(VENV)/bin/hpceval run quick
	$(VENV)/bin/hpceval report -o $(REPORT)

# Two passes: the tests that time nothing on three workers (a file's tests on one worker, in
# order; tests/conftest.py: a third worker fills the CPU the other two leave while they wait on
# launches, builds and the browser: 333-402 s against 503 s on two), then those marked `alone` (they use the virtual clusters, which pin their
# nodes to the CPUs): tests/cluster's on one worker and tests/slurm's on the other, a virtual
# cluster each, with nothing else running.
# PYTHONDONTWRITEBYTECODE emptied: with it set, each of the suite's `python -m hpceval`
# processes compiled hpceval's sources anew (0.15 s of CPU each), and pytest rewrote every test
# module's asserts again in each pass's collection; the caches go to the clone's __pycache__.
TESTENV := PYTHONDONTWRITEBYTECODE= HPCEVAL_REQUIRE_BROWSER=1 HPCEVAL_REQUIRE_CLUSTER=1 HPCEVAL_REQUIRE_SLURM=1 HPCEVAL_REQUIRE_TOOLS=1 HPCEVAL_TOOLS=$(abspath $(TOOLS))
# Everything the tests need is installed by the first install-deps.sh (the prerequisites inherit
# these): one apt-get transaction, not five.
test: export HPCEVAL_BROWSER = 1
test: export HPCEVAL_MPICH = 1
test: export HPCEVAL_SMPI = 1
test: export HPCEVAL_CAF = 1
test: export HPCEVAL_VCLUSTER = 1
test: export HPCEVAL_SLURM = 1
test: export HPCEVAL_OTF2 = 1
test: export HPCEVAL_BUILDS = 1
test: export HPCEVAL_TOOLS = 1
test: export HPCEVAL_CCACHE = 1
# The tests build the C core again (pip install, hpceval build, build variants) with the flags
# make test's own builds used: through ccache's compiler names those compile from its cache
# (a full build: 57 s cold, 5.6 s warm, the same binaries byte for byte).
test: export PATH := /usr/lib/ccache:$(PATH)
# Once deps has installed every package, the venvs (pip: mostly waiting on the registry) and the
# three builds (compiling) run side by side.
test: deps
	@$(MAKE) --no-print-directory -j5 -Otarget setup build build-mpich build-smpi tools
	$(TESTENV) $(VENV)/bin/python -m pytest -m "not alone" -n 3 --dist loadfile
	$(TESTENV) $(VENV)/bin/python -m pytest -m alone -n 2 --by-directory

deps:
	@MPICC="$(MPICC)" sh scripts/install-deps.sh

# pip's notes (running as root, a newer pip) are not for this install: quiet, errors still shown.
# --no-compile: pip would compile every module of numpy, scipy and matplotlib to bytecode (13 of
# the install's 19 s of CPU); Python compiles the ones a command imports, once, when it does.
PIP := $(VENV)/bin/python -m pip -q --disable-pip-version-check --no-input
$(STAMP): pyproject.toml
	@echo "hpceval: creating $(VENV) (hpceval and its Python dependencies)"
	@$(PYTHON) -m venv $(VENV)
	@PIP_ROOT_USER_ACTION=ignore $(PIP) install --no-compile --upgrade pip 'setuptools>=77'
	@PIP_ROOT_USER_ACTION=ignore $(PIP) install --no-compile -e '.[test]'
	@touch $@

setup: deps
	@$(MAKE) --no-print-directory $(STAMP)

# The centres' tools (ReFrame, EasyBuild, Spack's solver: packaging/requirements-tools.txt) in a
# venv of their own, which tests/packaging and tests/slurm/test_reframe.py run (docs/ci.md).
$(TOOLS_STAMP): packaging/requirements-tools.txt
	@echo "hpceval: creating $(TOOLS) (ReFrame, EasyBuild: packaging/requirements-tools.txt)"
	@$(PYTHON) -m venv $(TOOLS)
	@PIP_ROOT_USER_ACTION=ignore $(TOOLS)/bin/python -m pip -q --disable-pip-version-check --no-input install --no-compile -r $<
	@touch $@

tools:
	@HPCEVAL_TOOLS=1 MPICC="$(MPICC)" sh scripts/install-deps.sh
	@$(MAKE) --no-print-directory $(TOOLS_STAMP)

build: deps
	@echo "hpceval: building the C benchmarks with $(MPICC) (build/bin)"
	@$(MAKE) -s --no-print-directory -j$(JOBS) -C csrc MPICC="$$(command -v $(MPICC) || echo $(MPICC))"

# The same binaries built with MPICH (launch them with mpiexec.mpich; HPCEVAL_BINDIR selects).
build-mpich:
	@HPCEVAL_MPICH=1 MPICC="$(MPICC)" sh scripts/install-deps.sh
	@$(MAKE) -s --no-print-directory -j$(JOBS) -C csrc MPICC="$$(command -v $(MPICC_MPICH) || echo $(MPICC_MPICH))" BUILD=../build-mpich

# The same binaries built with SimGrid's smpicc (SMPI, docs/simulate.md): build-smpi/bin, which
# the simulated runs' tests use (hpceval itself: 'hpceval build --name smpi').
build-smpi:
	@HPCEVAL_SMPI=1 MPICC="$(MPICC)" sh scripts/install-deps.sh
	@$(MAKE) -s --no-print-directory -j$(JOBS) -C csrc core MPICC=smpicc BUILD=../build-smpi

clean:
	$(MAKE) -C csrc clean
	$(MAKE) -C csrc clean BUILD=../build-mpich
	$(MAKE) -C csrc clean BUILD=../build-smpi
	rm -rf $(VENV) $(TOOLS) *.egg-info build/pip
