"""montecarlo's figures: time per history, the workers' efficiency and the master's share vs
workers; the overhead breakdown."""
from __future__ import annotations

from .data import value
from .figures_apps import draw, draw_lines, points_of
from .figures_proxies import overhead_specs
from .plot import new_figure
from .registry import FigureSpec, register

SECTION, ORDER = "Application proxies", 42


def _shape(p: dict) -> str:
    return f"{p['cycles']} cycles x {p['particles']} particles"


def _efficiency(runs):
    """{series: [(workers, E)]}: E(W) = t(W = 1) / (W t(W)) per history, the workers'
    efficiency against one worker of the same shape (docs/apps_montecarlo.md; the master
    tracking alone, a run without messages, is the overhead breakdown's baseline instead)."""
    out = {}
    for label, pts in points_of(runs, "montecarlo", "history_time", lambda p: p["workers"],
                                _shape, lambda p: True).items():
        t = {w: value(r) for w, r in pts}
        if 1 in t and len(t) > 1 + (0 in t):
            out[label] = [(w, t[1] / (w * t[w])) for w in sorted(t) if w > 0]
    return out


def histories(runs):
    every = lambda p: True
    time = points_of(runs, "montecarlo", "history_time", lambda p: p["workers"], _shape, every)
    if not time:
        return None
    fig = new_figure((13.5, 4.0))
    left, mid, right = fig.subplots(1, 3)
    draw(left, time, "workers (0: the master tracks alone)", "time per history [ns]")
    left.set_yscale("log")
    draw_lines(mid, _efficiency(runs), "workers", "efficiency t(1 worker) / (W t(W))",
               "no series with one worker and more", unity=True)
    draw(right, points_of(runs, "montecarlo", "master_busy", lambda p: p["workers"], _shape,
                          every), "workers", "master busy [fraction of wall time]")
    return fig


for _spec in [FigureSpec(SECTION, "Monte Carlo transport (MCNP-like): time per history, the "
                         "workers' efficiency and the master's share vs workers", histories,
                         "montecarlo", order=ORDER)
              ] + overhead_specs("montecarlo", "Monte Carlo transport (MCNP-like)", ORDER):
    register(_spec)
