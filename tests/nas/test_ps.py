"""PS, the network simulator (ps): every parallel run on 1, 2 and 4 ranks (logical tori 1x1,
1x2, 2x2) under Open MPI and MPICH delivers exactly the packets of rank 0's sequential run;
the network's behaviour (offered vs accepted load, latency, messages per cycle); the records;
bad input (one line, exit 2) and a corrupted checksum (exit 1); planned, carded and drawn
through `hpceval run` (Fig. 8)."""
import re

import pytest

from helpers import FAST
from hpceval.catalog.bench_ps import process_grid
from kernel_helpers import mpirun
from npb_checks import assert_setting_refused, assert_usage_error, launch_mpich

ONE = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--routers", "8x8", "--cycles", "300", "--loads", "5,50,90"]
NETWORK = ("packets_injected", "packets_delivered", "packets_in_network_at_end",
           "link_traversals", "mean_latency_cycles", "reference_checksum")


def results(recs, metric):
    return [r for r in recs if r["type"] == "result" and r["metric"] == metric]


def run(mpi, np, *args):
    p, recs = (mpirun("ps", np, *SMALL, *ONE, *args) if mpi == "openmpi"
               else launch_mpich("ps", np, *SMALL, *ONE, *args))
    assert p.returncode == 0, p.stderr
    return recs


@pytest.fixture(scope="module")
def alone():
    return run("openmpi", 0)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("np", [1, 2, 4])
def test_parallel_runs_equal_the_sequential_run(alone, mpi, np):
    recs = run(mpi, np)
    [meta] = [r for r in recs if r["type"] == "meta"]
    assert meta["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    times = results(recs, "run_time")
    assert [r["params"]["load"] for r in times] == [5, 50, 90]
    for r, ref in zip(times, results(alone, "run_time")):
        assert r["params"]["procs"] == "%dx%d" % process_grid(8, 8, np)
        assert r["verified"] is True and r["check"] == "ok"
        assert r["checksum"] == r["reference_checksum"]
        assert {k: r[k] for k in NETWORK} == {k: ref[k] for k in NETWORK}


def test_the_network_under_load(alone):
    times = results(alone, "run_time")
    for r in times:
        assert r["offered_flits_per_router_cycle"] == pytest.approx(
            r["params"]["load"] / 100 * 8 / 8)    # 8/max(X, Y) flits a router a cycle at 100%
        # every packet injected is delivered or still in the network
        assert r["packets_injected"] == r["packets_delivered"] + r["packets_in_network_at_end"]
    low, mid, high = times
    # below saturation the network accepts what is offered; queues and latency grow with load
    assert low["accepted_flits_per_router_cycle"] == pytest.approx(
        low["offered_flits_per_router_cycle"], rel=0.15)
    # an unloaded packet: about 4 hops on an 8x8 torus plus its 4 flits, in cycles
    assert 6 < low["mean_latency_cycles"] < 12
    assert low["mean_latency_cycles"] < mid["mean_latency_cycles"] < high["mean_latency_cycles"]
    assert low["packets_delivered"] < mid["packets_delivered"] < high["packets_delivered"]


def test_messages_grow_with_load_from_one_per_neighbour_a_cycle(alone):
    recs = run("openmpi", 4)
    msgs = results(recs, "messages")
    assert all(r["unit"] == "messages" for r in msgs)
    per = [r["messages_per_rank_per_cycle"] for r in msgs]
    # a 2x2 torus: four neighbours, each one message a cycle at least (null or packets)
    assert per[0] >= 4 and per[0] < per[1] < per[2]
    assert msgs[0]["stats"]["median"] == pytest.approx(per[0] * 4 * 300)
    assert [r["stats"]["median"] for r in results(alone, "messages")] == [0, 0, 0]  # alone


@pytest.mark.parametrize("np", [0, 2])
def test_a_corrupted_checksum_fails_the_check(np):
    p, recs = mpirun("ps", np, *SMALL, *ONE, "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "checksum" in err["message"] and "the sequential run" in err["message"]
    assert not [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("args,msg", [
    (["--loads", "0"], "option --loads: 0 is outside (0, 100]"),
    (["--loads", "5,120"], "option --loads: 120 is outside (0, 100]"),
    (["--loads", "x"], "option --loads"),
    (["--routers", "1x1"], "option --routers: 1x1: from 2 to 2^30 routers"),
    (["--routers", "65536x65536"], "option --routers: 65536x65536: from 2 to 2^30 routers"),
    (["--routers", "8by8"], "option --routers"),
    (["--routers", "2x2", "--flits", "1", "--loads", "90"], "needs more than one 1-flit packet"),
    (["--cycles", "0"], "option --cycles: 0 is out of range"),
    (["--routers", "4096x4096", "--cycles", "10000"], "router-cycles"),
])
def test_bad_input_exits_2_with_one_line(args, msg):
    p, recs = mpirun("ps", 0, *args)
    assert_usage_error(p, recs, 0, msg)


def test_processes_that_do_not_tile_the_routers_exit_2():
    p, recs = mpirun("ps", 3, *SMALL)
    assert_usage_error(p, recs, 3, "ps: 3 processes do not tile 8x8 routers")


@pytest.mark.parametrize("setting,msg", [
    ("loads=5,-1", "--set loads: -1 is outside (0, 100]"),
    ("routers=0x4", "--set routers"),
    ("ranks=3", "ps: 3 processes do not tile 32x32 routers as a PX x PY torus"),
])
def test_hostile_settings_are_refused_when_planned(setting, msg):
    from hpceval.catalog import BENCHMARKS, PlanContext
    from hpceval.errors import UsageError
    b = BENCHMARKS["ps"]
    name, value = setting.split("=")
    with pytest.raises(UsageError, match=re.escape(msg)):
        b.plan({name: b.param(name).parse(value)}, PlanContext(2, 32 << 20, 16 << 30))


def test_a_hostile_setting_is_one_line(cli):
    assert_setting_refused(cli, "ps", "ps.cycles=1e12", "--set cycles")


def test_run_card_headline_and_figure(cli):
    from hpceval.analysis.card import machine_card
    p = cli("run", "ps", "--np", "2", "--set", "ps.routers=8x8", "--set", "ps.cycles=300",
            "--set", "ps.loads=10,90", *FAST, timeout=120)
    assert p.returncode == 0, p.stderr
    (got,) = cli.export("latest")
    assert got["status"] == "ok"
    times = [r for r in got["records"] if r["metric"] == "run_time"]
    assert [r["params"]["load"] for r in times] == [10, 90]
    assert all(r["extra"]["verified"] is True for r in times)
    card = {r["quantity"]: r for r in machine_card(got)}
    assert card["PS network simulator at 90% load, execution time"]["measured"]
    from hpceval.report.views import figure_sections   # the report's figures of this run
    titles = [f["title"] for sec in figure_sections([got], "run") for f in sec["figures"]]
    assert any(t.startswith("SP2 Fig. 8: PS network simulator") for t in titles), titles
