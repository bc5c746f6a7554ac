"""nbc: the binary's records at 2 ranks under both MPIs, the data check that bites, bad input as
one line with exit status 2 (binary and command line), its place in the suite and the study, the
card row and the figure; the overlap is IMB-NBC's function of the three times. No time is
asserted."""
import math

import pytest

from helpers import FAST, one_line_error
from helpers_comm import QUICK, error_of, launch, launch_mpich
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.registry import STUDY, SUITES
from hpceval.records import parse_record

SIZES = [8, 4096]
OPS = ["ibarrier", "ibcast", "iallreduce", "iallgather", "ialltoall"]
METRICS = [("time_pure", "us", "lower"), ("time_cpu", "us", "lower"),
           ("time_overlapped", "us", "lower"), ("overlap", "%", "higher")]


def _run(bindir, mpi, args, nranks=2):
    return (launch(bindir, "nbc", args, nranks) if mpi == "openmpi"
            else launch_mpich("nbc", args, nranks))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_records_per_collective_size_and_metric(bindir, mpi):
    p = _run(bindir, mpi, ["--sizes", ",".join(map(str, SIZES)), "--tests", "2"] + QUICK)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    assert recs[0]["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    results = [r for r in recs if r["type"] == "result"]
    points = [("ibarrier", 0)] + [(op, n) for op in OPS[1:] for n in SIZES]
    assert [(r["params"]["op"], r["params"]["bytes"], r["metric"], r["unit"], r["better"])
            for r in results] == [pt + m for pt in points for m in METRICS]
    for r in results:
        s = r["stats"]
        assert r["params"]["nranks"] == 2 and r["params"]["tests"] == 2
        assert r["check"] == "ok" and r["statistic"] == "median" and s["n"] >= 3
        assert all(math.isfinite(s[k]) for k in ("min", "median", "max"))
        assert s["min"] <= s["median"] <= s["max"] and r["ops_per_sample"] >= 1
        if r["metric"] == "overlap":
            assert 0 <= s["min"] and s["max"] <= 100
        else:
            assert s["min"] > 0
    for i in range(0, len(results), len(METRICS)):
        assert_imb_nbc_overlap(*results[i:i + len(METRICS)])


def assert_imb_nbc_overlap(pure, cpu, overlapped, overlap):
    """Each overlap sample is IMB-NBC's (IMB 2019 on: IMB_output.c's NBC branch) from the
    medians of the pure and computation times and that overlapped sample: 100 max(0, min(1,
    (t_pure + t_cpu - t_ovrl) / max(t_pure, t_cpu)))."""
    p, c = pure["stats"]["median"], cpu["stats"]["median"]
    want = sorted(100 * max(0.0, min(1.0, (p + c - o) / max(p, c)))
                  for o in overlapped["samples"])
    assert len(want) == len(overlap["samples"])
    assert all(abs(a - b) < 0.05 for a, b in zip(want, sorted(overlap["samples"]))), \
        (pure["params"], want, overlap["samples"])


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("op", ["ibcast", "iallreduce", "iallgather", "ialltoall"])
def test_corrupt_data_is_caught(bindir, mpi, op):
    status, msg = error_of(_run(bindir, mpi, ["--ops", op, "--sizes", "8", "--inject",
                                              "corrupt"] + QUICK))
    assert status == 1
    assert f"data check failed: nbc, {op} of 8 bytes, pure sample 0: rank 1 has a wrong byte " \
           "at offset 0" in msg


@pytest.mark.parametrize("args, nranks, message", [
    (["--ops", "iscan"], 2, "option --ops: 'iscan' is not a collective"),
    (["--sizes", "0"], 2, "option --sizes: 0 is out of range"),
    (["--sizes", "6"], 2, "iallreduce needs multiples of 4 bytes (int32 elements), 6 given"),
    (["--tests", "-1"], 2, "option --tests: -1 is out of range"),
    ([], 1, "nbc needs 2 or more MPI ranks, got 1"),
])
def test_bad_input_binary(bindir, args, nranks, message):
    status, msg = error_of(launch(bindir, "nbc", args, nranks))
    assert status == 2 and message in msg and "\n" not in msg.strip()


def test_odd_sizes_without_iallreduce(bindir):
    p = launch(bindir, "nbc", ["--ops", "ibcast", "--sizes", "6"] + QUICK)
    assert p.returncode == 0, p.stderr[-2000:]


@pytest.mark.parametrize("args, message", [
    (["--set", "nbc.ops=iscan"], "'iscan' is not one of ibarrier"),
    (["--set", "nbc.sizes=0"], "sizes: 0 is out of range"),
    (["--set", "nbc.sizes=6"], "iallreduce needs multiples of 4 bytes (int32 elements), 6 given"),
    (["--np", "1"], "nbc needs 2 ranks or more, 1 given"),
])
def test_bad_input_cli(cli, args, message):
    p = cli("run", "nbc", *FAST, "--dry-run", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr


def test_in_the_comm_suite_and_the_study():
    assert "nbc" in [b for b, _ in SUITES["comm"].entries]
    [(_, settings)] = [e for e in STUDY if e[0] == "nbc"]
    assert settings["ranks"] == "ladder>=2"
    assert BENCHMARKS["nbc"].param("ops").default == "all"


def _rec(op, nbytes, nranks, metric, v):
    return {"benchmark": "nbc", "metric": metric, "unit": "%" if metric == "overlap" else "us",
            "better": "higher" if metric == "overlap" else "lower", "statistic": "median",
            "params": {"op": op, "bytes": nbytes, "nranks": nranks, "tests": 4},
            "stats": {"median": v, "ci_low": v, "ci_high": v, "n": 10},
            "where": {"nodes": ["a"], "placement": "one node"}}


RUN = {"records": [_rec(op, n, p, m, float(p + n % 97))
                   for op in ("iallreduce", "ialltoall") for p in (2, 4) for n in (1024, 1 << 20)
                   for m in ("time_pure", "overlap")],
       "launches": [], "fingerprint": {"cores": 8}}


def test_card_and_headline_take_1_mib_iallreduce_at_the_most_ranks():
    import hpceval.views
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    hpceval.views.load_rows()
    [row] = [r for r in machine_card(RUN) if r["quantity"].startswith("Overlap")]
    assert row["value"] == 4.0 + (1 << 20) % 97
    assert row["point"].startswith("iallreduce of 1 MiB, 4 ranks, 4 MPI_Test calls, pure ")
    [head] = [h for h in headlines(RUN["records"]) if h["label"].startswith("Overlap")]
    assert head["label"] == "Overlap, 1 MiB iallreduce, most ranks"
    assert head["record"]["params"]["nranks"] == 4
    assert not [r for r in machine_card({"records": []}) if r["quantity"].startswith("Overlap")
                and r.get("measured")]


def test_the_card_takes_the_most_ranks_that_had_a_core_each():
    """On 2 cores the suite's 4 ranks measure the scheduler: the card takes 2, and 4 only when
    it is all there is, saying so."""
    import hpceval.views
    from hpceval.analysis.card import machine_card
    hpceval.views.load_rows()
    launches = [{"benchmark": "nbc", "nranks": n, "meta": {"nranks": n, "hosts": ["a"] * n},
                 "warnings": []} for n in (2, 4)]
    run = {**RUN, "launches": launches, "fingerprint": {"cores": 2}}
    [row] = [r for r in machine_card(run) if r["quantity"].startswith("Overlap")]
    assert row["point"].startswith("iallreduce of 1 MiB, 2 ranks") and not row.get("warning")
    only = {**run, "records": [r for r in RUN["records"] if r["params"]["nranks"] == 4]}
    [row] = [r for r in machine_card(only) if r["quantity"].startswith("Overlap")]
    assert "oversubscribed: 4 ranks on 2 cores" in row["warning"]


def test_the_figure_draws_a_panel_pair_per_collective():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    [fig] = [f for f in FIGURES if f.benchmark == "nbc"]
    drawn = fig.make([{**RUN, "id": 1}])
    assert [ax.get_title() for ax in drawn.axes[:2]] == ["iallreduce", "ialltoall"]
    assert all(len(ax.get_lines()) >= 2 for ax in drawn.axes)   # a line per rank count
    assert fig.make([{"records": []}]) is None


def test_a_launch_at_other_sizes_is_known_by_them_and_costs_theirs():
    """A simulated point of 1 MiB costs fifty of 1 KiB: a launch at the study's top sizes
    (at_scale) is a kind of its own, planned at its own declared cost."""
    from hpceval.catalog import PlanContext
    from hpceval.catalog.plan import plan_targets
    from hpceval.catalog.registry import sim_declared
    from hpceval.simulate.cost import kind
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    [default] = plan_targets(["nbc"], [], ctx)
    [top] = plan_targets(["nbc"], ["nbc.sizes=4,1K"], ctx)
    assert (default.label, top.label) == ("nbc np=2", "nbc 4,1K np=2")
    declared, _ = sim_declared()
    assert declared[kind("nbc", default.label)] > 5 * declared[kind("nbc", top.label)] > 0
