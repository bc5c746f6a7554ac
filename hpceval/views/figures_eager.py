"""The eager limit: late-receive time vs message size per run and placement, median with its
95% CI; the bracketed eager limit marked."""
from __future__ import annotations

from typing import List

from hpceval.analysis.eager import eager_limit, late_receive_times

from .data import fig_label
from .plot import ZERO_X, bytes_axis, new_figure, safe_text
from .registry import FigureSpec, register_figure


def _late_receive_figure(runs: List[dict]):
    curves = [(run, where, pts) for run in runs
              for where, pts in late_receive_times(run).items()]
    if not curves:
        return None
    fig = new_figure((7.5, 4.2))
    ax = fig.subplots()
    xs_all = []
    for run, where, pts in curves:
        xs = [b or ZERO_X for b, _, _ in pts]
        ys = [t for _, t, _ in pts]
        lo = [max(t - r["stats"]["ci_low"], 0) for _, t, r in pts]
        hi = [max(r["stats"]["ci_high"] - t, 0) for _, t, r in pts]
        line = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=3, capsize=2,
                           label=safe_text(f"{fig_label(run)}, {where}"))
        found = eager_limit(run, where)
        if found:
            ax.axvline(found[0].n_before, ls="--", lw=1, color=line[0].get_color())
        xs_all += xs
    bytes_axis(ax, xs_all, "message size [bytes]")
    ax.set_yscale("log")
    ax.set_ylabel("late receive [us]")
    ax.legend(fontsize=7)
    return fig


register_figure(FigureSpec("Interconnect", "Eager limit: time from posting a late receive until "
                           "the send has returned, vs message size (an eager message is already "
                           "there; dashed: the bracketed limit)", _late_receive_figure, "eager",
                           order=10))
