"""The SP2 study's application set: NAS CG, MG, LU, BT and SP, Mop/s vs ranks per class;
PHOLD's committed events/s and time synchronising vs remote fraction, per lookahead; the
paper's Fig. 7 (execution time and MFlop/s of MG, LU, SP, BT and SWM, one bar per run: old and
new in `compare`) and Fig. 8 (PS's execution time and messages vs offered load)."""
from __future__ import annotations

from typing import List, Optional, Tuple

from matplotlib.ticker import AutoLocator

from .data import fig_label, records, value
from .figures_apps import draw, points_of
from .plot import new_figure, safe_text
from .registry import FigureSpec, register_figure

SECTION = "SP2 application set (NAS CG, MG, LU, BT and SP, SWM, PHOLD, PS)"


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


# Fig. 7's applications: (benchmark, bar label, its rate metric).
FIG7 = (("npb-mg", "MG", "mops"), ("npb-lu", "LU", "mops"), ("npb-sp", "SP", "mops"),
        ("npb-bt", "BT", "mops"), ("swm", "SWM", "mflops"))


def _key(rec: dict) -> Tuple:
    return tuple(sorted((k, str(v)) for k, v in rec["params"].items()))


def _ranks(p: dict) -> int:
    return p.get("ranks") or (p.get("P") or 1) * (p.get("Q") or 1)   # SWM: its P x Q grid


def _shared_point(runs: List[dict], bench: str) -> Optional[Tuple]:
    """The point of `bench` every run measured: the most ranks, then the longest run (the
    largest class or problem), as the paper compared one configuration per application."""
    keys = [{_key(r): r for r in records(run, bench, "run_time") if value(r)} for run in runs]
    shared = set(keys[0]).intersection(*keys[1:]) if keys else set()
    if not shared:
        return None
    return max(shared, key=lambda k: (_ranks(keys[0][k]["params"]), value(keys[0][k])))


def _bar_label(name: str, rec: dict) -> str:
    p = rec["params"]
    size = f"class {p['class']}" if "class" in p else f"T{p.get('truncation')}L{p.get('levels')}"
    return f"{name}\n{size}\n{_ranks(p)} ranks"


def fig7(runs):
    """Execution time and MFlop/s (Mop/s as NPB counts them; SWM: the serial model's flops)
    of each application at the point every run measured, one bar per run."""
    groups = []
    for bench, name, rate in FIG7:
        key = _shared_point(runs, bench)
        if key is None:
            continue
        per_run = []
        for run in runs:
            pick = {m: next(r for r in records(run, bench, m) if _key(r) == key)
                    for m in ("run_time", rate)}
            per_run.append((value(pick["run_time"]), value(pick[rate])))
        groups.append((_bar_label(name, pick["run_time"]), per_run))
    if not groups:
        return None
    fig = new_figure((10.0, 4.0))
    width = 0.8 / len(runs)
    for ax, k, ylabel in zip(fig.subplots(1, 2), (0, 1),
                             ("execution time [s]", "MFlop/s (NPB: Mop/s)")):
        for i, run in enumerate(runs):
            ax.bar([g + i * width for g in range(len(groups))],
                   [per_run[i][k] for _, per_run in groups], width,
                   label=safe_text(fig_label(run)))
        ax.set_xticks([g + width * (len(runs) - 1) / 2 for g in range(len(groups))])
        ax.set_xticklabels([label for label, _ in groups], fontsize=7)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    return fig


PS_PANELS = (("run_time", "execution time [s]"), ("messages", "MPI messages per run"))


def fig8(runs):
    """PS's execution time and messages vs offered load, one series per process count."""
    series = lambda p: (f"{p['ranks']} process(es) ({p['procs']}), {p['routers']} routers, "
                        f"{p['cycles']} cycles")
    load = lambda p: p["load"]
    every = lambda p: True
    if not points_of(runs, "ps", "run_time", load, series, every):
        return None
    fig = new_figure((10.0, 4.0))
    for ax, (metric, ylabel) in zip(fig.subplots(1, 2), PS_PANELS):
        draw(ax, points_of(runs, "ps", metric, load, series, every),
             "offered load [% of the bisection's bandwidth]", ylabel)
        ax.xaxis.set_major_locator(AutoLocator())  # draw() counts ranks; this is a percentage
    return fig


register_figure(FigureSpec(SECTION, "SP2 Fig. 7: execution time and MFlop/s of MG, LU, SP, BT "
                           "and SWM, one bar per run (old/new in a comparison)", fig7, "npb-mg",
                           order=46))
register_figure(FigureSpec(SECTION, "SP2 Fig. 8: PS network simulator, execution time and "
                           "messages vs offered load (32 x 32 torus of routers in the study)",
                           fig8, "ps", order=46))
