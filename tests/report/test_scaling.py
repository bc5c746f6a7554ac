"""The study's figures against processor count (hpceval/views/figures_scaling.py): a real
ladder run of two proxies; the best variant per rung and its margin; two runs on one axis."""
from __future__ import annotations

import pytest

from helpers import CLI, FAST
from hpceval.analysis.scaling import best_per_rung
from hpceval.views.figures_scaling import best_table, scaling_figure


@pytest.fixture(scope="module")
def ladder_runs(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("ladder") / "r.sqlite")
    for tag in ("a", "b"):
        p = cli("run", "barotropic", "hydro", *FAST, "--set", "ranks=node",
                "--set", "barotropic.grids=96x64", "--set", "barotropic.pgrids=square",
                "--set", "barotropic.halos=pack,datatype", "--set", "barotropic.sums=allreduce",
                "--set", "barotropic.mappings=row", "--set", "hydro.cells=8x8x8",
                "--tag", tag)
        assert p.returncode == 0, p.stderr
    return cli.export()


def test_the_best_variant_per_rung_and_its_margin(ladder_runs):
    rows = best_per_rung(ladder_runs[0]["records"], "barotropic")
    assert [r["nranks"] for r in rows] == [1, 2]
    for r in rows:
        assert r["best"] in ("pack/allreduce", "datatype/allreduce")
        assert r["runner_up"] in ("pack/allreduce", "datatype/allreduce") and r["margin"] >= 0
    # strong scaling's efficiency is p0 T0 / (p T) of the best variants' times; no bound on it
    # (beside the other worker's ranks the 1-rank time came out 2.9x the 2-rank time's double)
    t1, t2 = rows[0]["time_us"], rows[1]["time_us"]
    assert rows[0]["efficiency"] == 1.0 and rows[1]["efficiency"] == pytest.approx(t1 / (2 * t2))
    weak = best_per_rung(ladder_runs[0]["records"], "hydro")
    assert [r["scaling"] for r in weak] == ["weak", "weak"]


def test_figures_against_processors_and_two_runs_on_one_axis(ladder_runs):
    fig = scaling_figure("barotropic")(ladder_runs[:1])
    ax_t, ax_e = fig.axes[:2]
    assert ax_t.get_xscale() == "log" and ax_t.get_yscale() == "log"
    assert len(ax_t.lines) == 2 and ax_t.lines[1].get_linestyle() == "--"   # measured, ideal
    both = scaling_figure("barotropic")(ladder_runs)
    labels = [t.get_text() for t in both.legends[0].get_texts()]
    assert len(labels) == 2 and labels[0] != labels[1]
    table = best_table("hydro")(ladder_runs[0])
    assert [row[2] for row in table.rows] == [1, 2] and "efficiency" in table.columns
