"""The LANL application proxies through the command line: planned from their catalog modules,
measured, on the machine card and in the headlines, drawn in the report; plan refusals."""
from __future__ import annotations

import pytest

from helpers import FAST, one_line_error
from hpceval.analysis.card import machine_card
from hpceval.analysis.headlines import headlines

TINY = {
    "hydro": ["--set", "hydro.cells=8x8x8,12x12x12", "--set", "hydro.steps=2"],
    "montecarlo": ["--set", "montecarlo.particles=2000", "--set", "montecarlo.cycles=2"],
}
CARD = {"hydro": "Hydrodynamics cell rate per rank (SAGE-like)",
        "montecarlo": "Monte Carlo transport (MCNP-like), time per history"}


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
    assert {"hydro": "Hydrodynamics: cell rate", "montecarlo": "Monte Carlo transport"}[bench] \
        in html and "<svg" in html


@pytest.mark.parametrize("args,msg", [
    (["hydro", "--np", "2", "--set", "hydro.npe=1x1x1"], "does not fit 2 ranks"),
    (["hydro", "--set", "hydro.cells=8x8"], "'8x8' is not NXxNYxNZ"),
    (["montecarlo", "--np", "3", "--set", "montecarlo.particles=100",
      "--set", "montecarlo.chunk=100"], "leave some of the 2 workers idle"),
    (["montecarlo", "--set", "montecarlo.geometry=cube"], "cube"),
])
def test_plan_refusals(cli, args, msg):
    p = cli("run", *args, *FAST)
    assert p.returncode == 2 and msg in one_line_error(p.stderr), p.stderr
