"""netmap: the binary's records under both MPIs at 2 ranks (and 3: three phases a round), the
data check that bites, bad input as one line with exit status 2 (binary and command line), the
rounds the plan samples above all-rounds nodes. Behaviour only: no rate is asserted; the map
of a simulated platform with planted faults is tests/simulate/test_acceptance_planted.py."""
import math
import time

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich
from hpceval.catalog import BENCHMARKS, PlanContext
from hpceval.catalog.bench_netmap import pairs_of, shifts
from hpceval.records import parse_record

ARGS = ["--bytes", "64K"] + QUICK


def _run(bindir, mpi, nranks, args):
    return (launch(bindir, "netmap", args, nranks) if mpi == "openmpi"
            else launch_mpich("netmap", args, nranks))


@pytest.mark.parametrize("mpi, nranks", [("openmpi", 2), ("mpich", 2), ("openmpi", 3)])
def test_records_name_both_ends_and_every_pair_once(bindir, mpi, nranks):
    p = _run(bindir, mpi, nranks, ARGS)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    assert recs[0]["options"]["sampled"] is False
    # ranks of one machine share its node: said, and the map still made
    assert any(r["type"] == "warning" and "measure the node, not the network" in r["message"]
               for r in recs)
    results = [r for r in recs if r["type"] == "result"]
    pairs = {frozenset((r["params"]["src"], r["params"]["dst"])) for r in results}
    assert len(pairs) == nranks * (nranks - 1) // 2 and len(results) == 2 * len(pairs)
    for r in results:
        s, par = r["stats"], r["params"]
        assert (r["metric"], r["unit"], par["bytes"]) in (("latency", "us", 8),
                                                          ("bandwidth", "MB/s", 65536))
        assert par["src_node"] and par["src_node"] == par["dst_node"]    # one machine
        assert par["rounds"] == par["rounds_total"] == nranks // 2
        assert 1 <= par["shift"] <= nranks // 2
        assert r["check"] == "ok" and r["statistic"] == "median" and s["n"] >= 3
        assert all(math.isfinite(s[k]) and s[k] > 0 for k in ("min", "median", "max"))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_corrupt_data_is_caught(bindir, mpi):
    status, msg = error_of(_run(bindir, mpi, 2, ["--inject", "corrupt"] + ARGS))
    assert status == 1 and "data check failed: 8-byte messages, sample 0" in msg, msg


@pytest.mark.parametrize("args, nranks, message", [
    ([], 1, "netmap needs at least 2 MPI ranks (one a node), got 1"),
    (["--shifts", "2"], 2, "--shifts: 2 is not a shift 1..1 in ascending order"),
    (["--bytes", "0"], 2, "option --bytes: 0 is out of range"),
])
def test_bad_input_binary(args, nranks, message):
    # under MPICH: Open MPI's mpirun takes 2 s to end a job whose ranks exit 2
    status, msg = error_of(launch_mpich("netmap", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip(), msg


@pytest.mark.parametrize("args, message", [
    (["--np", "1"], "netmap needs 2 ranks or more (one a node), 1 given"),
    (["--np", "2", "--set", "netmap.bytes=0"], "bytes"),
    (["--np", "2", "--set", "netmap.rounds=1"], "rounds"),
    (["--np", "2", "--set", "netmap.min-nodes=3"], "min-nodes"),
    (["--set", "netmap.min-nodes=2"], "nothing to run in netmap: netmap left out: the network "
     "needs 2 nodes or more, this allocation has 1"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "netmap", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr


def test_rounds_sampled_above_all_rounds_keep_the_nearest_and_farthest():
    v = BENCHMARKS["netmap"].settings({})
    assert shifts(64, v) == list(range(1, 33))            # every round: every pair
    assert pairs_of(64, shifts(64, v)) == 64 * 63 // 2
    ks = shifts(10_000, v)
    assert len(ks) == v["rounds"] and ks[0] == 1 and ks[-1] == 5_000 and ks == sorted(set(ks))
    assert shifts(10_000, {**v, "seed": 2}) != ks and shifts(10_000, v) == ks


def test_planning_ten_thousand_nodes_takes_little_time():
    ctx = PlanContext(cores=64, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=10_000)
    t0 = time.perf_counter()
    [spec] = BENCHMARKS["netmap"].plan({}, ctx)
    assert time.perf_counter() - t0 < 1.0
    assert spec.nranks == 10_000 and spec.ppn == 1
    assert spec.args[spec.args.index("--shifts") + 1].count(",") == 15
    assert any("16 of 5000 rounds sampled" in n for n in ctx.notes), ctx.notes


def test_the_heat_map_draws_both_quantities_and_marks_the_outlier_node():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    [heat] = [f for f in FIGURES if f.benchmark == "netmap"]
    names = [f"n{i}" for i in range(6)]

    def rec(a, b, metric, v):
        return {"benchmark": "netmap", "metric": metric, "unit": "us", "statistic": "median",
                "better": "lower" if metric == "latency" else "higher",
                "params": {"bytes": 8, "src": a, "dst": b, "src_node": names[a],
                           "dst_node": names[b], "shift": 1, "rounds": 3, "rounds_total": 3},
                "stats": {"median": v, "n": 5}}
    recs = [rec(a, b, m, (500.0 if 4 in (a, b) else 1000.0) if m == "bandwidth" else 1.5)
            for a in range(6) for b in range(a + 1, 6) for m in ("latency", "bandwidth")]
    fig = heat.make([{"id": 1, "records": recs}])
    lat, bw, _, _ = fig.axes             # two maps, then their colour bars
    assert lat.images[0].get_array().shape == (6, 6)
    red = [t.get_text() for t in bw.get_xticklabels() if t.get_color() == "crimson"]
    assert red == ["n4"] and "red: outlier nodes" in fig._suptitle.get_text()
    assert heat.make([{"id": 1, "records": []}]) is None


def test_a_node_lost_mid_map_keeps_the_rounds_before_and_names_the_pairs_lost():
    """--inject die: the last rank exits before the last round (MPICH: Open MPI takes 2 s to end
    the job); the first round's pairs were written, and the analysis names the two not
    measured."""
    from hpceval.analysis.netmap import unmeasured_lines
    p = launch_mpich("netmap", ["--inject", "die"] + ARGS, 4)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.startswith("{")]
    results = [r for r in recs if r["type"] == "result"]
    assert p.returncode != 0 and not any(r["type"] == "end" for r in recs)
    assert len(results) == 8 and {r["params"]["shift"] for r in results} == {1}
    launch = {"benchmark": "netmap", "label": "netmap np=4 rounds=2", "status": "failed",
              "message": "rank 3 exited with status 7", "nranks": 4, "meta": recs[0]}
    [line] = unmeasured_lines({"records": results, "launches": [launch]})
    assert "4 of 6 pairs measured and judged; 2 failed" in line
    assert line.endswith("/rank 0 - " + results[0]["params"]["src_node"] + "/rank 2, "
                         + results[0]["params"]["src_node"] + "/rank 1 - "
                         + results[0]["params"]["src_node"] + "/rank 3)")
    assert unmeasured_lines({"records": results, "launches": [{**launch, "status": "ok"}]}) == []
