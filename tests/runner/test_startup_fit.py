"""A real launch's start-up fitted to this host's earlier launches (hpceval/catalog/estimate.py
fit_startup, hpceval/runner/run.py learn_costs), in-process: planted launches with a known
start-up give it back, a disturbed launch does not move it, and the plan says which model it
used. No launch; each test well under a second."""
from __future__ import annotations

import socket

import pytest

from helpers import plant_launch
from hpceval.catalog import PlanContext, plan_targets
from hpceval.catalog.estimate import (MIN_FIT_LAUNCHES, STARTUP_PER_RANK_S, fit_startup,
                                      startup_note)
from hpceval.runner.run import learn_costs
from hpceval.store import Store

HOST = socket.gethostname()
START_S, PER_RANK_S = 3.2, 0.004      # the planted start-up: 3.2 s + 4 ms a rank
MEASURE_S = 20.0                      # each launch's planned measuring, spent whole


def planted(tmp_path, rank_counts=(1, 2, 4, 8, 16), per_count=3) -> Store:
    """Real launches here whose elapsed time is their planned measuring plus the planted
    start-up (their estimates used the old model, 1 s + 1 ms a rank); one of them disturbed
    (+30 s), and a simulated launch and another host's, neither to be fitted."""
    store = Store(tmp_path / "r.sqlite")
    fp = {"hash": "real", "hostname": HOST, "cores": 2}
    for n in rank_counts:
        for _ in range(per_count):
            old = 1.0 + 1e-3 * n
            plant_launch(store, fp, "halo", n, startup_s=old, estimate_s=old + MEASURE_S,
                         elapsed_s=MEASURE_S + START_S + PER_RANK_S * n)
    plant_launch(store, fp, "halo", 4, startup_s=1.0, estimate_s=1.0 + MEASURE_S,
                 elapsed_s=MEASURE_S + 30.0)
    plant_launch(store, {**fp, "hash": "sim", "simulated": {"name": "p"}}, "halo", 4,
                 startup_s=0.2, estimate_s=1.0, elapsed_s=500.0)
    plant_launch(store, {**fp, "hash": "else", "hostname": "elsewhere"}, "halo", 4,
                 startup_s=1.0, estimate_s=1.0, elapsed_s=500.0)
    return store


def test_the_planted_start_up_comes_back(tmp_path):
    store = planted(tmp_path)
    rows = store.real_launches(HOST)
    assert len(rows) == 16                     # 5 rank counts x 3, and the disturbed one
    fit = fit_startup(rows)
    assert fit.start_s == pytest.approx(START_S, abs=1e-3)
    assert fit.per_rank_s == pytest.approx(PER_RANK_S, abs=1e-6)
    assert (fit.launches, fit.rank_counts) == (16, 5)
    assert "3.20 s + 4.00 ms a rank, fitted to 16 earlier launches here" in fit.note()


def test_one_rank_count_keeps_the_models_slope_and_too_few_fit_nothing(tmp_path):
    fit = fit_startup(planted(tmp_path, rank_counts=(4,)).real_launches(HOST))
    assert fit.per_rank_s == STARTUP_PER_RANK_S
    assert fit.startup_s(4) == pytest.approx(START_S + PER_RANK_S * 4)
    assert fit_startup([(2, 5.0, 3.0, 1.0)] * (MIN_FIT_LAUNCHES - 1)) is None
    # launches that took less than planned: no start-up below zero
    assert fit_startup([(2, 1.0, 11.0, 1.0)] * MIN_FIT_LAUNCHES).start_s == 0.0


def test_a_budgeted_plan_is_estimated_by_the_fit_and_says_so(tmp_path):
    store = planted(tmp_path)
    store.close()
    ctx = PlanContext(cores=2, llc_bytes=1 << 20, mem_available_bytes=1 << 30, nranks=2)
    assert "the default model" in startup_note(ctx)
    learn_costs(ctx, str(tmp_path / "r.sqlite"), None, None)
    specs = plan_targets(["pingpong"], [], ctx, 60.0)
    assert specs[0].startup_s == pytest.approx(START_S + PER_RANK_S * specs[0].nranks, abs=1e-3)
    assert any("fitted to 16 earlier launches here (5 rank counts)" in n for n in ctx.notes)
