"""pop-step's figures, in the X1 study's layout: simulated years per day against processors
(Figs. 6.1 and 10.1), each phase's wallclock seconds per simulated day against processors
(Figs. 9.6 and 9.7) with the barotropic share of the step, at each rank count's best process
grid; the overhead breakdown."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from matplotlib.figure import Figure

from .data import value
from .figures_apps import draw, points_of
from .figures_proxies import log2_ranks, overhead_specs
from .plot import new_figure
from .registry import FigureSpec, register
from .rows_pop_step import BENCH, ORDER, ranks

WHAT = "Ocean whole time step (POP-like)"


def _series(p: dict) -> str:
    return f"{p['nx']}x{p['ny']}x{p['nz']} {p['clinic_halo']} {p['halo']}/{p['sum']}"


def _phase(name: str):
    return lambda p: f"{name} {_series(p)}"


Points = Dict[str, List[Tuple[float, dict]]]


def _best_grid(rate: Points) -> Tuple[Points, Dict[Tuple[str, float], dict]]:
    """The best process grid per series and rank count (as the X1 study used only the optimal
    grid of each processor count): its points, and its params per (series, ranks)."""
    best: Dict[Tuple[str, float], dict] = {}
    for label, pts in rate.items():
        for x, r in pts:
            if (label, x) not in best or value(r) > value(best[label, x]):
                best[label, x] = r
    return ({label: [(x, best[label, x]) for x in sorted({x for x, _ in pts})]
             for label, pts in rate.items()},
            {k: r["params"] for k, r in best.items()})


def _same_grid(points: Points, chosen: Dict[Tuple[str, float], dict], prefix: str = "") -> Points:
    """Of another metric's points, those of the chosen configurations."""
    return {label: [(x, r) for x, r in pts if chosen.get((label[len(prefix):], x)) == r["params"]]
            for label, pts in points.items()}


def years_and_phases(runs: List[dict]) -> Optional[Figure]:
    """Left: simulated years per day vs processors; middle: seconds per simulated day of the
    barotropic and the baroclinic phase; right: the barotropic share of the step; each at the
    best process grid of the rank count."""
    keep = lambda p: True  # noqa: E731
    rate, chosen = _best_grid(points_of(runs, BENCH, "sim_years_per_day", ranks, _series, keep))
    if not rate:
        return None
    fig = new_figure((13.5, 4.2))
    left, mid, right = fig.subplots(1, 3)
    draw(left, rate, "number of processes", "simulated years per day")
    left.set_title("POP-like whole step: years per day", fontsize=9, loc="left")
    phases = {**_same_grid(points_of(runs, BENCH, "barotropic_time", ranks, _phase("barotropic"),
                                     keep), chosen, "barotropic "),
              **_same_grid(points_of(runs, BENCH, "baroclinic_time", ranks, _phase("baroclinic"),
                                     keep), chosen, "baroclinic ")}
    draw(mid, phases, "number of processes", "wallclock s per simulated day")
    mid.set_title("each phase (as X1 Figs. 9.6, 9.7)", fontsize=9, loc="left")
    draw(right, _same_grid(points_of(runs, BENCH, "barotropic_share", ranks, _series, keep),
                           chosen), "number of processes", "barotropic share of the step [%]")
    right.set_title("the split between the phases", fontsize=9, loc="left")
    for ax in (left, mid):
        ax.set_yscale("log")
    every = sorted({ranks(r["params"]) for pts in rate.values() for _, r in pts})
    for ax in (left, mid, right):
        log2_ranks(ax, every)
    return fig


register(FigureSpec("Application proxies", f"{WHAT}: simulated years per day and the "
                    "barotropic/baroclinic split vs processors", years_and_phases, BENCH,
                    order=ORDER))
for _spec in overhead_specs(BENCH, WHAT, ORDER):
    register(_spec)
