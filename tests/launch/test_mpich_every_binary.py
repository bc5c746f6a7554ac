"""Every benchmark binary built with MPICH ('make build-mpich') runs through `hpceval run` under
mpiexec.mpich, with tiny settings: each gives results, the run is ok, and each launch names
MPICH. The catalog is read, not listed here, so a new benchmark is covered without an edit."""
from __future__ import annotations

import json
import shutil

import pytest

from helpers import FAST, ROOT
from hpceval.catalog import BENCHMARKS

BINDIR = ROOT / "build-mpich" / "bin"
# Tiny settings, per benchmark (the catalog's defaults take minutes on 2 cores): each
# benchmark's declared `tiny` (tests/catalog/test_defaults_run.py runs them under Open MPI).
TINY = {name: list(b.tiny) for name, b in BENCHMARKS.items()}


def test_every_binary_under_mpich(cli):
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not (BINDIR / "hpceval-pingpong").is_file():
        pytest.fail(f"{BINDIR} is not built: run 'make build-mpich' (make test does)")
    names = sorted(BENCHMARKS)
    # what the MPICH build leaves out (OpenSHMEM's benchmarks: MPICH has none), with its reason
    left = json.loads((BINDIR / "buildinfo.json").read_text())["left_out"]
    assert all(isinstance(why, str) and why for why in left.values())
    sets = [w for n in names for s in TINY[n] for w in ("--set", f"{n}.{s}")]
    p = cli("run", *names, "--np", "2", *FAST, *sets, timeout=600,
            env={"HPCEVAL_BINDIR": str(BINDIR)})
    assert p.returncode == 0, p.stderr
    said = " ".join((p.stdout + p.stderr).split())
    assert all(f"{n} left out: not in this build ({left[n]})" in said for n in left), said
    (run,) = cli.export("latest")
    assert run["status"] == "ok"
    assert {r["benchmark"] for r in run["records"]} == set(names) - set(left)
    for launch in run["launches"]:
        assert launch["status"] == "ok", launch["command"]
        assert launch["meta"]["mpi_library"].startswith("MPICH"), launch["command"]
