"""evh1's catalog declaration (hpceval/catalog/bench_evh1.py): the plan per rank count (weak and
strong scaling, the process grid, settings refused before launching), and its views on a real
1- and 2-rank run: card and headline rows, the rate / transposes-share figure, the overhead
table, the scaling and tuned tables and the model's prediction."""
import pytest

from helpers import CLI, FAST
from hpceval.catalog import PlanContext, plan_targets
from hpceval.catalog.bench_evh1 import dims2, largest_box, weak_factors
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_process_grid_and_boxes():
    assert [dims2(n) for n in (1, 2, 4, 6, 12, 7)] == [(1, 1), (2, 1), (2, 2), (3, 2), (4, 3),
                                                      (7, 1)]
    assert [weak_factors(n) for n in (1, 2, 4, 7, 8, 12, 10000)] == [
        (1, 1, 1), (2, 1, 1), (2, 2, 1), (7, 1, 1), (2, 2, 2), (3, 2, 2), (25, 20, 20)]
    # X: 10 x 4 x 4, Y: 5 x 8 x 4, Z: 5 x 4 x 8 (ceilings of uneven blocks)
    assert largest_box((10, 8, 8), 2, 2) == 160
    assert largest_box((10, 7, 9), 2, 2) == 10 * 4 * 5


def test_weak_and_strong_plans():
    weak = plan_targets(["evh1"], ["ranks=1,2,4", "zones=8x8x8"], CTX)
    assert [(s.nranks, arg(s, "--npe"), arg(s, "--zones")) for s in weak] == [
        (1, "1x1", "8x8x8"), (2, "2x1", "8x8x8"), (4, "2x2", "8x8x8")]
    assert all(arg(s, "--transposes") == "alltoallv,pairwise,alltoallw" for s in weak)
    assert [s.expected_results for s in weak] == [12, 12, 12]
    [strong] = plan_targets(["evh1"], ["ranks=2", "grid=16x8x8,32x8x8", "transposes=pairwise",
                                       "problem=sod", "axis=y", "npe=1x2"], CTX)
    assert arg(strong, "--grid") == "16x8x8,32x8x8" and arg(strong, "--npe") == "1x2"
    assert (arg(strong, "--problem"), arg(strong, "--axis")) == ("sod", "y")
    assert strong.expected_results == 8 and "--zones" not in strong.args
    assert plan_targets(["evh1"], ["transposes=all"], CTX)[0].args.count("--transposes") == 1


@pytest.mark.parametrize("sets,msg", [
    (["ranks=2", "npe=3x1"], "npe=3x1 does not fit 2 ranks"),
    (["ranks=2", "grid=1x8x8"], "leaves a rank without zones"),
    (["ranks=1", "grid=4096x4096x4096"], "more than the binary's"),
    (["transposes=alltoall"], "transposes"),
    (["zones=8x8"], "is not NXxNYxNZ"),
    (["cfl=1"], "cfl"),
    (["axis=w"], "axis"),
])
def test_refused_before_launching(sets, msg):
    with pytest.raises(UsageError, match=msg):
        plan_targets(["evh1"], sets, CTX)


@pytest.fixture(scope="module")
def run(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("evh1") / "r.sqlite")
    p = cli("run", "evh1", *FAST, "--set", "evh1.ranks=1,2", "--set", "evh1.steps=2",
            "--set", "evh1.grid=16x8x8")
    assert p.returncode == 0, p.stderr
    return cli.export("latest")[0]


def test_card_and_headline_rows(run):
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    rows = {h["label"]: h["record"] for h in headlines(run["records"])}
    rate = [r for label, r in rows.items() if label.startswith("EVH1 zone rate per rank")]
    share = [r for label, r in rows.items() if label.startswith("EVH1 transposes' share")]
    assert rate and rate[0]["metric"] == "zone_rate_per_rank"
    assert share and share[0]["metric"] == "transpose_share"
    assert share[0]["params"]["P"] * share[0]["params"]["Q"] == 2
    card = [r for r in machine_card(run) if "EVH1" in r["quantity"]]
    assert [r["unit"] for r in card] == ["zones/s", "%"] and all(r["value"] for r in card[:1])


def test_figures_and_tables(run):
    from hpceval.catalog import bench_evh1
    from hpceval.analysis.scaling import best_per_rung
    from hpceval.analysis.tune import tuned_table
    from hpceval.views.figures_evh1 import WHAT, rates_and_share
    from hpceval.views.figures_proxies import overhead_specs
    overhead, table = overhead_specs("evh1", WHAT, 44)
    fig = rates_and_share([run])
    left, right = fig.axes[:2]
    assert "zone" in left.get_ylabel() and "transposes" in right.get_ylabel()
    assert len(left.lines) >= 3           # a line per variant and grid
    assert overhead.make([run]) is not None and table.make(run) is not None
    rows = best_per_rung(run["records"], "evh1")
    assert [r["nranks"] for r in rows] == [1, 2]
    tuned = tuned_table(run["records"], "evh1")
    assert {r["ranks"] for r in tuned} == {1, 2}
    assert all(r["candidates"] == 3 and r["best"]["transpose"] in bench_evh1.VARIANTS
               for r in tuned)


def test_prediction_against_the_run(run):
    from hpceval.analysis.predict import Machine, model, predict
    from hpceval.analysis.predict.model import read_options
    m = Machine([run], lambda n: 1.0 + 0.001 * n, {}, "x", None)
    am = model("evh1")
    one, two = predict(am, read_options(am, {"grid": "16x8x8"}), [1, 2], m)
    assert one.measured and two.measured and one.parts["transposes"] == 0
    assert two.parts["sweeps"] == pytest.approx(one.parts["sweeps"] / 2)
