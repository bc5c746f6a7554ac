"""The acceptance suite (issue #51 item 5): planned from the allocation, four launches of one
rank a node whatever its size, fitted to a --budget; one node gets the node checks and a note
that the network (the map, the bisection) needs two, congestion four. Its proof on a simulated platform with planted faults is
tests/simulate/test_acceptance_planted.py."""
import time

import pytest

from helpers import FAST
from hpceval.catalog import PlanContext
from hpceval.catalog.plan import plan_targets
from hpceval.catalog.registry import SUITES


def test_ten_thousand_nodes_plan_in_four_launches_within_the_budget():
    ctx = PlanContext(cores=64, llc_bytes=32 << 20, mem_available_bytes=16 << 30,
                      nodes=10_000, ppn=64)
    t0 = time.perf_counter()
    specs = plan_targets(["acceptance"], [], ctx, budget_s=600)
    assert time.perf_counter() - t0 < 2.0
    assert [(s.benchmark, s.nranks, s.ppn) for s in specs] == [("nodecheck", 10_000, 1),
                                                                 ("netmap", 10_000, 1),
                                                                 ("bisection", 10_000, 1),
                                                                 ("congestion", 10_000, 1)]
    assert any("16 of 5000 rounds sampled" in n for n in ctx.notes), ctx.notes
    assert specs[2].label == "bisection np=10000 matchings=8"
    assert specs[2].expected_results == 8 * (5000 + 1)      # each matching's pairs, its aggregate
    assert [b for b, _ in SUITES["acceptance"].entries] == ["nodecheck", "netmap", "bisection",
                                                         "congestion"]


def test_one_node_gets_the_node_checks_and_a_note(cli):
    p = cli("run", "acceptance", *FAST, "--dry-run")
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "nodecheck nodes=1" in out and "netmap np=" not in out
    assert "plan: netmap left out: the network needs 2 nodes or more, this allocation has 1" in out
    assert "bisection np=" not in out and "congestion np=" not in out
    assert "plan: congestion left out: victims and aggressors need 4 nodes or more, this " \
        "allocation has 1" in out
    assert "plan: bisection left out: the network needs 2 nodes or more, this allocation has 1" \
        in out


def test_a_simulated_map_gets_the_time_smpi_takes_for_it():
    """One process runs every simulated rank's messages: 100 nodes' map takes SMPI minutes, so
    its time limit follows the simulation's cost, not the real launch's (60 s and change)."""
    from hpceval.catalog.registry import sim_cost_model, sim_declared
    ctx = PlanContext(cores=1, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=100,
                      ppn=1, sim_cost=sim_cost_model(0.2, 0.01))
    real = plan_targets(["acceptance"], [], PlanContext(cores=1, llc_bytes=32 << 20,
                        mem_available_bytes=16 << 30, nodes=100, ppn=1))
    sim = plan_targets(["acceptance"], [], ctx)
    netmap = sim[1]
    assert netmap.timeout_s >= 3 * 2 * netmap.expected_results * sim_declared()[0]["netmap"]
    assert netmap.timeout_s > 10 * real[1].timeout_s and netmap.estimate_s == \
        pytest.approx(real[1].timeout_s / 3 - 20)
