"""Figure makers shared by the application proxies (hydro, montecarlo, sweep, the SP2 set): a
rate or a time against a size and against the rank count, one series per run and
configuration. Each proxy's figures module registers its figures with these
(hpceval/views/figures_<name>.py)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .data import fig_label, records, value
from .plot import new_figure, safe_text

Params = Dict[str, object]


def points_of(runs: List[dict], bench: str, metric: str, x: Callable[[Params], float],
            series: Callable[[Params], str], keep: Callable[[Params], bool]
            ) -> Dict[str, List[Tuple[float, dict]]]:
    """{legend: [(x, record)] sorted by x}: one series per run and `series` label."""
    out: Dict[str, List[Tuple[float, dict]]] = {}
    many = len(runs) > 1
    for run in runs:
        for r in records(run, bench, metric):
            if value(r) is None or not keep(r["params"]):
                continue
            label = series(r["params"]) + (f" — {fig_label(run)}" if many else "")
            out.setdefault(label, []).append((x(r["params"]), r))
    return {k: sorted(v, key=lambda t: t[0]) for k, v in sorted(out.items())}


def draw(ax, points: Dict[str, List[Tuple[float, dict]]], xlabel: str, ylabel: str,
         logx: bool = False) -> bool:
    """Median with its 95% CI as error bars; False when there is nothing to draw."""
    for label, pts in points.items():
        xs = [x for x, _ in pts]
        ys = [value(r) for _, r in pts]
        lo = [max(y - (r["stats"].get("ci_low") or y), 0) for (_, r), y in zip(pts, ys)]
        hi = [max((r["stats"].get("ci_high") or y) - y, 0) for (_, r), y in zip(pts, ys)]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=2, label=safe_text(label))
    if not points:
        return False
    if logx:
        ax.set_xscale("log", base=2)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))     # ranks, workers
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    return True


def rate_vs_size_and_ranks(runs: List[dict], bench: str, metric: str, size_label: str, *,
                           size: Callable[[Params], float], ranks: Callable[[Params], int],
                           keep: Callable[[Params], bool], ylabel: str, title: str
                           ) -> Optional[Figure]:
    """Left: the metric vs size, one series per rank count; right: vs ranks, one series per
    size (weak scaling when the size is per rank)."""
    by_size = points_of(runs, bench, metric, size, lambda p: f"{ranks(p)} rank(s)", keep)
    by_ranks = points_of(runs, bench, metric, ranks, lambda p: f"{size(p):g} {size_label}", keep)
    if not by_size:
        return None
    fig = new_figure((10.0, 4.0))
    left, right = fig.subplots(1, 2)
    draw(left, by_size, size_label, ylabel, logx=True)
    left.set_title(f"{title}: vs {size_label}", fontsize=9, loc="left")
    draw(right, by_ranks, "ranks", ylabel)
    right.set_title(f"{title}: vs ranks", fontsize=9, loc="left")
    return fig


def draw_lines(ax, series: Dict[str, List[Tuple[float, float]]], xlabel: str, ylabel: str,
               empty: str, unity: bool = False) -> bool:
    """Plain (x, y) series (derived figures without CIs); a note when there are none."""
    for label, pts in series.items():
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", ms=4, label=safe_text(label))
    if not series:
        ax.text(0.5, 0.5, empty, ha="center", va="center", transform=ax.transAxes, fontsize=8)
        return False
    if unity:
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    return True
