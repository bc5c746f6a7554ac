"""msgrate: the binary's records at 1 and 2 pairs under both MPIs, the data check that bites, bad
input as one line with exit status 2 (binary and command line), its place in the suite and the
study. Behaviour only: no rate is asserted."""
import math

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich, run_twice_and_compare
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.registry import STUDY, SUITES
from hpceval.records import parse_record

SIZES = [8, 65536]


def _run(bindir, mpi, nranks, args):
    return (launch(bindir, "msgrate", args, nranks) if mpi == "openmpi"
            else launch_mpich("msgrate", args, nranks))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("nranks", [2, 4])
def test_records_per_size_and_metric(bindir, mpi, nranks):
    p = _run(bindir, mpi, nranks, ["--sizes", ",".join(map(str, SIZES)), "--window", "16"]
             + QUICK)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    results = [r for r in recs if r["type"] == "result"]
    got = [(r["params"]["bytes"], r["metric"], r["unit"]) for r in results]
    assert got == [(n, m, u) for n in SIZES
                   for m, u in (("message_rate", "Mmsg/s"), ("bandwidth", "MB/s"))]
    for r in results:
        s = r["stats"]
        assert r["params"] == {"bytes": r["params"]["bytes"], "pairs": nranks // 2, "window": 16,
                               "nranks": nranks}
        assert r["better"] == "higher" and r["statistic"] == "median" and r["check"] == "ok"
        assert s["n"] >= 3 and r["windows_per_sample"] >= 1
        assert all(math.isfinite(s[k]) and s[k] > 0 for k in ("min", "median", "max"))
        assert s["min"] <= s["median"] <= s["max"]
    # both metrics come from the same samples: bandwidth = rate x size
    rate, bw = results[0]["stats"]["median"], results[1]["stats"]["median"]
    assert bw == pytest.approx(rate * SIZES[0], rel=1e-3)


def test_fewer_pairs_than_ranks_allow(bindir):
    p = launch(bindir, "msgrate", ["--sizes", "8", "--pairs", "1"] + QUICK, 4)
    assert p.returncode == 0, p.stderr[-2000:]
    results = [parse_record(l) for l in p.stdout.splitlines() if '"result"' in l]
    assert {r["params"]["pairs"] for r in results} == {1}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_corrupt_data_is_caught(bindir, mpi):
    status, msg = error_of(_run(bindir, mpi, 4, ["--sizes", "8,1K", "--inject", "corrupt"]
                                + QUICK))
    assert status == 1 and "data check failed: msgrate, 2 pairs, 8-byte" in msg
    assert "rank 2 received a wrong byte from rank 0" in msg


@pytest.mark.parametrize("args, nranks, message", [
    ([], 3, "msgrate needs an even number of MPI ranks, got 3"),
    (["--pairs", "2"], 2, "option --pairs: 2 pairs need 4 ranks, got 2"),
    (["--window", "0"], 2, "option --window: 0 is out of range"),
    (["--sizes", "0"], 2, "option --sizes: 0 is out of range"),
])
def test_bad_input_binary(bindir, args, nranks, message):
    status, msg = error_of(launch(bindir, "msgrate", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip()


@pytest.mark.parametrize("args, message", [
    (["--np", "3"], "msgrate needs an even number of ranks (2 or more), 3 given"),
    (["--np", "2", "--set", "msgrate.pairs=2"], "2 pairs need 4 ranks, 2 given"),
    (["--set", "msgrate.window=0"], "window: 0 is out of range"),
    (["--set", "msgrate.ranks=2,5"], "5 given"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "msgrate", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr


def test_in_the_comm_suite_and_the_study():
    assert "msgrate" in [b for b, _ in SUITES["comm"].entries]
    [(_, settings)] = [e for e in STUDY if e[0] == "msgrate"]
    assert settings["ranks"] == "node>=2,cross"
    assert BENCHMARKS["msgrate"].param("window").default == 64


def _rec(pairs, nbytes, rate, nodes=("a",)):
    return {"benchmark": "msgrate", "metric": "message_rate", "unit": "Mmsg/s",
            "better": "higher", "statistic": "median",
            "params": {"bytes": nbytes, "pairs": pairs, "window": 64, "nranks": 2 * pairs},
            "stats": {"median": rate, "ci_low": rate, "ci_high": rate, "n": 10},
            "where": {"nodes": list(nodes), "placement": "one node"}}


RUN = {"records": [_rec(p, n, p * 1e3 / n) for p in (1, 2, 4) for n in (1, 8, 1024)]
       + [_rec(8, n, 1.0, ("a", "b")) for n in (1, 64)],
       "launches": [], "fingerprint": {"cores": 8}}


def test_card_and_headline_take_the_most_pairs_at_8_bytes():
    import hpceval.views
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    hpceval.views.load_rows()
    rows = {r["section"]: r for r in machine_card(RUN) if r["quantity"].startswith("Message rate")}
    assert rows["MPI intra-node"]["value"] == 500.0        # 4 pairs, 8 B
    assert rows["MPI intra-node"]["point"].startswith("8 B, 4 pairs at once")
    assert rows["MPI inter-node"]["point"].startswith("1 B, 8 pairs")  # the nearest size there
    heads = {h["label"]: h["record"]["params"] for h in headlines(RUN["records"])
             if h["label"].startswith("Message rate")}
    assert heads == {"Message rate, 8 B, most pairs in a node": RUN["records"][7]["params"],
                     "Message rate, 1 B, most pairs across nodes": RUN["records"][9]["params"]}


def test_the_card_takes_the_most_pairs_that_had_a_core_each():
    """On 2 cores the comm suite's 2 pairs are 4 ranks: the card row takes 1 pair, and the
    oversubscribed count only when it is all there is, saying so."""
    import hpceval.views
    from hpceval.analysis.card import machine_card
    hpceval.views.load_rows()
    launches = [{"benchmark": "msgrate", "nranks": n, "meta": {"nranks": n, "hosts": ["a"] * n},
                 "warnings": []} for n in (2, 4)]
    run = {"records": [_rec(p, 8, 10.0 * p) for p in (1, 2)], "launches": launches,
           "fingerprint": {"cores": 2}}
    [row] = [r for r in machine_card(run) if r["quantity"].startswith("Message rate")
             and r["section"] == "MPI intra-node"]
    assert row["value"] == 10.0 and row["point"].startswith("8 B, 1 pair at once")
    assert not row.get("warning")
    only = {**run, "records": run["records"][1:], "launches": launches[1:]}
    [row] = [r for r in machine_card(only) if r["quantity"].startswith("Message rate")
             and r["section"] == "MPI intra-node"]
    assert row["value"] == 20.0 and "oversubscribed: 4 ranks on 2 cores" in row["warning"]


def test_the_figures_draw_one_line_per_pair_count():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    [rate, _] = [f for f in FIGURES if f.benchmark == "msgrate"]
    fig = rate.make([{**RUN, "id": 1}])
    assert len(fig.axes[0].get_lines()) >= 4
    assert rate.make([{"records": []}]) is None


def test_the_time_limit_allows_for_the_bytes_every_pair_moves():
    from hpceval.catalog import PlanContext
    ctx = PlanContext(cores=128, llc_bytes=32 << 20, mem_available_bytes=256 << 30)
    bench = BENCHMARKS["msgrate"]
    small, big = (bench.plan({"ranks": n}, ctx)[0].timeout_s for n in ("2", "128"))
    # 64 pairs x 64 messages x 8 MiB of sizes x 15 windows at least, at 3.3 GB/s: minutes
    assert big - small > 64 * 64 * (8 << 20) * 15 / 3.4e9 - 3


def test_run_twice_and_compare(cli):
    """`hpceval run msgrate` stores its records; `compare` matches them point by point and
    shows the headline row."""
    doc = run_twice_and_compare(cli, "msgrate", [*FAST, "--set", "msgrate.ranks=2", "--set",
                                                 "msgrate.sizes=8,1K"])
    assert len([r for r in doc["rows"] if r["benchmark"] == "msgrate"]) == 4
    assert [h["label"] for h in doc["headline"]] == ["Message rate, 8 B, most pairs in a node"]
