"""rma: the binary's records under both MPIs and both window allocations, the data checks that
bite (one per operation), bad input as one line with exit status 2 (binary and command line), its
place in the suite and the study, its card row, headline and figures. Behaviour only: no latency
is asserted."""
import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich, run_twice_and_compare
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.bench_rma import results_per_mode
from hpceval.catalog.registry import STUDY, SUITES
from hpceval.records import parse_record

SIZES = [2, 8, 4096]      # 2 B: no whole 4-byte element, so acc leaves it out
SYNCS = ["fence", "lock", "flush", "pscw"]
OPS = ["put", "get", "acc", "fop", "cas"]


def _run(bindir, mpi, args, nranks=2):
    return (launch(bindir, "rma", args, nranks) if mpi == "openmpi"
            else launch_mpich("rma", args, nranks))


def _expected(sizes_given):
    """(op, sync, bytes, window, metric) of every record, in the binary's order."""
    out = []
    for op in OPS:
        for sync in SYNCS:
            sizes = [8] if op in ("fop", "cas") else [s for s in sizes_given
                                                     if op != "acc" or s % 4 == 0]
            for n in sizes:
                out.append((op, sync, n, 1, "latency"))
                if op in ("put", "get"):
                    out.append((op, sync, n, 4, "bandwidth"))
    return out


@pytest.mark.parametrize("mpi, win", [("openmpi", "allocate"), ("openmpi", "create"),
                                      ("mpich", "allocate"), ("mpich", "create")])
def test_records_per_op_mode_and_size(bindir, mpi, win):
    sizes = SIZES if win == "allocate" else [8]   # create: the window's kind, not every size
    p = _run(bindir, mpi, ["--sizes", ",".join(map(str, sizes)), "--window", "4", "--win", win]
             + QUICK, nranks=3 if win == "create" else 2)   # a third rank only waits
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    results = [r for r in recs if r["type"] == "result"]
    got = [(r["params"]["op"], r["params"]["sync"], r["params"]["bytes"], r["params"]["window"],
            r["metric"]) for r in results]
    assert got == _expected(sizes)
    assert len(got) == len(SYNCS) * results_per_mode(OPS, sizes)   # the plan's count
    for r in results:
        assert r["params"]["win"] == win and r["check"] == "ok"
        assert r["unit"] == ("us" if r["metric"] == "latency" else "MB/s")
        assert r["better"] == ("lower" if r["metric"] == "latency" else "higher")
        s = r["stats"]
        assert s["n"] >= 3 and r["epochs_per_sample"] >= 1 and 0 < s["min"] <= s["max"]


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("op, holder", [("put", "rank 1's window"), ("acc", "rank 1's window"),
                                        ("get", "rank 0's result buffer"),
                                        ("fop", "rank 0's result buffer"),
                                        ("cas", "rank 0's result buffer")])
def test_corrupt_data_is_caught(bindir, mpi, op, holder):
    status, msg = error_of(_run(bindir, mpi, ["--ops", op, "--sync", "flush", "--sizes", "8",
                                              "--inject", "corrupt"] + QUICK))
    assert status == 1, msg
    assert msg.startswith(f"data check failed: rma, {op} under flush, 8-byte operations")
    assert f"{holder} has a wrong byte at offset 4" in msg


@pytest.mark.parametrize("args, nranks, message", [
    ([], 1, "rma needs at least 2 MPI ranks, got 1"),
    (["--sync", "foo"], 2, "option --sync: 'foo' is not one of fence, lock, flush, pscw, all"),
    (["--ops", "swap"], 2, "option --ops: 'swap' is not one of put, get, acc, fop, cas, all"),
    (["--window", "0"], 2, "option --window: 0 is out of range"),
    (["--sizes", "0"], 2, "option --sizes: 0 is out of range"),
])
def test_bad_input_binary(bindir, args, nranks, message):
    status, msg = error_of(launch(bindir, "rma", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip()


@pytest.mark.parametrize("args, message", [
    (["--set", "rma.sync=foo"], "sync: 'foo' is not one of fence, lock, flush, pscw, all"),
    (["--set", "rma.window=0"], "window: 0 is out of range"),
    (["--set", "rma.sizes=0"], "sizes: 0 is out of range"),
    (["--set", "rma.win=shared"], "win: 'shared' is not one of allocate, create"),
    (["--set", "rma.ops=acc", "--set", "rma.sizes=1,2"], "no size is a multiple of 4"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "rma", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr


def test_in_the_comm_suite_and_the_study():
    assert "rma" in [b for b, _ in SUITES["comm"].entries]
    assert [e for e in STUDY if e[0] == "rma"]
    assert BENCHMARKS["rma"].param("win").default == "allocate"


def _rec(op, sync, nbytes, us, nodes=("a",)):
    return {"benchmark": "rma", "metric": "latency", "unit": "us", "better": "lower",
            "statistic": "median",
            "params": {"op": op, "sync": sync, "bytes": nbytes, "window": 1, "win": "allocate"},
            "stats": {"median": us, "ci_low": us, "ci_high": us, "n": 10},
            "where": {"nodes": list(nodes), "placement": "one node"}}


RUN = {"records": [_rec(op, s, n, 1.0 + i) for i, s in enumerate(SYNCS) for op in ("put", "get")
                   for n in (1, 8, 1024)],
       "launches": [], "fingerprint": {"cores": 2}}


def test_card_and_headline_take_8_byte_put_under_flush():
    import hpceval.views
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    hpceval.views.load_rows()
    [row] = [r for r in machine_card(RUN) if r["quantity"] == "One-sided put latency"
             and r["section"] == "MPI intra-node"]
    assert row["value"] == 3.0 and row["point"].startswith("8 B, lock_all + flush")
    [head] = [h for h in headlines(RUN["records"]) if h["label"].startswith("One-sided")]
    assert head["label"] == "One-sided put latency, 8 B, flush"
    assert head["record"]["params"]["sync"] == "flush"


def test_the_figure_draws_a_panel_per_op_and_a_line_per_mode():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    [fig] = [f for f in FIGURES if f.benchmark == "rma"]
    drawn = [ax for ax in fig.make([{**RUN, "id": 1}]).axes if ax.get_visible()]
    assert [ax.get_title() for ax in drawn] == ["MPI_Put", "MPI_Get"]   # no acc measured
    assert all(len(ax.get_lines()) >= len(SYNCS) for ax in drawn)
    assert fig.make([{"records": []}]) is None


def test_run_twice_and_compare(cli):
    """`hpceval run rma` stores its records; `compare` matches them point by point and shows
    the headline row."""
    doc = run_twice_and_compare(cli, "rma", [*FAST, "--set", "rma.sizes=8", "--set",
                                             "rma.ops=put", "--set", "rma.sync=flush"])
    assert len([r for r in doc["rows"] if r["benchmark"] == "rma"]) == 2   # latency, bandwidth
    assert [h["label"] for h in doc["headline"]] == ["One-sided put latency, 8 B, flush"]
