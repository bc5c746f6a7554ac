"""bisection: the binary's records under both MPIs at 2 and 3 ranks (3: one rank sits each
matching out), the data check that bites, bad input as one line with exit status 2 (binary and
command line). Behaviour only: no rate is asserted; the simulated platform with a degraded link is
tests/simulate/test_bisection_planted.py."""
import math

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich
from hpceval.records import parse_record

ARGS = ["--bytes", "64K", "--matchings", "2"] + QUICK


def _run(bindir, mpi, nranks, args):
    return (launch(bindir, "bisection", args, nranks) if mpi == "openmpi"
            else launch_mpich("bisection", args, nranks))


@pytest.mark.parametrize("mpi, nranks", [("openmpi", 2), ("mpich", 3), ("mpich", 4)])
def test_every_matching_pairs_the_ranks_and_says_its_aggregate(bindir, mpi, nranks):
    p = _run(bindir, mpi, nranks, ARGS)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    results = [r for r in recs if r["type"] == "result"]
    pairs = nranks // 2
    assert len(results) == 2 * (pairs + 1)
    for m in (0, 1):
        mine = [r for r in results if r["params"]["matching"] == m]
        pr = [r for r in mine if r["metric"] == "pair_bandwidth"]
        [agg] = [r for r in mine if r["metric"] == "aggregate_bandwidth"]
        ends = [e for r in pr for e in (r["params"]["src"], r["params"]["dst"])]
        assert len(pr) == pairs and len(set(ends)) == 2 * pairs          # a matching
        assert set(ends) <= set(range(nranks))
        assert agg["params"]["pairs"] == pairs
    for r in results:
        s = r["stats"]
        assert r["unit"] == "MB/s" and r["params"]["bytes"] == 65536 and r["params"]["seed"] == 1
        assert r["check"] == "ok" and r["statistic"] == "median" and s["n"] >= 3
        assert all(math.isfinite(s[k]) and s[k] > 0 for k in ("min", "median", "max"))


def test_another_seed_draws_other_matchings(bindir):
    """(The same seed, the same matchings: tests/simulate/test_bisection_planted.py.)"""
    def matchings(args):
        p = launch_mpich("bisection", args, 3)
        assert p.returncode == 0, p.stderr[-2000:]
        return [(r["params"]["matching"], r["params"]["src"], r["params"]["dst"])
                for r in map(parse_record, p.stdout.splitlines())
                if r.get("metric") == "pair_bandwidth"]
    quick = ["--bytes", "1K", "--matchings", "6", "--budget", "0.005", "--min-reps", "3",
             "--max-reps", "3", "--warmup", "0"]
    first = matchings(quick)
    assert len(first) == 6 and len(set(first)) == 6
    assert matchings(quick + ["--seed", "7"]) != first


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_corrupt_data_is_caught(bindir, mpi):
    status, msg = error_of(_run(bindir, mpi, 2, ["--inject", "corrupt"] + ARGS))
    assert status == 1 and "data check failed: 65536-byte messages, sample 0" in msg, msg


@pytest.mark.parametrize("args, nranks, message", [
    ([], 1, "bisection needs at least 2 MPI ranks (one a node), got 1"),
    (["--matchings", "0"], 2, "option --matchings: 0 is out of range"),
    (["--bytes", "0"], 2, "option --bytes: 0 is out of range"),
])
def test_bad_input_binary(args, nranks, message):
    status, msg = error_of(launch_mpich("bisection", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip(), msg


@pytest.mark.parametrize("args, message", [
    (["--np", "1"], "bisection needs 2 ranks or more (one a node), 1 given"),
    (["--np", "2", "--set", "bisection.matchings=0"], "matchings"),
    (["--np", "2", "--set", "bisection.bytes=0"], "bytes"),
    (["--set", "bisection.min-nodes=2"], "nothing to run in bisection: bisection left out: the "
     "network needs 2 nodes or more, this allocation has 1"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "bisection", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr
