"""pop-step's catalog declaration (hpceval/catalog/bench_pop_step.py): the plan per rank count
(process grids, the one-block reference's memory on rank 0, settings and sizes refused before
launching), the study entries, and its views on real 1- and 2-rank runs: card and headline
rows, the years-per-day / phase-split figure, the overhead table, the scaling table, compare
and history."""
import json

import pytest

from helpers import CLI, FAST
from hpceval.catalog import PlanContext, plan_targets
from hpceval.catalog.registry import STUDY
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_one_launch_per_rank_count_with_square_process_grids():
    specs = plan_targets(["pop-step"], ["ranks=1,2,4", "clinic-halos=all"], CTX)
    assert [(s.nranks, arg(s, "--pgrids")) for s in specs] == [(1, "1x1"), (2, "1x2,2x1"),
                                                               (4, "2x2,1x4")]
    assert all(arg(s, "--grids") == "64x48x10" and arg(s, "--clinic-halos") == "levels,aggregate"
               for s in specs)
    # 5 records per process grid and 3-D halo variant
    assert [s.expected_results for s in specs] == [10, 20, 20]
    [big] = plan_targets(["pop-step"], ["ranks=2", "grids=320x384x40", "pgrids=2x1"], CTX)
    assert big.timeout_s > specs[1].timeout_s and arg(big, "--ref-max") == "8000000"


def test_the_study_runs_the_x1_grids():
    entries = [settings for name, settings in STUDY if name == "pop-step"]
    assert [e["grids"] for e in entries] == ["320x384x40", "3600x2400x40"]
    assert entries[1]["ranks"] == "ladder>=64"


@pytest.mark.parametrize("sets,msg", [
    (["ranks=2", "pgrids=3x1"], "none of 3x1 fits 2 ranks"),
    (["ranks=4", "grids=3x8x4", "pgrids=4x1"], "4x1 process grid leaves blocks smaller"),
    (["grids=2x8x4"], "too small"),
    (["grids=64x48"], "is not NXxNYxNZ"),
    (["grids=16000x16000x40"], "too big"),
    (["ranks=4", "grids=3600x2400x40"], "GiB but only"),
    (["clinic-halos=fused"], "clinic-halos"),
    (["halos=fused"], "halos"),
    (["steps=0"], "steps"),
    (["dt=86400"], "dt"),
    (["ref-max=-1"], "ref-max"),
])
def test_refused_before_launching(sets, msg):
    with pytest.raises(UsageError, match=msg):
        plan_targets(["pop-step"], sets, CTX)


def test_hostile_set_value_is_one_line_and_exit_2(cli):
    p = cli("run", "pop-step", "--set", "grids=64x48x10;rm -rf /")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len([l for l in p.stderr.splitlines() if l.strip()]) == 1


SETS = ["--set", "pop-step.ranks=1,2", "--set", "pop-step.grids=24x16x4",
        "--set", "pop-step.steps=2", "--set", "pop-step.pgrids=all",
        "--set", "pop-step.clinic-halos=aggregate"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("popstep") / "r.sqlite")
    for _ in range(2):
        p = cli("run", "pop-step", *FAST, *SETS)
        assert p.returncode == 0, p.stderr
    return cli, cli.export("1", "2")


def test_card_and_headline_rows(runs):
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    run = runs[1][-1]
    rows = {h["label"]: h["record"] for h in headlines(run["records"])}
    rate = [r for label, r in rows.items() if label.startswith("POP whole step, simulated")]
    share = [r for label, r in rows.items() if label.startswith("POP whole step, barotropic")]
    assert rate[0]["metric"] == "sim_years_per_day" and share[0]["metric"] == "barotropic_share"
    assert rate[0]["params"] == share[0]["params"]
    card = [r for r in machine_card(run) if "whole" in r["quantity"]]
    assert [r["unit"] for r in card] == ["years/day", "%"] and all(r["value"] for r in card)


def test_figures_and_tables(runs):
    from hpceval.analysis.scaling import best_per_rung
    from hpceval.views.figures_pop_step import WHAT, years_and_phases
    from hpceval.views.figures_proxies import overhead_specs
    run = runs[1][-1]
    fig = years_and_phases([run])
    left, mid, right = fig.axes[:3]
    assert "years per day" in left.get_ylabel() and "per simulated day" in mid.get_ylabel()
    assert "barotropic share" in right.get_ylabel()
    assert len(left.lines) >= 1 and len(mid.lines) >= 2  # per variant; each phase per variant
    overhead, table = overhead_specs("pop-step", WHAT, 41)
    assert overhead.make([run]) is not None and table.make(run) is not None
    assert [r["nranks"] for r in best_per_rung(run["records"], "pop-step")] == [1, 2]


def test_compare_and_history(runs):
    cli, _ = runs
    p = cli("compare", "1", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert "sim_years_per_day" in p.stdout and "barotropic_share" in p.stdout
    json.loads(p.stdout)
    p = cli("history", "--benchmark", "pop-step", "--metric", "sim_years_per_day")
    assert p.returncode == 0 and "sim_years_per_day" in p.stdout
