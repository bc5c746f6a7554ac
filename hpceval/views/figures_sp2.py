"""The SP2 study's application set: NAS CG, MG, LU, BT and SP, Mop/s vs ranks per class;
PHOLD's committed events/s and time synchronising vs remote fraction, per lookahead."""
from __future__ import annotations

from matplotlib.ticker import AutoLocator

from .figures_apps import draw, points_of
from .plot import new_figure
from .registry import FigureSpec, register_figure

SECTION = "SP2 application set (NAS CG, MG, LU, BT and SP, PHOLD)"


def mops_figure(bench: str):
    """Mop/s (NPB's operation count) vs ranks, one series per class."""
    def rates(runs):
        pts = points_of(runs, bench, "mops", lambda p: p["ranks"],
                        lambda p: f"class {p['class']}", lambda p: True)
        if not pts:
            return None
        fig = new_figure((6.0, 4.0))
        draw(fig.subplots(1, 1), pts, "ranks", "Mop/s (NPB's operation count)")
        return fig
    return rates


def _phold_series(p: dict) -> str:
    return f"lookahead {p['lookahead']:g}, {p['sync']}, {p['ranks']} rank(s)"


PHOLD_PANELS = (("event_rate", "committed events per second", "log"),
                ("sync_share", "time synchronising [fraction]", "linear"))


def rate(runs):
    every = lambda p: True
    remote = lambda p: p["remote"]
    if not points_of(runs, "phold", "event_rate", remote, _phold_series, every):
        return None
    fig = new_figure((10.0, 4.0))
    for ax, (metric, ylabel, yscale) in zip(fig.subplots(1, 2), PHOLD_PANELS):
        draw(ax, points_of(runs, "phold", metric, remote, _phold_series, every),
             "remote fraction", ylabel)
        ax.set_yscale(yscale)
        ax.xaxis.set_major_locator(AutoLocator())  # draw() counts ranks; this is a fraction
    return fig


for _bench, _what, _order in (("npb-cg", "NAS CG (NPB)", 44), ("npb-mg", "NAS MG (NPB)", 45),
                              ("npb-lu", "NAS LU (NPB)", 45), ("npb-bt", "NAS BT (NPB)", 45),
                              ("npb-sp", "NAS SP (NPB)", 45)):
    register_figure(FigureSpec(SECTION, f"{_what}: Mop/s vs ranks, per class", mops_figure(_bench),
                               _bench, order=_order))
register_figure(FigureSpec(SECTION, "PHOLD discrete-event simulation: committed events/s and time "
                           "synchronising vs remote fraction, per lookahead", rate, "phold",
                           order=46))
