"""pctm's catalog declaration (hpceval/catalog/bench_pctm.py): the plan per rank count (one rank
has no concurrent layout), settings refused before launching, and its views on a real 1- and
2-rank run: card and headline rows, the years-per-day / component-split figure, the overhead
table, the scaling rows and the tuned table (the winning layout per rank count)."""
import pytest

from helpers import CLI, FAST
from hpceval.catalog import PlanContext, plan_targets
from hpceval.catalog.bench_pctm import atm_fits, gauss_grid, ocn_fits
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
SMALL = ["ocean=32x24", "truncation=10", "days=0.5", "tol=1e-5"]


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_grids_fit_as_the_binary_says():
    assert [gauss_grid(m) for m in (10, 21, 42)] == [(32, 16), (64, 32), (128, 64)]
    assert atm_fits(21, 22) and atm_fits(42, 64) and not atm_fits(21, 64)
    assert ocn_fits(96, 64, 4) and not ocn_fits(8, 8, 64)


def test_plan_per_rank_count():
    specs = plan_targets(["pctm"], ["ranks=1,2,4"] + SMALL, CTX)
    assert [(s.nranks, arg(s, "--layouts"), s.expected_results) for s in specs] == [
        (1, "sequential", 2), (2, "sequential,concurrent", 4), (4, "sequential,concurrent", 4)]
    assert all(arg(s, "--ocean") == "32x24" and arg(s, "--truncation") == "10" for s in specs)


@pytest.mark.parametrize("sets,msg", [
    (["ranks=1", "layouts=concurrent"], "concurrent layout needs at least 2 ranks"),
    (["atm-steps=1"], "beyond T21's stable"),
    (["days=0.3"], "not a whole number of 6 h coupling intervals"),
    (["ocean=32x24,64x48"], "one grid"),
    (["ranks=64", "truncation=5"], "do not divide T5's atmosphere"),
    (["ranks=2", "ocean-ranks=2"], "ocean-ranks=2 does not split"),
    (["hours=0"], "hours"),
    (["layouts=parallel"], "layouts"),
])
def test_refused_before_launching(sets, msg):
    with pytest.raises(UsageError, match=msg):
        plan_targets(["pctm"], sets, CTX)


@pytest.fixture(scope="module")
def run(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("pctm") / "r.sqlite")
    p = cli("run", "pctm", *FAST, "--set", "pctm.ranks=1,2",
            *[a for s in SMALL for a in ("--set", f"pctm.{s}")])
    assert p.returncode == 0, p.stderr
    return cli.export("latest")[0]


def test_card_and_headline_rows(run):
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    rows = [h for h in headlines(run["records"]) if h["label"].startswith("PCTM years per day")]
    # the best point, then each layout at the most ranks (2)
    assert any("2 ranks, concurrent (ocean on 1, atmosphere on 1)" in h["label"] for h in rows)
    assert any("2 ranks, sequential" in h["label"] for h in rows)
    assert all(h["record"]["metric"] == "sim_years_per_day" for h in rows)
    card = [r for r in machine_card(run) if "PCTM" in r["quantity"]]
    assert [r["unit"] for r in card] == ["years/day", "years/day"] and all(r["value"]
                                                                           for r in card)


def test_figures_and_tables(run):
    from hpceval.analysis.scaling import best_per_rung
    from hpceval.analysis.tune import tuned_table
    from hpceval.views.figures_pctm import WHAT, years_and_split
    from hpceval.views.figures_proxies import overhead_specs
    fig = years_and_split([run])
    left, right = fig.axes[:2]
    assert "years per day" in left.get_ylabel() and "simulated day" in right.get_ylabel()
    assert len(left.lines) >= 2                          # a line per layout
    assert len(right.patches) == 6 * 3                   # 6 components x 3 (ranks, layout) bars
    overhead, table = overhead_specs("pctm", WHAT, 45)
    assert table.make(run) is not None
    assert [r["nranks"] for r in best_per_rung(run["records"], "pctm")] == [1, 2]
    tuned = {r["ranks"]: r for r in tuned_table(run["records"], "pctm")}
    assert set(tuned) == {2} and tuned[2]["candidates"] == 2   # one rank: one layout, no choice
    assert tuned[2]["best"]["layout"] in ("sequential", "concurrent")
