"""nodecheck (csrc/mem/nodecheck.c): every rank's triad, multiply-add rate and memory latency as
one record per node under both MPIs at 2 ranks, the data check that bites, bad input as one line with exit
status 2 (binary and command line). Beside netmap's tests: acceptance's two benchmarks share
the launch helpers here. Behaviour only: no rate is asserted."""
import math

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich
from hpceval.catalog import BENCHMARKS, PlanContext
from hpceval.records import parse_record

ARGS = ["--bytes", "1M", "--chase-bytes", "1M", "--threads", "1"] + QUICK


def _run(bindir, mpi, args, nranks=2):
    return (launch(bindir, "nodecheck", args, nranks) if mpi == "openmpi"
            else launch_mpich("nodecheck", args, nranks))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_one_record_per_node_and_rate(bindir, mpi):
    p = _run(bindir, mpi, ARGS)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    results = [r for r in recs if r["type"] == "result"]
    assert [(r["metric"], r["unit"], r["better"], r["params"]["rank"]) for r in results] == [
        (m, u, b, rank) for m, u, b in (("triad", "GB/s", "higher"), ("fma", "GFLOP/s", "higher"),
                                        ("latency", "ns", "lower")) for rank in (0, 1)]
    for r in results:
        s = r["stats"]
        assert r["params"]["node"] and r["params"]["threads"] == 1
        assert r["check"] == "ok" and r["statistic"] == "median"
        assert s["n"] >= 3 and all(math.isfinite(s[k]) and s[k] > 0 for k in ("min", "median"))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_corrupt_triad_is_caught(bindir, mpi):
    status, msg = error_of(_run(bindir, mpi, ["--inject", "corrupt"] + ARGS))
    assert status == 1 and "data check failed: nodecheck triad, rank 1 thread 0" in msg, msg


@pytest.mark.parametrize("args, message", [
    (["--bytes", "1K"], "option --bytes: 1K is out of range"),
    (["--threads", "-1"], "option --threads: -1 is out of range"),
    (["--chase-bytes", "1K"], "option --chase-bytes: 1K is out of range"),
])
def test_bad_input_binary(args, message):
    # under MPICH: Open MPI's mpirun takes 2 s to end a job whose ranks exit 2
    status, msg = error_of(launch_mpich("nodecheck", args, 1))
    assert status == 2 and message in msg and "\n" not in msg.strip(), msg


def test_bad_input_cli(cli):
    p = cli("run", "nodecheck", *FAST, "--dry-run", "--set", "nodecheck.bytes=1K")
    assert p.returncode == 2 and "bytes" in one_line_error(p.stderr), p.stderr


def test_one_rank_a_node_on_every_node():
    ctx = PlanContext(cores=64, llc_bytes=32 << 20, mem_available_bytes=256 << 30, nodes=500)
    [spec] = BENCHMARKS["nodecheck"].plan({}, ctx)
    assert (spec.nranks, spec.ppn, spec.env["OMP_NUM_THREADS"]) == (500, 1, "64")
    assert spec.expected_results == 1500
