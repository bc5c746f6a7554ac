"""Trace figures, as the POP-on-X1 paper draws them: for each of a run's first traces a task
Gantt chart (rank vs time, a colour per phase or MPI call) and a utilization-count chart (how
many ranks are busy, in MPI overhead or idle over time, stacked), and a per-rank summary table.

The Gantt chart is drawn per pixel column (the activity that covers most of each column), so a
long trace stays a small SVG; a trace with many slices is drawn over a window (the middle of the
phases, where a solver's iterations are alike), which the caption and the utilization chart
show. The charts and the table cover the phases (a proxy's timed loops; between MPI_Init and
MPI_Finalize for a program without phases), not MPI start-up and set-up."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from hpceval.analysis.utilization import (BUSY, NO_PHASE, STATES, Timelines, Window,
                                          active_range, dominant_activity, rank_summary, runs_of,
                                          select_window, steady_range, timelines,
                                          utilization_counts)

from .plot import new_figure, safe_text
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Traces"
ORDER = 90
MAX_TRACES = 3          # traces of a run drawn (the first ones)
SEGMENTS_PER_RANK = 120  # timeline segments per rank a readable Gantt chart shows: more, and a
                         # window of the run is drawn (about 20 iterations of a solver)
COLUMNS = 900           # time columns of the Gantt chart: about one per pixel of the SVG
UTIL_BINS = 300

PHASE_COLOURS = ("#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#ffff99", "#fbb4ae", "#ccebc5",
                 "#decbe4", "#fed9a6", "#e5d8bd")
CALL_COLOURS = ("#1f78b4", "#33a02c", "#ff7f00", "#6a3d9a", "#b15928", "#e31a1c", "#17becf",
                "#7f7f7f", "#bcbd22", "#e377c2", "#393b79", "#637939", "#8c6d31", "#843c39",
                "#7b4173", "#3182bd", "#31a354", "#e6550d", "#756bb1", "#636363")
STATE_COLOURS = {"busy": "#59a14f", "overhead": "#f28e2b", "idle": "#e15759"}
NO_PHASE_COLOUR = "#e3e3e3"

_CACHE: Dict[int, Tuple[dict, Timelines]] = {}


def _timelines(trace: dict) -> Timelines:
    """Timelines of a trace, computed once for its three views (held with the trace itself, so
    its id cannot be reused while cached)."""
    hit = _CACHE.get(id(trace))
    if hit is not None and hit[0] is trace:
        return hit[1]
    if len(_CACHE) >= 2 * MAX_TRACES:
        _CACHE.clear()
    tl = timelines(trace)
    _CACHE[id(trace)] = (trace, tl)
    return tl


def _trace(runs: List[dict], i: int) -> Optional[Tuple[dict, Timelines]]:
    """The i-th trace of the only run (traces are per run: none in comparisons), if it has
    events."""
    if len(runs) != 1:
        return None
    traces = runs[0].get("traces") or []
    if i >= len(traces) or not isinstance((traces[i] or {}).get("trace"), dict):
        return None
    tl = _timelines(traces[i]["trace"])
    if tl.span <= 0 or not tl.ranks:
        return None
    return traces[i], tl


def _unit(span_us: float) -> Tuple[float, str]:
    if span_us >= 2e6:
        return 1e6, "s"
    if span_us >= 2e3:
        return 1e3, "ms"
    return 1.0, "µs"


def _label(entry: dict, i: int) -> str:
    return str(entry.get("label") or entry.get("benchmark") or f"trace {i + 1}")


def activity_colours(tl: Timelines, codes) -> Dict[int, str]:
    """A colour per activity drawn (codes, in drawing order): grey outside phases, light
    colours for phases, strong ones for MPI calls; distinct up to 10 phases and 20 calls."""
    out: Dict[int, str] = {}
    n_phase = n_call = 0
    for k in codes:
        if k in out:
            continue
        if tl.activities[k] == NO_PHASE and k == 0:
            out[k] = NO_PHASE_COLOUR
        elif tl.activity_state[k] == BUSY:
            out[k] = PHASE_COLOURS[n_phase % len(PHASE_COLOURS)]
            n_phase += 1
        else:
            out[k] = CALL_COLOURS[n_call % len(CALL_COLOURS)]
            n_call += 1
    return out


def _range_note(tl: Timelines, lo: float, hi: float) -> str:
    scale, unit = _unit(tl.span)
    if (lo, hi) == (tl.t0, tl.t1):
        return f"whole trace, {tl.span / scale:.4g} {unit}"
    return (f"{(lo - tl.t0) / scale:.4g}–{(hi - tl.t0) / scale:.4g} {unit} of "
            f"{tl.span / scale:.4g} {unit}")


def _range_name(tl: Timelines, lo: float, hi: float) -> str:
    """What active_range chose, in words."""
    if (lo, hi) == (tl.t0, tl.t1):
        return "over the whole trace"
    return "from the first to the last phase" if tl.phases else "from MPI_Init to MPI_Finalize"


def _window(tl: Timelines) -> Window:
    """The Gantt chart's window: within steady_range (the longest stretch with every rank inside
    a phase: one timed solve), about SEGMENTS_PER_RANK segments a rank from its middle."""
    return select_window(tl, max_segments=SEGMENTS_PER_RANK * tl.nranks,
                         within=steady_range(tl))


def _gantt(runs: List[dict], i: int) -> Optional[Figure]:
    got = _trace(runs, i)
    if got is None:
        return None
    entry, tl = got
    w = _window(tl)
    scale, unit = _unit(w.end - tl.t0)   # ticks as far from the start as the window is
    fig = new_figure((7.5, min(1.6 + 0.28 * tl.nranks, 9.0)))
    ax = fig.add_subplot()
    e = np.linspace(w.start, w.end, COLUMNS + 1)
    x = (e - tl.t0) / scale
    rows = []
    for rank in tl.ranks:
        bars: Dict[int, list] = {}
        for code, a, b in runs_of(dominant_activity(tl.tracks[rank], e)):
            if code >= 0:
                bars.setdefault(code, []).append((x[a], x[b] - x[a]))
        rows.append(bars)
    # colours for what is drawn only: phases, then calls, each in the trace's order
    used = sorted({c for bars in rows for c in bars})
    colours = activity_colours(tl, [c for c in used if tl.activity_state[c] == BUSY]
                               + [c for c in used if tl.activity_state[c] != BUSY])
    for row, bars in enumerate(rows):
        for code, xr in bars.items():
            ax.broken_barh(xr, (row - 0.4, 0.8), facecolors=colours[code], linewidth=0)
    ax.set_ylim(tl.nranks - 0.5, -0.5)
    step = max(1, tl.nranks // 16)
    ax.set_yticks(range(0, tl.nranks, step), [str(r) for r in tl.ranks[::step]])
    ax.set_ylabel("rank")
    ax.set_xlim(x[0], x[-1])
    ax.set_xlabel(f"time [{unit}] from the start of the trace")
    ax.grid(axis="y", visible=False)
    handles = []
    for code in colours:
        name = tl.activities[code]
        st = tl.activity_state[code]
        suffix = "" if st == BUSY else f" ({STATES[st]})"
        handles.append(Patch(color=colours[code], label=safe_text(name + suffix)))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    # tall enough for the legend too (few ranks, many calls)
    fig.set_size_inches(7.5, max(fig.get_size_inches()[1], 0.9 + 0.15 * len(handles)))
    span = _range_note(tl, w.start, w.end)
    if (w.start, w.end) != (tl.t0, tl.t1):
        span = (w.note if w.whole else f"window, {w.note}") + f": {span}"
    fig.suptitle(safe_text(f"{_label(entry, i)}: task Gantt chart\n{span}"), x=0.01, ha="left",
                 fontsize=10)
    return fig


def _utilization(runs: List[dict], i: int) -> Optional[Figure]:
    got = _trace(runs, i)
    if got is None:
        return None
    entry, tl = got
    lo, hi = active_range(tl)
    edges, counts = utilization_counts(tl, bins=UTIL_BINS, start=lo, end=hi)
    scale, unit = _unit(hi - tl.t0)
    fig = new_figure((7.5, 3.4))
    ax = fig.add_subplot()
    # steps, not lines between bin centres: each bin's value is its average
    x = (edges - tl.t0) / scale
    below = np.zeros(len(edges))
    for s in STATES:
        top = below + np.append(counts[s], counts[s][-1])
        ax.fill_between(x, below, top, step="post", color=STATE_COLOURS[s], label=s, linewidth=0)
        below = top
    w = _window(tl)
    if not w.whole:
        ax.axvspan((w.start - tl.t0) / scale, (w.end - tl.t0) / scale, facecolor="none",
                   edgecolor="black", linestyle="--", linewidth=1, label="Gantt window")
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(0, tl.nranks)
    ax.set_ylabel("ranks")
    ax.set_xlabel(f"time [{unit}] from the start of the trace")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    mean = {s: float(counts[s].mean()) / tl.nranks * 100 for s in STATES}
    what = _range_name(tl, lo, hi)
    fig.suptitle(safe_text(f"{_label(entry, i)}: utilization counts\n"
                       + ", ".join(f"{s} {mean[s]:.0f}%" for s in STATES) + "; "
                       f"{what}: {_range_note(tl, lo, hi)}, {UTIL_BINS} bins"),
                 x=0.01, ha="left", fontsize=10)
    return fig


def _summary_table(run: dict, i: int) -> Optional[Table]:
    got = _trace([run], i)
    if got is None:
        return None
    entry, tl = got
    lo, hi = active_range(tl)
    rows_in = rank_summary(tl, lo, hi)
    phases = list(tl.phases)
    cols = (["rank", "host", "busy %", "overhead %", "idle %"] + [f"{p} %" for p in phases]
            + ["MPI calls (top 3, %)", "events", "dropped", "tracing cost %"])

    def pct(v):
        return "—" if v is None else f"{v:.1f}"

    rows = []
    for r in rows_in:
        top = sorted(r["calls"].items(), key=lambda kv: -kv[1])[:3]
        rows.append([str(r["rank"]), str(r["host"] or "—")]
                    + [pct(r["states"][s]) for s in STATES]
                    + [pct(r["phases"][p]) for p in phases]
                    + ["; ".join(f"{n} {v:.1f}" for n, v in top) or "—", str(r["events"]),
                       "—" if r["dropped"] is None else str(r["dropped"]),
                       "—" if r["tracing_cost"] is None else f"{r['tracing_cost']:.2f}"])
    n = len(rows_in)
    costs = [r["tracing_cost"] for r in rows_in if r["tracing_cost"] is not None]
    rows.append(["mean", ""] + [pct(sum(r["states"][s] for r in rows_in) / n) for s in STATES]
                + [pct(sum(r["phases"][p] for r in rows_in) / n) for p in phases]
                + ["", str(sum(r["events"] for r in rows_in)), "",
                   f"{sum(costs) / len(costs):.2f}" if costs else "—"])
    where = _range_name(tl, lo, hi)
    return Table(cols, rows,
                 f"{_label(entry, i)}: shares of the time {where} "
                 f"({_range_note(tl, lo, hi)}). busy = "
                 "outside MPI; overhead = inside MPI calls that communicate; idle = inside calls "
                 "that block waiting for others (waits, receives, barriers, fences). A phase's "
                 "share includes the MPI time inside it. Tracing cost = events x the measured "
                 "cost of recording one event / the whole trace's span.")


def _register(i: int) -> None:
    def gantt(runs):
        return _gantt(runs, i)

    def utilization(runs):
        return _utilization(runs, i)

    def table(run):
        return _summary_table(run, i)

    # distinct names: they name the figure files (run3-trace1_gantt.svg)
    gantt.__name__ = f"trace{i + 1}_gantt"
    utilization.__name__ = f"trace{i + 1}_utilization"
    table.__name__ = f"trace{i + 1}_summary"
    register_figure(FigureSpec(SECTION, f"Trace {i + 1}: task Gantt chart (rank vs time, a "
                                        "colour per phase or MPI call)", gantt, "trace", ORDER))
    register_figure(FigureSpec(SECTION, f"Trace {i + 1}: utilization counts (busy / overhead / "
                                        "idle ranks over time)", utilization, "trace", ORDER))
    register_table(TableSpec(SECTION, f"Trace {i + 1}: per-rank summary", table, order=ORDER))


for _i in range(MAX_TRACES):
    _register(_i)
