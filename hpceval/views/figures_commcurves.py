"""Communication curves the seeds plot and the runs measure, each against what it varies:
broadcast bandwidth against processor count (EV7 Fig. 3.8), the collectives' throughput against
size (SP2 Fig. 5), reduce with a null operation beside MPI_SUM (SP2 §3.2), random2's latency and
throughput against size (SP2 Fig. 6), and the COMMTEST patterns' swap bandwidth against size
(ORNL Fig. 3, its 8 KB, 128 KB and 2 MB marked). Several runs: one line per run and series."""
from __future__ import annotations

import textwrap
from typing import Callable, Dict, List, Optional, Tuple

from matplotlib.figure import Figure

from .data import fig_label, human_bytes, records, value
from .plot import (LEGEND_WRAP, SIZE, bytes_axis, draw_records, legend, new_figure, plain_log_y,
                   safe_text)
from .registry import FigureSpec, register_figure

SECTION = "Interconnect"
ORDER = 10
Keep = Callable[[dict], bool]
Name = Callable[[dict], str]
# The sizes the ORNL study quotes its swap bandwidths at.
ORNL_SIZES = (8 << 10, 128 << 10, 2 << 20)


def _series(runs: List[dict], bench: str, metric: str, x: str, keep: Keep,
            name: Name, order: Optional[Callable[[dict], object]] = None
            ) -> List[Tuple[str, List[dict]]]:
    """(label, records sorted by x) per run and name(params), in the order of order(params)
    (default: the name); the run named when several."""
    out: Dict[Tuple[int, str], List[dict]] = {}
    for i, run in enumerate(runs):
        for r in records(run, bench, metric):
            p = r.get("params") or {}
            if keep(p) and isinstance(p.get(x), (int, float)) and value(r) is not None:
                out.setdefault((i, name(p)), []).append(r)
    many = len({i for i, _ in out}) > 1
    rank = lambda kv: (kv[0][0], (order or name)(kv[1][0]["params"]))
    return [(safe_text(n + (f" — {fig_label(runs[i])}" if many else "")),
             sorted(recs, key=lambda r: r["params"][x]))
            for (i, n), recs in sorted(out.items(), key=rank)]


def _height(series, least: float = 4.0) -> float:
    """A figure tall enough for the legend beside it: nine runs' series with long host names
    wrap to many lines (about 0.16 in a line at 7 pt, and a gap per entry)."""
    lines = sum(len(textwrap.wrap(label, LEGEND_WRAP)) for label, recs in series if len(recs) > 1)
    return max(least, 0.8 + 0.16 * lines + 0.06 * len(series))


def _draw(ax, series, x: str, min_points: int = 2) -> List[float]:
    """Each series with at least min_points points; every x drawn."""
    xs: List[float] = []
    marked: set = set()
    for label, recs in series:
        if len(recs) >= min_points:
            pts = [r["params"][x] for r in recs]
            draw_records(ax, recs, pts, label, marked, markersize=3)
            xs += pts
    return xs


def _size_figure(runs, bench: str, panels, keep: Keep, name: Name, title: str) -> Optional[Figure]:
    """One panel per (metric, y label, log y) against message size; None when no series has
    two sizes."""
    drawn = [(_series(runs, bench, m, "bytes", keep, name), m, y, log) for m, y, log in panels]
    if not any(len(recs) > 1 for s, *_ in drawn for _, recs in s):
        return None
    fig = new_figure((4.6 * len(panels) + 1.2, max(_height(s) for s, *_ in drawn)))
    for ax, (series, _, ylabel, log) in zip(fig.subplots(1, len(panels), squeeze=False)[0], drawn):
        xs = _draw(ax, series, "bytes")
        if xs:
            bytes_axis(ax, [x for x in xs if x > 0] or [1], "message size [bytes]")
        if log:
            plain_log_y(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        legend(ax, fontsize=7)
    fig.suptitle(safe_text(title), x=0.01, ha="left", fontsize=10)
    return fig


def bcast_ranks(runs: List[dict]) -> Optional[Figure]:
    """EV7 Fig. 3.8: broadcast bandwidth (bytes per rank / slowest time) against ranks, from 2
    (a broadcast on one rank moves nothing)."""
    series = _series(runs, "collectives", "bandwidth", "nranks",
                     lambda p: p.get("op") == "bcast" and (p.get("nranks") or 0) >= 2,
                     lambda p: human_bytes(p.get("bytes")), lambda p: p.get("bytes"))
    if not any(len({r["params"]["nranks"] for r in recs}) > 1 for _, recs in series):
        return None
    fig = new_figure((SIZE[0], _height(series, SIZE[1])))
    ax = fig.add_subplot()
    _draw(ax, series, "nranks")
    ax.set_xlabel("processors (ranks)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("broadcast bandwidth [MB/s]")
    ax.set_ylim(bottom=0)
    legend(ax, fontsize=7)
    ax.set_title("Broadcast bandwidth vs processors (median, slowest rank)", loc="left")
    return fig


def _largest_ranks(runs: List[dict]) -> int:
    counts = [r["params"].get("nranks") or 0 for run in runs for r in records(run, "collectives")]
    return max(counts, default=0)


def collectives_throughput(runs: List[dict]) -> Optional[Figure]:
    """SP2 Fig. 5: each collective's throughput (bytes per rank / slowest time) against size,
    at the largest rank count measured."""
    n = _largest_ranks(runs)
    return _size_figure(runs, "collectives", (("bandwidth", "throughput [MB/s]", True),),
                        lambda p: p.get("nranks") == n, lambda p: str(p.get("op")),
                        f"Collectives' throughput vs size on {n} ranks (median, slowest rank)")


def reduce_null(runs: List[dict]) -> Optional[Figure]:
    """SP2 §3.2: MPI_Reduce with MPI_SUM and with an operation that combines nothing; the gap is
    the arithmetic's share of the reduction."""
    n = _largest_ranks(runs)
    names = {"reduce": "reduce, MPI_SUM", "reduce-null": "reduce, null operation"}
    keep = lambda p: p.get("nranks") == n and p.get("op") in names
    if not any(r["params"].get("op") == "reduce-null" for run in runs
               for r in records(run, "collectives", "latency")):
        return None
    return _size_figure(runs, "collectives", (("latency", "latency, slowest rank [µs]", True),),
                        keep, lambda p: names[p["op"]],
                        f"Reduce: MPI_SUM beside a null operation on {n} ranks (the gap is the "
                        "arithmetic's cost)")


def random2_curves(runs: List[dict]) -> Optional[Figure]:
    """SP2 Fig. 6: random pairs' latency and throughput against size, per rank count."""
    return _size_figure(runs, "random2", (("latency", "latency, slowest pair [µs]", True),
                                          ("bandwidth", "throughput, slowest pair [MB/s]", False)),
                        lambda p: True, lambda p: f"{p.get('nranks')} ranks",
                        "random2: random pairs all at once, latency and throughput vs size")


def swap_patterns(runs: List[dict]) -> Optional[Figure]:
    """ORNL Fig. 3: each placement pattern's swap (both directions at once) bandwidth against
    size, the slowest pair; the study's 8 KB, 128 KB and 2 MB dotted."""
    fig = _size_figure(runs, "p2p", (("bandwidth", "swap bandwidth, slowest pair [MB/s]", False),),
                       lambda p: p.get("mode") == "swap",
                       lambda p: f"{p.get('pattern')} ({p.get('ranks')}) {p.get('protocol')}",
                       "COMMTEST patterns: swap bandwidth vs size (ORNL Fig. 3's sizes dotted)")
    if fig is not None:
        for s in ORNL_SIZES:
            fig.axes[0].axvline(s, linestyle=":", color="#555555", linewidth=1)
    return fig


for _title, _fn, _bench in (
        ("Broadcast bandwidth vs processors (EV7 Fig. 3.8)", bcast_ranks, "collectives"),
        ("Collectives' throughput vs size (SP2 Fig. 5)", collectives_throughput, "collectives"),
        ("Reduce with MPI_SUM and with a null operation (SP2 §3.2)", reduce_null, "collectives"),
        ("random2 latency and throughput vs size (SP2 Fig. 6)", random2_curves, "random2"),
        ("Placement patterns: swap bandwidth vs size (ORNL Fig. 3)", swap_patterns, "p2p")):
    register_figure(FigureSpec(SECTION, _title, _fn, _bench, ORDER))
