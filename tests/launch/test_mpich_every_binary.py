"""Every benchmark binary built with MPICH ('make build-mpich') runs through `hpceval run` under
mpiexec.mpich, with tiny settings: each gives results, the run is ok, and each launch names
MPICH. The catalog is read, not listed here, so a new benchmark is covered without an edit."""
from __future__ import annotations

import shutil

import pytest

from helpers import FAST, ROOT
from hpceval.catalog import BENCHMARKS

BINDIR = ROOT / "build-mpich" / "bin"
# Tiny settings, per benchmark (the catalog's defaults take minutes on 2 cores).
TINY = {
    "pingpong": ["sizes=8,64K", "refine=0"],
    "p2p": ["sizes=8", "modes=pingpong,stream", "protocols=send,isend,put-fence"],
    "collectives": ["sizes=8", "ops=barrier,allreduce,alltoall"],
    "distance": ["sizes=8"],
    "hotspot": ["sizes=1K"],
    "random2": ["sizes=8"],
    "halo": ["tile=16", "widths=1", "neighbours=4", "methods=pack,datatype,put"],
    "column": ["nlons=8", "ncols=16"],
    "sst": ["truncations=5", "levels=1", "copies=1", "alpha=0", "days=0.2"],
    "psst": ["truncation=5", "levels=1", "days=0.2", "grids=2x1", "mappings=row",
             "transposes=alltoallv", "sums=allreduce"],
    "mem-latency": ["sizes=16K,1M"],
    "mem-bandwidth": ["sizes=16K", "modes=read,triad"],
    "mem-contention": ["bytes=4M", "latency-bytes=64K", "experiments=both"],
    "stream": ["n=200000", "threads=1"],
    "hydro": ["cells=8x8x8", "steps=2"],
    "montecarlo": ["particles=2000", "cycles=2"],
    "loggp": ["sizes=0,64K", "train=8"],
    "npb-cg": ["class=S"],
    "npb-mg": ["class=S"],
    "phold": ["lps=64", "end=4", "lookahead=0.5", "remote=0.5"],
    "sweep": ["per-rank=6x6x6", "sn=4"],
    "barotropic": ["grids=32x32", "pgrids=2x1", "halos=pack", "sums=allreduce", "land=none",
                   "mappings=row"],
}


def test_every_binary_under_mpich(cli):
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not (BINDIR / "hpceval-pingpong").is_file():
        pytest.fail(f"{BINDIR} is not built: run 'make build-mpich' (make test does)")
    names = sorted(BENCHMARKS)
    missing = [n for n in names if n not in TINY]
    assert not missing, f"add tiny settings for {missing}"
    sets = [w for n in names for s in TINY[n] for w in ("--set", f"{n}.{s}")]
    p = cli("run", *names, "--np", "2", *FAST, *sets, timeout=600,
            env={"HPCEVAL_BINDIR": str(BINDIR)})
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok"
    assert {r["benchmark"] for r in run["records"]} == set(names)
    for launch in run["launches"]:
        assert launch["status"] == "ok", launch["command"]
        assert launch["meta"]["mpi_library"].startswith("MPICH"), launch["command"]
