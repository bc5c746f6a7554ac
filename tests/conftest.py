"""Shared fixtures: the real command line and the real binaries, small sizes, 2 ranks."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import BIN, CLI, clear_stale_clusters
from hpceval.views import load_rows

# In-process tests see every benchmark's card and headline rows, as the command line does
# (hpceval/cli loads the views; the analysis itself knows no benchmark).
load_rows()


# The workers (make test's first pass, pytest-xdist's `--dist loadfile`) take whole files, in
# their order: a module's fixtures run once and the tests that build on one another stay together.
# (Not xdist_group marks: xdist 3.8 writes its group into a node id that pytest 9 no longer
# reads, so every test was scheduled alone and a split file ran its module fixtures twice.)
# The directories whose session fixture owns a machine-wide resource (a virtual cluster) run in
# the second pass: one worker each, nothing else beside them.
WHOLE_DIRECTORIES = ("cluster", "slurm")


# The longest files of the first pass (25-60 s each on a 2-core machine) go first: the workers
# take files in order, and one of these left last ran alone while the other worker sat idle.
LONGEST_FIRST = ("simulate/test_study64.py", "test_cbuild.py", "experiment/test_kind_builds.py",
                 "catalog/test_defaults_run.py", "cli/test_build.py", "report/test_browser.py",
                 "report/test_report_proxies.py", "report/test_figures_adversarial.py",
                 "kernels/test_dense.py", "benchmarks/test_store_scale.py")


# The second pass runs tests/cluster and tests/slurm side by side (--by-directory); the two-node
# studies, which run for their whole budget and leave out what does not fit in it, go last,
# once the Slurm directory (70-90 s) has left the CPUs to them.
LAST = ("cluster/test_study.py",)


def _place(here: Path, item) -> int:
    rel = Path(str(item.fspath)).relative_to(here).as_posix()
    if rel in LONGEST_FIRST:
        return LONGEST_FIRST.index(rel) - len(LONGEST_FIRST)
    return 1 if rel in LAST else 0


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    items.sort(key=lambda item: _place(here, item))      # stable: a file's tests stay in order
    for item in items:
        rel = Path(str(item.fspath)).relative_to(here)
        # the virtual clusters pin their nodes to the CPUs: beside another test's ranks, MPICH
        # across two nodes timed out and a Slurm job's driver was killed before it could say
        # "timeout" (a fresh-clone run).
        if rel.parts[0] in WHOLE_DIRECTORIES:
            item.add_marker(pytest.mark.alone)


def pytest_addoption(parser):
    parser.addoption("--by-directory", action="store_true",
                     help="with -n: a directory's tests on one worker, in order (the second pass: "
                          "tests/cluster's virtual cluster on one, tests/slurm's on the other)")


def pytest_xdist_make_scheduler(config, log):
    """--by-directory: xdist's load-by-scope, the scope a test's directory."""
    if not config.getoption("by_directory"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByDirectory(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0].rsplit("/", 1)[0]
    return ByDirectory(config, log)


def pytest_sessionstart(session):
    """A test session first removes the virtual clusters that killed sessions left (their
    namespaces, processes and state), once, in the controller (not in each xdist worker)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or os.geteuid() != 0:
        return
    from hpceval.vcluster import VclusterError
    try:
        gone = clear_stale_clusters()
    except VclusterError as exc:
        sys.stderr.write(f"tests: could not clear a killed session's virtual cluster: {exc}\n")
        return
    for d in gone:
        sys.stderr.write(f"tests: cleared {d}, left by a killed test session\n")


@pytest.fixture(scope="session", autouse=True)
def test_environment(tmp_path_factory) -> None:
    """Every test's hpceval sees a data directory of its session (worker), never the user's: a
    build there would otherwise become every later command's binaries (paths.bin_dir). No
    terminal size: xdist's workers set COLUMNS=80, which narrows the tables tests read (a test
    of widths sets its own). OpenMP threads wait passively; Open MPI keeps its session
    directories in the worker's own."""
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
    # OpenMP threads that spin at barriers while the other worker's ranks hold a core lose whole
    # time slices at every barrier: a threads=2 memory benchmark ran into its 78 s limit beside
    # them. Tests check answers and limits, not these rates: the threads sleep when they wait.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    # Open MPI's singletons (a binary run without mpirun) share one session directory, and one
    # that ends removes it under another that starts: MPI_Init failed in 5 of 300 started six at
    # a time, 0 of 300 with a directory each. Each worker gets its own.
    os.environ["OMPI_MCA_orte_tmpdir_base"] = str(tmp_path_factory.mktemp("ompi"))
    pml = _open_mpi_pml()
    if pml:
        os.environ["OMPI_MCA_pml"] = pml


def _open_mpi_pml() -> str:
    """The PML this machine's Open MPI selects by itself ('' when unknown or set already).
    Selecting opens every PML component to ask it (Debian's ucx and cm with their transports):
    0.2 s of each 0.34 s launch here, for ob1 in the end. Naming the one it would select gives
    every test the same MPI path in 0.13 s; the suite runs hundreds of launches."""
    probe = BIN / "hpceval-stream"
    if "OMPI_MCA_pml" in os.environ or not shutil.which("mpirun") or not probe.is_file():
        return ""
    try:
        p = subprocess.run(["mpirun", "--allow-run-as-root", "-n", "1", "--mca", "pml_base_verbose",
                            "10", str(probe), "--n", "1000", "--max-reps", "1", "--min-reps", "1",
                            "--budget", "0"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = re.search(r"selected (\w+) best priority", p.stderr + p.stdout)
    return m.group(1) if m and p.returncode == 0 else ""


@pytest.fixture
def cli(tmp_path: Path) -> CLI:
    return CLI(tmp_path / "results.sqlite")


@pytest.fixture(scope="session")
def bindir() -> Path:
    from hpceval.catalog import BENCHMARKS, PlanContext
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    binaries = {spec.binary for b in BENCHMARKS.values() for spec in b.plan({}, ctx)}
    for name in sorted(binaries):
        if not os.access(BIN / f"hpceval-{name}", os.X_OK):
            pytest.fail(f"{BIN}/hpceval-{name} is not built: run 'make build' (make test does)")
    return BIN
