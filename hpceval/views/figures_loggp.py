"""LogGP (netgauge's method): the send and receive overheads o_s, o_r and the gap g vs message
size, median with its 95% CI, one panel each."""
from __future__ import annotations

from typing import List

from .data import fig_label, records, value
from .plot import ZERO_X, bytes_axis, new_figure, safe_text
from .registry import FigureSpec, register_figure

PANELS = (("o_s", "send overhead o_s"), ("o_r", "receive overhead o_r"), ("gap", "gap g"))


def _overheads_figure(runs: List[dict]):
    if not any(records(run, "loggp", m) for run in runs for m, _ in PANELS):
        return None
    fig = new_figure((13.5, 4.0))
    for ax, (metric, title) in zip(fig.subplots(1, 3), PANELS):
        xs_all = []
        for run in runs:
            pts = sorted(records(run, "loggp", metric), key=lambda r: r["params"]["bytes"])
            xs = [r["params"]["bytes"] or ZERO_X for r in pts]
            ys = [value(r) for r in pts]
            lo = [max(y - r["stats"]["ci_low"], 0) for r, y in zip(pts, ys)]
            hi = [max(r["stats"]["ci_high"] - y, 0) for r, y in zip(pts, ys)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=2,
                        label=safe_text(fig_label(run)))
            xs_all += xs
        bytes_axis(ax, xs_all, "message size [bytes]")
        ax.set_yscale("log")
        ax.set_ylabel(f"{title} [us]")
        ax.legend(fontsize=7)
    return fig


register_figure(FigureSpec("Interconnect", "LogGP (netgauge's method): send and receive "
                           "overheads o_s, o_r and the gap g vs message size", _overheads_figure,
                           "loggp", order=10))
