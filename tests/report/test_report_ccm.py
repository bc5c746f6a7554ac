"""ccm's figures from planted records (hpceval/views/figures_ccm.py): Fig. 7's computation and
parallel overhead summed over the processors, per balance, and the overhead breakdown's shares,
where the physics' imbalance is what the swap takes away."""
from matplotlib.figure import Figure

from hpceval.report import FIGURES
from hpceval.views import figures_ccm as fc
from hpceval.views.plot import make_figure
from proxy_runs import make_run, stats

KINDS = {"physics": "compute", "swap_copy": "copy", "swap": "comm", "halo_copy": "copy",
         "halo": "comm", "advect": "compute", "fixer": "comm"}


def step(balance, P, Q, wall, **phases):
    """A step_time record, us per step: per-rank phases (the rest 0) and wall times."""
    p = P * Q
    return {"benchmark": "ccm", "metric": "step_time", "unit": "us", "statistic": "median",
            "better": "lower", "converged": True, "stats": stats(max(wall)),
            "params": {"nlon": 128, "nlat": 64, "levels": 18, "P": P, "Q": Q,
                       "balance": balance},
            "extra": {"wall_per_rank": wall, "phases": {
                n: {"kind": k, "per_rank": phases.get(n, [0.0] * p)} for n, k in KINDS.items()}}}


def planted():
    """1 rank: 1,000 us of physics, 100 of advection. 2 ranks without the swap: rank 0 has the
    day (900 us of physics) and rank 1 waits 800 us in the halo; with it, 500 each and 30 us of
    swapping."""
    run = make_run(with_baro=False, with_traces=False)
    run["records"] = [
        step("none", 1, 1, [1110.0], physics=[1000.0], advect=[100.0], fixer=[10.0]),
        step("none", 1, 2, [960.0, 960.0], physics=[900.0, 100.0], advect=[50.0, 50.0],
             halo=[10.0, 810.0]),
        step("swap", 1, 2, [585.0, 585.0], physics=[500.0, 500.0], swap_copy=[5.0, 5.0],
             swap=[20.0, 20.0], advect=[50.0, 50.0], halo=[10.0, 10.0])]
    return run


def test_fig7_sums_computation_and_overhead_over_the_processors():
    rows = fc.split_rows(planted())
    assert rows == {("128x64x18", "none"): [(1, 1100.0, 10.0), (2, 1100.0, 820.0)],
                    ("128x64x18", "swap"): [(2, 1100.0, 70.0)]}
    specs = [s for s in FIGURES if s.benchmark == "ccm"]
    # and the scaling figure every proxy that declares how it scales has
    assert {"ccm_split", "ccm_overhead"} <= {s.make.__name__ for s in specs}
    for spec in specs:
        assert isinstance(make_figure(spec, [planted()]), Figure), spec.title


def test_the_swap_takes_the_imbalance_away():
    table = fc.ccm_overhead_table(planted())
    head = table.columns
    rows = {(r[head.index("variant")], r[head.index("ranks")]): r for r in table.rows}
    imbal = head.index("imbal %")
    # none at 2 ranks: sum_r (max work - work) = 800 us of 1,920; the swap: 0
    assert rows[("none", "2")][imbal] == "41.7" and rows[("swap", "2")][imbal] == "0.0"
    assert rows[("swap", "2")][head.index("baseline")] == "1 rank, variant none"
    assert rows[("none", "2")][head.index("problem")] == "128x64 L18"
