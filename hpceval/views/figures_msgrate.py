"""msgrate: aggregate message rate and bandwidth vs message size, one line per pair count."""
from __future__ import annotations

from .plot import bytes_axis, line_plot, new_figure, plain_log_y, series_of
from .registry import FigureSpec, register_figure


def _figure(metric: str, ylabel: str):
    def draw(runs):
        series = series_of(runs, "msgrate", metric, "bytes")
        if not series:
            return None
        fig = new_figure()
        ax = fig.add_subplot()
        bytes_axis(ax, line_plot(ax, series, "bytes"), "message size [bytes]")
        plain_log_y(ax)
        ax.set_ylabel(ylabel)
        return fig
    return draw


register_figure(FigureSpec("Interconnect", "Message rate of pairs streaming at once (window of "
                           "non-blocking sends, osu_mbw_mr) vs message size, one line per pair "
                           "count", _figure("message_rate", "aggregate message rate [Mmsg/s]"),
                           "msgrate", order=10))
register_figure(FigureSpec("Interconnect", "Aggregate bandwidth of pairs streaming at once vs "
                           "message size, one line per pair count",
                           _figure("bandwidth", "aggregate bandwidth [MB/s]"), "msgrate",
                           order=10))
