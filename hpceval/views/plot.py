"""What the views' figures share (a public module: every figure module and the report use it).
A figure is one function of a list of runs returning a matplotlib Figure, or None when none of
the runs has the data; each area or benchmark draws its own in hpceval/views/figures_<name>.py
and registers it (hpceval/views/registry.py).

Figures are built on the Agg canvas directly (no pyplot), so the caller's matplotlib backend and
pyplot state are left alone.
"""
from __future__ import annotations

import io
import math
import re
import textwrap
from contextlib import contextmanager
from typing import Optional


import matplotlib as mpl
import numpy as np
from cycler import cycler
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatter, NullLocator

from hpceval.outfiles import Outputs, outputs
from hpceval.quality import at_floor, disturbed

from .data import cache_marks, converged, records, fig_label, value

STYLE = {
    "font.family": "DejaVu Sans",  # ships with matplotlib, so every machine renders the same
    "svg.fonttype": "path",        # glyphs as paths: the HTML needs no font at all
    "svg.hashsalt": "hpceval",     # stable element ids, so the same runs give the same HTML
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.formatter.useoffset": False,   # a Gantt axis read "+2.391e2": absolute values only
    # Ten colours, then the same ten dashed: eight or more series stay apart.
    "axes.prop_cycle": cycler(linestyle=["-", "--", ":"]) * cycler(color=mpl.colormaps["tab10"].colors),
}
SIZE = (7.5, 4.0)  # inches; the SVG scales to the page width
LEGEND_WRAP = 36   # characters per legend line
ZERO_X = 0.5       # where a 0-byte message is drawn on a log axis (labelled "0")


@contextmanager
def style():
    with mpl.rc_context(STYLE):
        yield


def new_figure(size=SIZE) -> Figure:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)  # attach Agg explicitly rather than through pyplot's global backend
    return fig


def panel_axes(n: int, width: float = SIZE[0], height: float = 3.2, ncols: int = 3,
               sharey: bool = True) -> tuple:
    """(figure, n axes) in rows of at most `ncols` (one panel per run: nine runs must not
    squeeze nine panels into one row); the grid's unused cells hidden."""
    ncols = min(n, ncols)
    nrows = (n + ncols - 1) // ncols
    fig = new_figure((width, 0.8 + height * nrows))
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def safe_text(s: str) -> str:
    return s.replace("$", r"\$")  # a '$' in a hostname must not switch on mathtext


# ---------------------------------------------------------------- axes helpers

def _short_bytes(v: float, _pos=None) -> str:
    """1, 512, 1K, 64K, 1M ... (binary); positions below 1 are the 0-byte slot."""
    if v < 1:
        return "0"
    k = min(int(math.log(v, 1024) + 1e-9), 4)
    return f"{v / 1024 ** k:g}" + ("", "K", "M", "G", "T")[k]


def bytes_axis(ax, xs: list[float], label: str) -> None:
    """Log2 x axis with ticks on powers of two, spaced so that 1K and 1M fall on ticks."""
    ax.set_xscale("log", base=2)
    positive = [x for x in xs if x >= 1]
    lo = math.floor(math.log2(min(positive, default=1)))
    hi = math.ceil(math.log2(max(positive, default=1)))
    for stride in (1, 2, 5, 10):
        ticks = [2.0 ** k for k in range(lo, hi + 1) if k % stride == 0]
        if len(ticks) <= 11:
            break
    if any(x < 1 for x in xs):
        ticks.insert(0, ZERO_X)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(_short_bytes))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(label)


class PlainLogFormatter(LogFormatter):
    """LogFormatter's choice of which ticks to label, written as plain numbers (0.25, 2, 1000):
    never 10^x or '1e-01'."""

    def __call__(self, x, pos=None):
        return f"{x:g}" if super().__call__(x, pos) else ""


def plain_log_y(ax) -> None:
    ax.set_yscale("log")
    # Minor ticks labelled (a subset) over up to six decades, so a 0.25 µs latency can be read
    # off an axis whose majors are 0.1, 1, 10, 100.
    ax.yaxis.set_major_formatter(PlainLogFormatter(labelOnlyBase=False))
    ax.yaxis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(6, 1)))


def series_of(runs: list[dict], benchmark: str, metric: str, x: str) -> list[tuple[str, list[dict]]]:
    """(legend label, records sorted by x): one series per run and combination of the other
    params (ping-pong rank pairs, memory stride/order); those params are named only if they vary."""
    groups: dict[tuple, list[dict]] = {}
    for i, run in enumerate(runs):
        for rec in records(run, benchmark, metric):
            p = rec.get("params") or {}
            if isinstance(p.get(x), (int, float)) and value(rec) is not None:
                other = tuple(sorted((k, str(v)) for k, v in p.items() if k != x))
                groups.setdefault((i, other), []).append(rec)
    keys = {k for _, other in groups for k, _ in other}
    varying = {k for k in keys if len({dict(other).get(k) for _, other in groups}) > 1}
    out = []
    for (i, other), recs in groups.items():
        extra = ", ".join(f"{k} {v}" for k, v in other if k in varying)
        label = fig_label(runs[i]) + (f" ({extra})" if extra else "")
        out.append((safe_text(label), sorted(recs, key=lambda r: r["params"][x])))
    return out


QUALITY_MARKS = {   # how a point that is not a clean measurement is drawn over its line
    "not converged": dict(marker="o", markersize=8, markerfacecolor="none",
                          markeredgecolor="#c0392b"),
    "disturbed": dict(marker="x", markersize=7, markeredgecolor="#d35400", markeredgewidth=1.4),
}


def _mark_of(rec: dict) -> str | None:
    if disturbed(rec):
        return "disturbed"
    return None if converged(rec) else "not converged"


def draw_records(ax, recs: list[dict], xs: list[float], label: str, marked: set,
                 **plot_kw):
    """One series: the statistic as a line, the 95% CI of the median as a band, unconverged
    points ringed and disturbed ones crossed (each kind labelled once per axes, via `marked`).
    Points at a subtraction floor are not data: left out of the line, shown by a tick on the
    x axis. Returns the line (None when no point is drawable)."""
    keep = [(x, r) for x, r in zip(xs, recs) if not at_floor(r) and value(r) is not None]
    floored = [x for x, r in zip(xs, recs) if at_floor(r)]
    if floored:
        ax.plot(floored, [0.0] * len(floored), linestyle="none", marker="|", markersize=9,
                color="#7f8c8d", transform=ax.get_xaxis_transform(), clip_on=False,
                label=None if "floor" in marked else "at the subtraction floor (not drawn)")
        marked.add("floor")
    if not keep:
        return None
    kx = [x for x, _ in keep]
    ys = [value(r) for _, r in keep]
    lo = [r["stats"].get("ci_low", y) for (_, r), y in zip(keep, ys)]
    hi = [r["stats"].get("ci_high", y) for (_, r), y in zip(keep, ys)]
    (line,) = ax.plot(kx, ys, label=label, **{"marker": "o", "markersize": 3, "linewidth": 1.4,
                                               **plot_kw})
    ax.fill_between(kx, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    for kind, style in QUALITY_MARKS.items():
        bad = [(x, y) for (x, r), y in zip(keep, ys) if _mark_of(r) == kind]
        if bad:
            ax.plot(*zip(*bad), linestyle="none", label=None if kind in marked else kind, **style)
            marked.add(kind)
    return line


def line_plot(ax, series, x: str, xmap=lambda v: v) -> list[float]:
    """draw_records for each (label, records) series; returns every x drawn."""
    all_x: list[float] = []
    marked: set = set()
    for label, recs in series:
        xs = [xmap(r["params"][x]) for r in recs]
        draw_records(ax, recs, xs, label, marked)
        all_x += xs
    legend(ax)
    return all_x


def legend(ax, **kw) -> None:
    """The axes' legend beside it (right, outside the data) when it has many entries or long
    labels, inside at the best place otherwise."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    labels = [textwrap.fill(l, LEGEND_WRAP) for l in labels]
    if len(labels) > 4 or max(map(len, labels)) > 30:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), **kw)
    else:
        ax.legend(handles, labels, loc="best", **kw)


# ---------------------------------------------------------------- the figures

def mark_caches(ax, runs: list[dict]) -> list[float]:
    """Dotted vertical lines at the runs' cache sizes, labelled L1d/L2/L3; returns the sizes."""
    marks: list = []
    for run in runs:
        marks += [m for m in cache_marks(run.get("fingerprint")) if m not in marks]
    for name, size in marks:
        ax.axvline(size, linestyle=":", color="#555555", linewidth=1)
        ax.text(size, 0.98, f" {name}", transform=ax.get_xaxis_transform(), va="top", ha="left",
                fontsize=8, color="#333333")
    return [size for _, size in marks]


KERNEL_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1")


# ---------------------------------------------------------------- output

# What matplotlib's SVG <style> says, scoped to the report's figures.
SVG_CSS = "figure svg * { stroke-linejoin: round; stroke-linecap: butt; }"

MAX_LINE_POINTS = 1000   # points drawn per line at most (a figure is ~1000 pixels wide)


def _thin(fig: Figure) -> None:
    """Draw every k-th point of a line with thousands (a 10^5-record run): the picture is the
    same at screen resolution, the SVG and the time to draw it a fraction. Ends are kept."""
    for ax in fig.axes:
        for line in ax.get_lines():
            x, y = line.get_xdata(orig=True), line.get_ydata(orig=True)
            if len(x) > MAX_LINE_POINTS:
                keep = np.unique(np.linspace(0, len(x) - 1, MAX_LINE_POINTS).astype(int))
                line.set_data(np.asarray(x)[keep], np.asarray(y)[keep])


def make_figure(spec, runs: list[dict]) -> Figure | None:
    with style():
        fig = spec.make(runs)
        if fig is not None:
            fit_titles(fig)
            _thin(fig)
        return fig


CHAR_WIDTH = 0.6   # of the font size: DejaVu Sans' average advance, generous for digits


def _fill(text, width_pt: float, size: float) -> str:
    """Lines of `text` wrapped to fit `width_pt` points at font size `size`."""
    chars = max(12, int(width_pt / (size * CHAR_WIDTH)))
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def fit_titles(fig: Figure) -> None:
    """Wrap every axes title to its axes' width and the figure title to the figure's, so a
    long run label or caption never runs off the canvas (constrained layout then makes room
    for the extra lines)."""
    for ax in fig.axes:
        width = ax.get_position().width * fig.get_figwidth() * 72
        for t in (ax.title, ax._left_title, ax._right_title):
            if t.get_text():
                t.set_text(_fill(t.get_text(), width, t.get_fontsize()))
    sup = fig._suptitle
    if sup is not None and sup.get_text():
        sup.set_text(_fill(sup.get_text(), fig.get_figwidth() * 72 * 0.97, sup.get_fontsize()))


def to_svg(fig: Figure, id_prefix: str) -> str:
    """The figure as an <svg> element to inline in HTML: no XML prolog, DOCTYPE, metadata or
    comments (matplotlib puts each text string in a comment), no <style> (inline, its `*` rule
    would apply to the whole page; the report's CSS carries it as SVG_CSS), and every id
    prefixed so that several figures can share one document."""
    buf = io.StringIO()
    with style():
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r"<style\b.*?</style>\s*", "", svg, flags=re.S)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{id_prefix}\1"', svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{id_prefix}\1"', svg)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{id_prefix}\1)", svg).strip()


def save(fig: Figure, stem, batch: Optional[Outputs] = None) -> list:
    """Write `stem`.svg and `stem`.png (stem: a pathlib.Path without suffix) into the --figures
    directory (outfiles: never through a link; with `batch`, renamed into place with the rest)."""
    out = [stem.with_suffix(".svg"), stem.with_suffix(".png")]
    with style(), outputs("--figures", into=batch) as b:
        for path, fmt, extra in zip(out, ("svg", "png"), ({"metadata": {"Date": None}}, {"dpi": 150})):
            with b.open(path, "wb", fmt, "--figures", named_dir=True) as f:
                fig.savefig(f, format=fmt, **extra)
    return out
