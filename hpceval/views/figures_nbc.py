"""nbc: per sized collective, the overlap (top) and the pure time (bottom) vs size, one line per
rank count."""
from __future__ import annotations

import math

from matplotlib.ticker import FixedLocator

from .data import records
from .plot import SIZE, bytes_axis, draw_records, legend, new_figure, plain_log_y, series_of
from .registry import FigureSpec, register_figure

OPS = ("ibcast", "iallreduce", "iallgather", "ialltoall")   # ibarrier has no size
ROWS = (("overlap", "overlap [%]", False), ("time_pure", "pure time [µs]", True))


def _of_op(runs, op):
    """The runs with only op's nbc records, for series_of (one line per rank count)."""
    return [{**run, "records": [r for r in records(run, "nbc") if r["params"].get("op") == op]}
            for run in runs]


def _panel(ax, runs, metric: str, first: bool) -> None:
    """One collective's series; a rank count has the same colour in every panel, the legend is
    the first panel's, and a narrow panel's size axis is labelled every 1024x (1K, 1M)."""
    xs, marked = [], set()
    for i, (label, recs) in enumerate(series_of(runs, "nbc", metric, "bytes")):
        mine = [r["params"]["bytes"] for r in recs]
        draw_records(ax, recs, mine, label, marked, color=f"C{i}")
        xs += mine
    bytes_axis(ax, xs, "")
    ticks = ax.xaxis.get_major_locator().locs
    ax.xaxis.set_major_locator(FixedLocator([t for t in ticks if round(math.log2(t)) % 10 == 0]))
    if first:
        legend(ax)


def overlap_and_time(runs):
    per_op = [(op, _of_op(runs, op)) for op in OPS]
    per_op = [(op, rs) for op, rs in per_op if any(r["records"] for r in rs)]
    if not per_op:
        return None
    fig = new_figure((SIZE[0], 6.4))
    axes = fig.subplots(len(ROWS), len(per_op), squeeze=False)
    for col, (op, rs) in enumerate(per_op):
        for row, (metric, ylabel, log) in enumerate(ROWS):
            ax = axes[row][col]
            _panel(ax, rs, metric, not row and not col)
            if log:
                plain_log_y(ax)
            else:
                ax.set_ylim(-5, 105)      # percent: every panel on the same scale
            if row:
                ax.set_xlabel("bytes per rank")
            else:
                ax.set_title(op)
            if not col:
                ax.set_ylabel(ylabel)
    return fig


register_figure(FigureSpec("Interconnect", "Non-blocking collectives: overlap with a calibrated "
                           "computation (IMB-NBC's definition, top) and pure time (post, wait; "
                           "bottom) vs size, one line per rank count", overlap_and_time, "nbc",
                           order=10))
