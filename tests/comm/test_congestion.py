"""congestion: the binary's records under both MPIs at 4 ranks (2 victims, 2 aggressors), the
data check that bites, bad input as one line with exit status 2 (binary and command line).
Behaviour only: no rate is asserted here; the ratio on a simulated platform is
tests/simulate/test_congestion_sim.py."""
import math

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich
from hpceval.analysis.congestion import impacts
from hpceval.records import parse_record

ARGS = ["--bytes", "16K", "--aggressor-bytes", "4K"] + QUICK


def _run(bindir, mpi, nranks, args):
    return (launch(bindir, "congestion", args, nranks) if mpi == "openmpi"
            else launch_mpich("congestion", args, nranks))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_three_metrics_alone_and_beside_each_pattern(bindir, mpi):
    p = _run(bindir, mpi, 4, ARGS)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    results = [r for r in recs if r["type"] == "result"]
    assert sorted((r["metric"], r["params"]["condition"]) for r in results) == sorted(
        (m, c) for m in ("latency", "bandwidth", "allreduce")
        for c in ("isolated", "incast", "alltoall"))
    for r in results:
        s = r["stats"]
        assert (r["params"]["victims"], r["params"]["aggressors"]) == (2, 2)
        assert r["params"]["bytes"] == (16384 if r["metric"] == "bandwidth" else 8)
        assert r["check"] == "ok" and r["statistic"] == "median" and s["n"] >= 3
        assert all(math.isfinite(s[k]) and s[k] > 0 for k in ("min", "median", "max"))
    found = impacts(results)
    assert len(found) == 6 and all(e["median_ratio"] > 0 for e in found)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_corrupt_data_is_caught(bindir, mpi):
    status, msg = error_of(_run(bindir, mpi, 4, ["--inject", "corrupt"] + ARGS))
    assert status == 1 and "data check failed: 8-byte messages, sample 0" in msg, msg


@pytest.mark.parametrize("args, nranks, message", [
    ([], 3, "congestion needs at least 4 MPI ranks (2 victims, 2 aggressors; one a node), got 3"),
    (["--victims-percent", "0"], 4, "option --victims-percent: 0 is out of range"),
    (["--bytes", "0"], 4, "option --bytes: 0 is out of range"),
])
def test_bad_input_binary(args, nranks, message):
    status, msg = error_of(launch_mpich("congestion", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip(), msg


@pytest.mark.parametrize("args, message", [
    (["--set", "congestion.ranks=3"], "ranks"),
    (["--np", "4", "--set", "congestion.victims-percent=0"], "victims-percent"),
    (["--set", "congestion.min-nodes=4"], "nothing to run in congestion: congestion left out: "
     "victims and aggressors need 4 nodes or more, this allocation has 1"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "congestion", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr
