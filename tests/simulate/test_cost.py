"""What a simulated launch costs in wall time (hpceval/simulate/cost.py), in-process: the cost of
a result learned from planted earlier launches, a pair launch charged for its two busy ranks,
and the stored calibration read without launching anything (run --dry-run --simulate). No
smpirun; each test well under a second."""
from __future__ import annotations

import json
import socket

import pytest

from helpers import plant_launch
from hpceval.catalog import PlanContext
from hpceval.runner.run import learn_costs
from hpceval.catalog.registry import sim_cost_model, sim_declared
from hpceval.simulate.cost import (CALIBRATION, GROWTH_LIST, REF_RANKS, busy, growth,
                                  growth_per_rank, learned, sim_cost)
from hpceval.store import Store

HOST = socket.gethostname()
START_S = 0.4              # the planted launches' start-up (stored as their startup_s)
HALO_S = 0.02              # wall seconds a result a rank: every rank of a halo launch is busy
PAIR_S = 0.03              # a result a busy rank of p2p 0-1: two ranks busy whatever P is
PER_RESULT_S, BUSY = sim_declared()     # what the benchmarks declare (Benchmark.sim_*)


def fingerprint(name: str, simulated: bool) -> dict:
    return {"hash": name, "hostname": HOST, "cores": 2,
            **({"simulated": {"name": "fat-tree"}} if simulated else {})}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    sim = fingerprint("sim", True)
    for nranks, results in ((4, 10), (8, 6), (16, 12)):
        plant_launch(s, sim, "halo", nranks, results=results, startup_s=START_S,
                     elapsed_s=START_S + results * nranks * HALO_S)
        plant_launch(s, sim, "p2p", nranks, label=f"p2p 0-1 np={nranks}", results=results,
                     startup_s=START_S, elapsed_s=START_S + results * 2 * PAIR_S)
    # a real launch of halo on this host: not the simulation's cost
    plant_launch(s, fingerprint("real", False), "halo", 4, results=10, elapsed_s=50.0)
    yield s
    s.close()


def test_the_cost_of_a_result_learned_is_the_planted_one(store):
    got = learned(store, HOST, BUSY)
    assert got["halo"] == pytest.approx(HALO_S) and got["p2p 0-1"] == pytest.approx(PAIR_S)
    assert learned(store, "another-host", BUSY) == {}


def test_a_launch_stopped_at_its_limit_teaches_its_cost_a_failed_one_does_not(tmp_path):
    """halo at 2-8 simulated ranks took 3.8x its declared cost and was stopped at its limit in
    every study: learning from launches that ended ok only, the next study planned it the
    same. A timed-out launch's records over its time are what a result cost (at most)."""
    s = Store(tmp_path / "r.sqlite")
    sim = fingerprint("sim", True)
    plant_launch(s, sim, "halo", 4, results=5, startup_s=START_S, status="timeout",
                 elapsed_s=START_S + 5 * 4 * 0.2)
    plant_launch(s, sim, "nbc", 4, results=5, startup_s=START_S, status="failed",
                 elapsed_s=START_S + 5 * 4 * 0.2)
    assert learned(s, HOST, BUSY) == {"halo": pytest.approx(0.2)}
    s.close()


def test_a_pair_launch_is_charged_for_its_two_busy_ranks(store):
    assert busy("p2p", "p2p 0-1 np=64", 64, BUSY) == busy("pingpong", "pingpong np=32", 32, BUSY) == 2
    assert busy("p2p", "p2p ring np=64", 64, BUSY) == busy("distance", "distance np=64", 64, BUSY) == 64
    assert busy("loggp", "loggp np=1", 1, BUSY) == 1
    cost = sim_cost_model(START_S, 1e-3, learned(store, HOST, BUSY))
    # 1,024 ranks of p2p 0-1: two of them measure, the others wait blocked
    assert cost.measure_s("p2p", "p2p 0-1 np=1024", 1024, 100, 0.0) == pytest.approx(
        2 * 100 * PAIR_S)
    # every rank busy: each message dearer with 1,024 busy ranks than with REF_RANKS
    assert cost.measure_s("halo", "halo np=1024", 1024, 100, 0.0) == pytest.approx(
        1024 * 100 * HALO_S * (1 + GROWTH_LIST * 1024) / (1 + GROWTH_LIST * REF_RANKS))
    assert cost.measure_s("halo", "halo np=64", 64, 100, 0.0) == pytest.approx(64 * 100 * HALO_S)
    assert cost.measure_s("sweep", "sweep np=2", 2, 1, 0.0) == 2 * PER_RESULT_S["sweep"]


def test_a_learned_cost_stands_alone_a_declared_one_keeps_the_planned_floor(store):
    """The planned measuring (every point its whole budget) bounds a declared cost from below;
    a learned one is what the launches took: psst at 16 ranks was estimated at 38 s (16 x the
    planned 2.4 s) and took 10 s, the 256-rank study's launches 30% under their estimates."""
    cost = sim_cost_model(START_S, 1e-3, learned(store, HOST, BUSY))
    assert cost.measure_s("halo", "halo np=16", 16, 10, 5.0) == pytest.approx(16 * 10 * HALO_S)
    assert cost.measure_s("p2p", "p2p 0-1 np=16", 16, 10, 5.0) == pytest.approx(2 * 10 * PAIR_S)
    assert cost.measure_s("sweep", "sweep np=2", 2, 1, 5.0) == 2 * 5.0


def test_smpi_s_cost_a_message_grows_with_the_busy_ranks_as_its_simgrid_s_does(tmp_path, store):
    """The growth measured here (docs/simulate.md): 8 B halo exchanges, 3.9 us a message at 64
    ranks and 26.4 us at 1,024 with SimGrid 3.32; 4.7 and 8.8 us with 4.1. A build says which
    SimGrid; a store's launches at 1,024 ranks teach the cost as at REF_RANKS."""
    for version, at_1024 in (("3.32", 26.4 / 3.9), ("4.1", 8.8 / 4.7)):
        (tmp_path / "buildinfo.json").write_text(json.dumps(
            {"mpi": "smpi", "compiler": f"SimGrid version {version}"}))
        assert growth(1024, growth_per_rank(tmp_path)) == pytest.approx(at_1024, rel=0.05)
    assert growth_per_rank(None) == GROWTH_LIST and growth(32, GROWTH_LIST) == 1.0
    sim = fingerprint("sim", True)
    g = growth(1024, GROWTH_LIST)
    plant_launch(store, sim, "collectives", 1024, results=10, startup_s=START_S,
                 elapsed_s=START_S + 10 * 1024 * 0.01 * g)
    assert learned(store, HOST, BUSY)["collectives"] == pytest.approx(0.01)


def platform(tmp_path) -> dict:
    where = tmp_path / "simulated" / "fat-tree-abc"
    where.mkdir(parents=True)
    return {"platform_file": str(where / "platform.xml"), "hostfile": str(where / "hosts.txt"),
            "nodes": 32, "ppn": 2}


def test_a_dry_run_reads_the_stored_calibration_and_launches_nothing(tmp_path, store):
    sim = platform(tmp_path)
    ctx = PlanContext(cores=2, llc_bytes=1 << 20, mem_available_bytes=1 << 30)
    missing = str(tmp_path / "none.sqlite")
    learn_costs(ctx, missing, sim, None, create=False)      # no binary: nothing is measured
    assert ctx.sim_cost is None and not (tmp_path / "none.sqlite").exists()
    (tmp_path / "simulated" / CALIBRATION).write_text(json.dumps(
        {"elsewhere": {"start_s": 9.0, "per_rank_s": 0.1},
         HOST: {"start_s": 0.37, "per_rank_s": 0.0031, "measured_ranks": 64}}))
    learn_costs(ctx, str(store.path), sim, None, create=False)
    assert ctx.sim_cost.startup_s(64) == pytest.approx(0.37 + 64 * 0.0031)
    # and the store's costs, past the calibration's start-up (0.37 s + 3.1 ms a rank, not the
    # planted launches' 0.4 s)
    assert ctx.sim_cost.per_result["halo"] == pytest.approx(HALO_S, rel=0.02)
    assert "0.37 s + 3.10 ms a rank" in ctx.sim_cost.note()
    assert "for 2 kinds" in ctx.sim_cost.note()
    assert sim_cost(sim, None, None, PER_RESULT_S, BUSY).per_result == PER_RESULT_S


def test_the_calibration_is_kept_per_simgrid_of_the_build(tmp_path, monkeypatch):
    """Two SimGrids start ranks at different costs: the one the SMPI build was compiled with
    (its buildinfo) picks its own entry; an entry of the host alone serves where none is."""
    from hpceval.simulate.cost import calibration_key, stored_calibration
    sim = platform(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "buildinfo.json").write_text(json.dumps({"mpi": "smpi",
                                                       "compiler": "SimGrid version 4.1"}))
    monkeypatch.setenv("HPCEVAL_BINDIR", str(bindir))
    assert calibration_key(bindir) == f"{HOST} SimGrid version 4.1"
    path = tmp_path / "simulated" / CALIBRATION
    path.write_text(json.dumps({HOST: {"start_s": 0.9, "per_rank_s": 0.002}}))
    assert stored_calibration(sim)["start_s"] == 0.9
    path.write_text(json.dumps({HOST: {"start_s": 0.9, "per_rank_s": 0.002},
                                f"{HOST} SimGrid version 4.1": {"start_s": 0.2,
                                                               "per_rank_s": 0.0003}}))
    assert stored_calibration(sim)["start_s"] == 0.2
    (bindir / "buildinfo.json").write_text(json.dumps({"mpi": "smpi",
                                                       "compiler": "SimGrid version 3.32"}))
    assert stored_calibration(sim)["start_s"] == 0.9


def test_every_simulated_launch_s_limit_covers_its_smpi_cost_without_a_budget():
    """Planning only: the study on 64 x 16 simulated ranks, no --budget. Every launch's time
    limit (the one it runs under without a budget) covers SMPI's wall time for it, its
    estimate, TIMEOUT_FACTOR times over: not only netmap's and nodecheck's (#45)."""
    from hpceval.catalog.estimate import estimate_s
    from hpceval.catalog.common import TIMEOUT_FACTOR
    from hpceval.catalog.plan import plan_targets
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=64,
                      ppn=16, host_memory_bytes=16 << 30,
                      sim_cost=sim_cost_model(START_S, 3e-3))
    specs = plan_targets(["study"], [], ctx)
    top = [s for s in specs if s.nranks == 1024]
    assert len({s.benchmark for s in top}) >= 5, sorted({s.benchmark for s in top})
    for s in specs:
        assert s.timeout_s >= TIMEOUT_FACTOR * estimate_s(s), (s.label, s.timeout_s,
                                                              estimate_s(s))
    halo = next(s for s in top if s.benchmark == "halo")     # every rank busy: 1,024 x 0.053 s
    assert estimate_s(halo) > 1024 * PER_RESULT_S["halo"], estimate_s(halo)


def test_ps_is_planned_at_what_smpi_took_for_it():
    """PS at the study's settings on 16 simulated ranks took 1,107 s in the 1,024-rank study
    (docs/study.md) against 99 s planned: its cost entry (4.5 s a result a rank, messages every
    cycle) now plans it above that, and its limit three times over."""
    from hpceval.catalog.estimate import estimate_s
    from hpceval.catalog.plan import plan_targets
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=8,
                      ppn=2, host_memory_bytes=16 << 30, sim_cost=sim_cost_model(START_S, 3e-3))
    ps = next(s for s in plan_targets(["study"], [], ctx) if s.label.startswith("ps np=16 "))
    assert 1107 <= estimate_s(ps) <= 3 * 1107, (ps.label, estimate_s(ps))
    assert ps.timeout_s >= 3 * 1107, ps.timeout_s


def test_the_dry_run_shows_the_estimates_the_budget_counted():
    """`run study --simulate ... --budget 1h --dry-run --json` on 64 x 16 ranks: its launches'
    estimates (SMPI's wall time, estimate.stamp) add up to its areas' and stay within the budget.
    It showed the simulated seconds the planners budgeted instead: 494 s of launches beside
    areas that filled 3,508 s of the hour."""
    from hpceval.runner.dryrun import dry_run, plan_json
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=64,
                      ppn=16, host_memory_bytes=16 << 30,
                      sim_cost=sim_cost_model(START_S, 3e-3))
    doc = plan_json(["study"], dry_run(["study"], [], ctx, None, 3600.0), ctx, 3600.0)
    areas = sum(a["estimate_s"] for a in doc["areas"])
    assert doc["estimate_s"] == pytest.approx(areas, rel=1e-3) and areas <= 3600, (
        doc["estimate_s"], areas)
    assert sum(l["estimate_s"] for l in doc["launches"]) == pytest.approx(doc["estimate_s"],
                                                                         abs=0.5)


def test_a_problem_and_rung_learned_take_their_own_cost_others_the_kind_s(store):
    """halo's cost a result a rank at 8 simulated ranks was twice its median over the study's
    rungs, at 32 half of it, and psst's at T170 14x its at T42: a rung measured before takes
    its own cost, a problem measured at other rank counts its problem's, anything else the
    kind's median."""
    from hpceval.simulate.cost import TREND, learned_costs, problem
    assert problem("psst np=16 T170 L=18") == "psst T170 L=18" and problem("halo np=8") == "halo"
    sim = fingerprint("sim", True)
    plant_launch(store, sim, "halo", 8, results=10, startup_s=START_S,
                 elapsed_s=START_S + 10 * 8 * 5 * HALO_S)
    for label, each in (("psst np=4 T42 L=18", 0.01), ("psst np=4 T170 L=18", 0.14)):
        plant_launch(store, sim, "psst", 4, label=label, results=10, startup_s=START_S,
                     elapsed_s=START_S + 10 * 4 * each)
    fine = learned_costs(store, HOST, BUSY)
    assert fine.rungs[("halo", 8)] == pytest.approx(3 * HALO_S)     # the median of 1x and 5x
    assert fine.rungs[("halo", 4)] == pytest.approx(HALO_S)
    cost = sim_cost_model(START_S, 1e-3, fine.kinds, fine)
    assert cost.measure_s("halo", "halo np=8", 8, 10, 0.0) == pytest.approx(8 * 10 * 3 * HALO_S)
    assert cost.measure_s("halo", "halo np=4", 4, 10, 0.0) == pytest.approx(4 * 10 * HALO_S)
    # beyond the rungs learned: the nearest below, falling as TREND says; beyond REACH times
    # the nearest, the problem's median
    assert cost.measure_s("halo", "halo np=32", 32, 10, 0.0) == pytest.approx(
        32 * 10 * HALO_S * (16 / 32) ** TREND)                # from 16 ranks
    assert cost.measure_s("halo", "halo np=512", 512, 10, 0.0) == pytest.approx(
        512 * 10 * fine.problems["halo"] * growth(512, GROWTH_LIST))
    # the problem's cost at another rank count, not the kind's median over both problems
    t170 = 0.14 * (4 / 16) ** TREND
    assert cost.measure_s("psst", "psst np=16 T170 L=18", 16, 10, 0.0) == pytest.approx(
        16 * 10 * t170)
    assert cost.measure_s("psst", "psst np=16 T85 L=18", 16, 10, 0.0) == pytest.approx(
        16 * 10 * fine.kinds["psst"])
    # a problem never simulated here: the kind's cost, but not under what its plan measures
    # (barotropic 3600x2400 at 128 ranks: estimated 52 s from 320x384's cost, killed at 159 s)
    assert cost.measure_s("psst", "psst np=16 T85 L=18", 16, 10, 1.0) == 16 * 1.0
    assert cost.measure_s("psst", "psst np=16 T170 L=18", 16, 10, 1.0) == pytest.approx(
        16 * 10 * t170)


def test_a_benchmark_s_own_trend_carries_its_cost_to_a_rung_not_learned(store):
    """SMPI's non-blocking collectives are P^2 flows a call: nbc's cost a result a rank grew
    x2.8 from 32 to 64 simulated ranks and x3.9 from 64 to 128, where TREND's slow fall planned
    128 ranks at a sixth of what they took. nbc declares its trend (Benchmark.sim_trend); halo
    keeps TREND."""
    from hpceval.catalog.registry import sim_trends
    from hpceval.simulate.cost import TREND, learned_costs
    assert sim_trends()["nbc 4,1K"] == -2.0 and "halo" not in sim_trends()
    each = 0.006
    plant_launch(store, fingerprint("sim", True), "nbc", 32, label="nbc 4,1K np=32", results=36,
                 startup_s=START_S, elapsed_s=START_S + 36 * 32 * each)
    fine = learned_costs(store, HOST, BUSY)
    cost = sim_cost_model(START_S, 1e-3, fine.kinds, fine)
    assert cost.measure_s("nbc", "nbc 4,1K np=128", 128, 36, 0.0) == pytest.approx(
        128 * 36 * each * (128 / 32) ** 2 * growth(128, GROWTH_LIST))
    assert cost.measure_s("halo", "halo np=32", 32, 10, 0.0) == pytest.approx(
        32 * 10 * HALO_S * (16 / 32) ** TREND)


def test_a_rung_learns_from_its_latest_launches(store):
    """A change of the harness shows at once in a rung's cost: its latest RUNG_FROM launches
    (latest first), not every study's median."""
    from hpceval.simulate.cost import RUNG_FROM, learned_costs
    sim = fingerprint("sim", True)
    for each in [4 * HALO_S] * (RUNG_FROM + 1) + [HALO_S / 2] * RUNG_FROM:
        plant_launch(store, sim, "halo", 32, results=10, startup_s=START_S,
                     elapsed_s=START_S + 10 * 32 * each)
    fine = learned_costs(store, HOST, BUSY)
    assert fine.rungs[("halo", 32)] == pytest.approx(HALO_S / 2)
    assert fine.problems["halo"] > HALO_S      # the problem's median still holds the old ones


def test_a_top_rung_s_variant_learns_from_the_ladder_that_held_it(store):
    """evh1's top rung names one transpose, its ladder three: the ladder's cost serves the
    top, not the kind's median over other problems."""
    from hpceval.simulate.cost import TREND, covers, learned_costs
    assert covers("evh1 64x64x64 blast alltoallv,pairwise", "evh1 64x64x64 blast alltoallv")
    assert not covers("evh1 64x64x64 blast alltoallv", "evh1 64x64x64 blast alltoallv,pairwise")
    assert not covers("evh1 32x32x32 blast alltoallv,pairwise", "evh1 64x64x64 blast alltoallv")
    sim = fingerprint("sim", True)
    for label, each in (("evh1 np=4 64x64x64 blast alltoallv,pairwise", 0.01),
                        ("evh1 np=4 32x32x32/rank blast alltoallv,pairwise", 0.5)):
        plant_launch(store, sim, "evh1", 4, label=label, results=10, startup_s=START_S,
                     elapsed_s=START_S + 10 * 4 * each)
    fine = learned_costs(store, HOST, BUSY)
    cost = sim_cost_model(START_S, 1e-3, fine.kinds, fine)
    top = cost.measure_s("evh1", "evh1 np=32 64x64x64 blast alltoallv", 32, 10, 5.0)
    # the ladder's nearest rung below (4 ranks): no planned floor either
    assert top == pytest.approx(32 * 10 * 0.01 * (4 / 32) ** TREND)


def test_a_result_s_work_is_its_samples_and_steps():
    """(warm-up + samples + ONCE) x steps: from a stored launch's records, or fixed by the
    launch's own --min-reps = --max-reps (a top rung's); a count its noise decides is None."""
    from hpceval.simulate.cost import ONCE, work
    ladder = "hpceval-evh1 --steps 10 --warmup 1 --min-reps 3 --max-reps 20".split()
    assert work(ladder, samples=6) == (1 + 6 + ONCE) * 10
    assert work(ladder) is None
    assert work("--warmup 0 --min-reps 2 --max-reps 2 --steps 2".split()) == (2 + ONCE) * 2
    assert work("--min-reps 2 --max-reps 2".split()) == 2 + ONCE        # no steps: one each
    assert work(["mpirun"], samples=3.0) == 3 + ONCE


def test_a_top_rung_of_fixed_work_costs_its_share_of_what_its_ladder_did(store):
    """evh1's top at 256 simulated ranks made 20 samples of 10 steps a point (its confidence
    interval never closed on this host's noise) where a top needs 2 of 2: its cost is the
    learned cost of a unit of work times its own work. Measured here at 32 ranks (SMPI 3.32,
    evh1 64x64x64): 3 samples of 10 steps took 3.9 s, 2 of 2 0.45 s, 6 of 10 6.7 s (the model:
    40, 6 and 70 units of 0.098 s)."""
    from hpceval.simulate.cost import ONCE, TREND, learned_costs
    sim = fingerprint("sim", True)
    label, each = "evh1 np=4 64x64x64 blast alltoallv", 0.2
    plant_launch(store, sim, "evh1", 4, label=label, results=10, startup_s=START_S,
                 elapsed_s=START_S + 10 * 4 * each, samples=20,
                 command="smpirun -np 4 hpceval-evh1 --steps 10 --warmup 0 --min-reps 3 "
                         "--max-reps 20")
    fine = learned_costs(store, HOST, BUSY)
    learned_work = (20 + ONCE) * 10
    assert fine.per_work[("rung", ("evh1 64x64x64 blast alltoallv", 4))] == pytest.approx(
        each / learned_work)
    cost = sim_cost_model(START_S, 1e-3, fine.kinds, fine)
    top = "--steps 2 --warmup 0 --min-reps 2 --max-reps 2".split()
    mine = (2 + ONCE) * 2
    assert cost.measure_s("evh1", label, 4, 10, 0.0, top) == pytest.approx(
        4 * 10 * each * mine / learned_work)
    # a rung beyond, from the nearest below; a launch whose count its noise decides: as learned
    assert cost.measure_s("evh1", "evh1 np=32 64x64x64 blast alltoallv", 32, 10, 0.0, top) == \
        pytest.approx(32 * 10 * each * mine / learned_work * (4 / 32) ** TREND)
    assert cost.measure_s("evh1", label, 4, 10, 0.0, "--min-reps 3 --max-reps 20".split()) == \
        pytest.approx(4 * 10 * each)
    # the fixture's halo launches: 3 samples of one step a result, 4 units; the top's 6
    assert cost.measure_s("halo", "halo np=8", 8, 10, 0.0, top) == pytest.approx(
        cost.measure_s("halo", "halo np=8", 8, 10, 0.0) * mine / (3 + ONCE))


def test_a_launch_is_learned_through_its_own_simgrid_s_growth(tmp_path):
    """SimGrid before 3.34 walks every detached send in flight per message, 4.1 keeps a set: a
    launch at 256 ranks is brought back to 64 through the growth of the SimGrid that ran it
    (its fingerprint's MPI version), whichever build plans the next one."""
    from hpceval.simulate.cost import GROWTH_SET, learned_costs
    s = Store(tmp_path / "r.sqlite")
    for version, each in (("SimGrid version 3.32", 0.02), ("SimGrid version 4.1", 0.01)):
        sim = {**fingerprint(version, True), "mpi": {"flavour": "smpi", "version": version}}
        plant_launch(s, sim, "halo", 256, label=f"halo np=256 {version.split()[-1]}", results=10,
                     startup_s=START_S, elapsed_s=START_S + 10 * 256 * each)
    fine = learned_costs(s, HOST, BUSY, GROWTH_SET)      # planned with a 4.1 build
    assert fine.problems["halo 3.32"] == pytest.approx(0.02 / growth(256, GROWTH_LIST))
    assert fine.problems["halo 4.1"] == pytest.approx(0.01 / growth(256, GROWTH_SET))
    s.close()


def test_a_rung_run_by_this_simgrid_is_learned_from_its_own_launches(tmp_path):
    """The 4.1 hour's first barotropic at 1,024 ranks took twice what 3.32's launches below made
    of it: where a problem or rung has launches of the SimGrid the plan runs, those alone."""
    from hpceval.simulate.cost import GROWTH_SET, learned_costs
    s = Store(tmp_path / "r.sqlite")
    for version, each in (("SimGrid version 4.1", 0.05), ("SimGrid version 3.32", 0.01),
                          ("SimGrid version 3.32", 0.01)):            # latest first: 3.32's
        sim = {**fingerprint(version, True), "mpi": {"flavour": "smpi", "version": version}}
        plant_launch(s, sim, "halo", 16, results=10, startup_s=START_S,
                     elapsed_s=START_S + 10 * 16 * each)
    four = learned_costs(s, HOST, BUSY, GROWTH_SET, "SimGrid version 4.1")
    assert four.rungs[("halo", 16)] == pytest.approx(0.05) == four.kinds["halo"]
    old = learned_costs(s, HOST, BUSY, GROWTH_LIST, "SimGrid version 3.32")
    assert old.rungs[("halo", 16)] == pytest.approx(0.01)
    assert learned_costs(s, HOST, BUSY, GROWTH_LIST, "SimGrid version 3.35").rungs[
        ("halo", 16)] == pytest.approx(0.01)          # none of its own: the median of all
    s.close()


def test_a_start_up_at_scale_is_measured_on_the_largest_allocation(tmp_path, monkeypatch):
    """SMPI's MPICH selector builds a communicator's node communicators at its first collective
    with a ring allgather (P^2 messages): one point of p2p took 0.14 s on 64 simulated ranks and
    24 s on 1,024 (SimGrid 4.1), where the line through 2 and 64 said 1.8 s. An allocation of
    more than CAL_RANKS adds one launch on up to CAL_TOP ranks, once, and a P^2 term."""
    from hpceval.simulate import cost
    took = lambda p: 0.1 + 1e-3 * p + 2e-5 * p * p          # what a launch takes, planted
    launched = []
    monkeypatch.setattr(cost, "_smpirun_s", lambda sim, p, binary: launched.append(p) or took(p))
    sim = {**platform(tmp_path), "nodes": 64, "ppn": 16}
    cal = cost.calibration(sim, str(tmp_path / "hpceval-p2p"))
    assert launched == [2, cost.CAL_RANKS, cost.CAL_TOP] and cal["top_ranks"] == cost.CAL_TOP
    model = cost.SimCost(cal["start_s"], cal["per_rank_s"], {}, per_rank2_s=cal["per_rank2_s"])
    assert model.startup_s(1024) == pytest.approx(took(1024) + cost.LAUNCH_OVERHEAD_S, rel=0.02)
    assert model.startup_s(512) == pytest.approx(took(512), rel=0.3)
    assert "at 1,024 ranks" in model.note()
    assert cost.calibration(sim, str(tmp_path / "hpceval-p2p")) == cal and len(launched) == 3
    # a platform of 64 ranks or fewer: the two launches alone, no P^2 term
    small = {**platform(tmp_path / "small"), "nodes": 32, "ppn": 2}
    assert "top_ranks" not in cost.calibration(small, str(tmp_path / "hpceval-p2p"))


def test_a_cost_is_learned_past_the_start_up_the_plan_adds(tmp_path):
    """Launches stored before CAL_TOP kept a start-up from the line through 2 and 64 ranks (1.8 s
    at 1,024) and 22 s of node communicators in their measuring: learning takes off the
    start-up the plan will add."""
    from hpceval.simulate.cost import learned_costs
    s = Store(tmp_path / "r.sqlite")
    plant_launch(s, fingerprint("sim", True), "halo", 1024, results=10, startup_s=1.8,
                 elapsed_s=24.0 + 10 * 1024 * 1e-3)
    fine = learned_costs(s, HOST, BUSY, startup=lambda p: 24.0 if p == 1024 else 0.0)
    assert fine.rungs[("halo", 1024)] * growth(1024, GROWTH_LIST) == pytest.approx(1e-3)
    s.close()
