"""evh1's figures: zone rate per rank and the transposes' share against ranks, per transpose
variant and problem size; the overhead breakdown."""
from __future__ import annotations

from typing import List, Optional

from matplotlib.figure import Figure

from .figures_apps import draw, points_of
from .figures_proxies import overhead_specs
from .plot import new_figure
from .registry import FigureSpec, register
from .rows_evh1 import BENCH, ORDER, ranks

WHAT = "Split Lagrangian hydrodynamics (EVH1-like)"


def _series(p: dict) -> str:
    zones = p["nx"] * p["ny"] * p["nz"]
    shape = (f"{zones // ranks(p)} zones/rank" if p["scaling"] == "weak"
             else f"{p['nx']}x{p['ny']}x{p['nz']}")
    return f"{p['transpose']} {shape}"


def rates_and_share(runs: List[dict]) -> Optional[Figure]:
    """Left: zones/s per rank vs ranks, one line per transpose variant and problem size (weak
    and strong scaling); right: the transposes' share of the time, the same lines."""
    keep = lambda p: p.get("problem") == "blast"  # noqa: E731
    rates = points_of(runs, BENCH, "zone_rate_per_rank", ranks, _series, keep)
    if not rates:
        return None
    fig = new_figure((10.0, 4.0))
    left, right = fig.subplots(1, 2)
    draw(left, rates, "ranks", "zone updates per s per rank")
    left.set_title("EVH1-like: zone rate per rank", fontsize=9, loc="left")
    draw(right, points_of(runs, BENCH, "transpose_share", ranks, _series, keep), "ranks",
         "transposes (pack + exchange) [% of the step]")
    right.set_title("EVH1-like: share of the time in the transposes", fontsize=9, loc="left")
    return fig


register(FigureSpec("Application proxies", f"{WHAT}: zone rate per rank and the transposes' "
                    "share vs ranks, per transpose variant", rates_and_share, BENCH, order=ORDER))
for _spec in overhead_specs(BENCH, WHAT, ORDER):
    register(_spec)
