"""rma: one-sided latency vs message size, a panel per operation (put, get, acc), one line per
synchronisation mode."""
from __future__ import annotations

from .plot import bytes_axis, line_plot, panel_axes, plain_log_y, series_of
from .registry import FigureSpec, register_figure

OPS = (("put", "MPI_Put"), ("get", "MPI_Get"), ("acc", "MPI_Accumulate"))


def _of_op(runs, op):
    """The runs with only this operation's records."""
    return [{**run, "records": [r for r in run.get("records") or []
                                if (r.get("params") or {}).get("op") == op]} for run in runs]


def rma_latency(runs):
    panels = [(name, s) for op, name in OPS
              if (s := series_of(_of_op(runs, op), "rma", "latency", "bytes"))]
    if not panels:
        return None
    fig, axes = panel_axes(len(panels))
    for ax, (name, series) in zip(axes, panels):
        bytes_axis(ax, line_plot(ax, series, "bytes"), "message size [bytes]")
        plain_log_y(ax)
        ax.set_title(name)
    axes[0].set_ylabel("latency, one operation an epoch [µs]")
    return fig


register_figure(FigureSpec("Interconnect", "One-sided latency (put, get, accumulate) vs message "
                           "size, one line per synchronisation mode: fence, lock/unlock, lock_all "
                           "+ flush, post-start-complete-wait", rma_latency, "rma", order=10))
