"""shmem-halo: the X1 study's Fig. 8.1, a halo update's time against the words in it, one line
per method (two-sided MPI, MPI puts, OpenSHMEM puts, gets and flags) on the same ranks."""
from __future__ import annotations

from .plot import line_plot, new_figure, plain_log_y, series_of
from .registry import FigureSpec, register_figure


def halo_words(runs):
    series = series_of(runs, "shmem-halo", "latency", "words")
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot(1, 1, 1)
    line_plot(ax, series, "words")
    ax.set_xscale("log")
    plain_log_y(ax)
    ax.set_xlabel("4-byte words sent to each of the four neighbours")
    ax.set_ylabel("time per halo update [µs] (slowest rank)")
    return fig


register_figure(FigureSpec("Interconnect", "Halo update vs words in the halo: two-sided MPI "
                           "beside MPI puts and OpenSHMEM puts, gets and flags on the same ranks "
                           "(the Cray X1 study's Fig. 8.1)", halo_words, "shmem-halo", order=12))
