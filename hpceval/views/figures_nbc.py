"""nbc: per sized collective, the overlap (top) and the pure time (bottom) vs size, one line per
rank count."""
from __future__ import annotations

from .data import records
from .plot import SIZE, bytes_axis, line_plot, new_figure, plain_log_y, series_of
from .registry import FigureSpec, register_figure

OPS = ("ibcast", "iallreduce", "iallgather", "ialltoall")   # ibarrier has no size
ROWS = (("overlap", "overlap [%]", False), ("time_pure", "pure time [µs]", True))


def _of_op(runs, op):
    """The runs with only op's nbc records, for series_of (one line per rank count)."""
    return [{**run, "records": [r for r in records(run, "nbc") if r["params"].get("op") == op]}
            for run in runs]


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
            bytes_axis(ax, line_plot(ax, series_of(rs, "nbc", metric, "bytes"), "bytes"),
                       "bytes per rank" if row else "")
            if log:
                plain_log_y(ax)
            if not row:
                ax.set_title(op)
            if not col:
                ax.set_ylabel(ylabel)
    return fig


register_figure(FigureSpec("Interconnect", "Non-blocking collectives: overlap with a calibrated "
                           "computation (IMB-NBC's definition, top) and pure time (post, wait; "
                           "bottom) vs size, one line per rank count", overlap_and_time, "nbc",
                           order=10))
