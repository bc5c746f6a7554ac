"""pctm's figures: simulated years per day against ranks per layout, the time per component and
in the coupler per rank count and layout (the load balance), and the overhead breakdown."""
from __future__ import annotations

from typing import List, Optional

from matplotlib.figure import Figure

from hpceval.analysis.scaling import extra

from .data import records
from .figures_apps import draw, points_of
from .figures_proxies import overhead_specs
from .plot import new_figure, safe_text
from .registry import FigureSpec, register
from .rows_pctm import BENCH, COMPONENTS, METRIC, ORDER

WHAT = "Coupled climate model (PCTM-like)"
COLOURS = ("#1f77b4", "#2ca02c", "#8c564b", "#17becf", "#bcbd22", "#d62728")


def _ranks(p: dict) -> int:
    return int(p["ranks"])


def _series(p: dict) -> str:
    return f"{p['layout']} T{p['truncation']} + {p['nx']}x{p['ny']}"


def _split(ax, runs: List[dict]) -> bool:
    """Stacked bars: each component's seconds per simulated day (the slowest rank's), per rank
    count, the sequential bar left of the concurrent one."""
    recs = [r for run in runs for r in records(run, BENCH, METRIC)]
    if not recs:
        return False
    ranks = sorted({_ranks(r["params"]) for r in recs})
    for r in recs:
        p = r["params"]
        x = ranks.index(_ranks(p)) + (0.2 if p["layout"] == "concurrent" else -0.2)
        bottom = 0.0
        for comp, colour in zip(COMPONENTS, COLOURS):
            h = float(extra(r, f"{comp}_s_per_day") or 0.0)
            ax.bar(x, h, 0.38, bottom=bottom, color=colour,
                   hatch="//" if p["layout"] == "concurrent" else None,
                   label=comp if r is recs[0] else None)
            bottom += h
    ax.set_xticks(range(len(ranks)), [str(n) for n in ranks])
    ax.set_xlabel("ranks (left bar sequential, right hatched concurrent)")
    ax.set_ylabel("slowest rank's time [s per simulated day]")
    ax.legend(fontsize=7)
    return True


def years_and_split(runs: List[dict]) -> Optional[Figure]:
    """Left: simulated years per day vs ranks, one line per layout; right: the time per
    component and in the coupler."""
    pts = points_of(runs, BENCH, METRIC, _ranks, _series, lambda p: True)
    if not pts:
        return None
    fig = new_figure((10.0, 4.0))
    left, right = fig.subplots(1, 2)
    draw(left, pts, "ranks", "simulated years per day")
    left.set_title(safe_text("PCTM-like: years per day per layout"), fontsize=9, loc="left")
    _split(right, runs)
    right.set_title("PCTM-like: time per component and in the coupler", fontsize=9, loc="left")
    return fig


register(FigureSpec("Application proxies", f"{WHAT}: simulated years per day and the time per "
                    "component vs ranks, sequential and concurrent layouts", years_and_split,
                    BENCH, order=ORDER))
for _spec in overhead_specs(BENCH, WHAT, ORDER):
    register(_spec)
