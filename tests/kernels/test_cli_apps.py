"""The LANL application proxies through the command line: planned from their catalog modules,
measured, on the machine card and in the headlines, drawn in the report; plan refusals."""
from __future__ import annotations

import json

import pytest

from helpers import FAST, one_line_error
from hpceval.analysis.card import machine_card
from hpceval.analysis.headlines import headlines

TINY = {
    "hydro": ["--set", "hydro.cells=12x12x12,16x16x16,20x20x20", "--set", "hydro.steps=2"],
    "montecarlo": ["--set", "montecarlo.particles=2000", "--set", "montecarlo.cycles=2"],
    "sweep": ["--set", "sweep.per-rank=6x6x6", "--set", "sweep.mk=2,6", "--set", "sweep.sn=4"],
}
CARD = {"hydro": "Hydrodynamics cell rate per rank (SAGE-like)",
        "montecarlo": "Monte Carlo transport (MCNP-like), time per history",
        "sweep": "Wavefront transport (Sweep3D-like), grind time"}


@pytest.mark.parametrize("bench", sorted(TINY))
def test_measured_carded_and_drawn(cli, tmp_path, bench):
    p = cli("run", bench, "--set", f"{bench}.ranks=1,2", *FAST, *TINY[bench], timeout=300)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and {l["nranks"] for l in run["launches"]} == {1, 2}
    card = {r["quantity"]: r for r in machine_card(run)}
    assert card[CARD[bench]]["measured"], card[CARD[bench]]
    assert any(bench in str(h["record"]["benchmark"]) for h in headlines(run["records"]))
    out = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(out)).returncode == 0
    html = out.read_text()
    assert {"hydro": "Hydrodynamics: cell rate", "montecarlo": "Monte Carlo transport",
            "sweep": "Wavefront transport"}[bench] \
        in html and "<svg" in html
    if bench == "hydro":       # 16^3 is judged between 12^3 and 20^3, the probe's LLC is marked
        assert "cache sizes marked" in html and "Hydrodynamics: power-of-two dips" in html
        assert run["settings"]["llc"]["source"] in ("detected", "reported")
    if bench == "montecarlo":  # the workers' efficiency against the master tracking alone
        assert "workers&#39; efficiency" in html or "workers' efficiency" in html


@pytest.mark.parametrize("args,msg", [
    (["hydro", "--np", "2", "--set", "hydro.npe=1x1x1"], "does not fit 2 ranks"),
    (["hydro", "--set", "hydro.cells=8x8"], "'8x8' is not NXxNYxNZ"),
    (["montecarlo", "--np", "3", "--set", "montecarlo.particles=100",
      "--set", "montecarlo.chunk=100"], "leave some of the 2 workers idle"),
    (["montecarlo", "--set", "montecarlo.geometry=cube"], "cube"),
    (["sweep", "--set", "sweep.sn=5"], "S_5 has no level-symmetric quadrature"),
    (["sweep", "--set", "sweep.mmi=11"], "mmi"),
    (["sweep", "--set", "sweep.per-rank=0x4x4"], "positive numbers"),
])
def test_plan_refusals(cli, args, msg):
    p = cli("run", *args, *FAST)
    assert p.returncode == 2 and msg in one_line_error(p.stderr), p.stderr


def test_strong_scaling_feeds_the_overhead_breakdown(cli):
    """hydro, sweep and montecarlo join the overhead breakdown that barotropic and psst feed
    (their phase timers against the one-rank run of the same global problem; for montecarlo the
    master tracking alone); the efficiency of montecarlo's workers (against one worker) is drawn
    from the same run."""
    from hpceval.analysis.scaling import overhead_rows, strong_scaling
    from hpceval.views.figures_montecarlo import _efficiency
    p = cli("run", "hydro", "sweep", "montecarlo", *FAST, "--set", "ranks=1,2",
            "--set", "hydro.grid=24x8x8", "--set", "hydro.steps=2", "--set", "sweep.grid=12x12x12",
            "--set", "sweep.sn=4", "--set", "montecarlo.particles=4000",
            "--set", "montecarlo.cycles=2", "--set", "montecarlo.ranks=1,2,3", timeout=300)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    (eff,) = _efficiency([run]).values()
    assert [w for w, _ in eff] == [1, 2] and eff[0][1] == 1.0 and 0 < eff[1][1] < 1.5, eff
    for bench in ("hydro", "sweep", "montecarlo"):
        rows = overhead_rows(run["records"], bench)
        assert 2 in [r["nranks"] for r in rows], (bench, rows)   # (1: the baseline itself)
        counts = {1, 2, 3} if bench == "montecarlo" else {1, 2}
        assert {r["nranks"] for r in strong_scaling(run["records"], bench)} == counts, bench
    assert cli("run", "apps", "--dry-run").returncode == 0


def test_compare_and_history_of_the_proxies(cli):
    """Two runs of the apps at tiny sizes: compare pairs their points, history follows them."""
    sets = [w for b in sorted(TINY) for w in TINY[b]] + ["--set", "sweep.mk=2"]
    for _ in range(2):
        p = cli("run", *sorted(TINY), *FAST, *sets, timeout=300)
        assert p.returncode == 0, p.stderr
    out = json.loads(cli("compare", "1", "2", "--json", "--all").stdout)
    shared = {r["benchmark"] for r in out["rows"]}
    assert {"hydro", "montecarlo", "sweep"} <= shared, shared
    for bench, metric in (("hydro", "cell_rate_per_rank"), ("montecarlo", "history_time"),
                          ("sweep", "grind_time")):
        p = cli("history", "--benchmark", bench, "--metric", metric, "--json")
        assert p.returncode == 0, p.stderr
        series = json.loads(p.stdout)
        assert series and all(len(s["points"]) == 2 for s in series), (bench, series)
