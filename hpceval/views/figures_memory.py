"""Memory figures and tables: bandwidth vs working set per access mode (the detected cache edges
and the fingerprint's cache sizes marked), the contention curves (one core measuring while k
others stream; one core alone vs every core), and as tables the detected hierarchy (the EV7
paper's Table 2.1), the contention degradation and the core x NUMA-node latency matrix.
Latency vs working set (one series per order / page size) and STREAM per kernel and thread
count come first."""
from __future__ import annotations

from typing import List, Optional

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from hpceval.analysis.memory import stream_points
from hpceval.analysis.hierarchy import PAGE_PREFERENCE, contention, hierarchy, latency_matrix

from .data import converged, fmt_num, human_bytes, records, fig_label, value
from .plot import (KERNEL_COLOURS, SIZE, bytes_axis, new_figure, line_plot, plain_log_y,
                   series_of, safe_text, legend, mark_caches)
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Memory"
ORDER = 20
MODE_ORDER = ("read", "write", "rmw", "memset", "memcpy", "copy", "triad",
              "write-nt", "copy-nt", "triad-nt")




def _bandwidth_series(run: dict, threads: int) -> dict:
    """mode -> records of one thread count, the page kind with fewest TLB misses."""
    recs = [r for r in records(run, "mem-bandwidth", "bandwidth")
            if r["params"].get("threads") == threads and value(r) is not None]
    for pages in PAGE_PREFERENCE + tuple({r["params"].get("pages") for r in recs}):
        chosen = [r for r in recs if r["params"].get("pages") == pages]
        if chosen:
            out: dict = {}
            for r in chosen:
                out.setdefault(r["params"]["mode"], []).append(r)
            return {m: sorted(v, key=lambda r: r["params"]["bytes"]) for m, v in out.items()}
    return {}


GROUPS = (("Cachebench modes", ("read", "write", "rmw", "memset", "memcpy")),
          ("STREAM kernels, non-temporal stores", ("copy", "triad", "write-nt", "copy-nt", "triad-nt")))
COLOURS = KERNEL_COLOURS + ("#edc948", "#ff9da7", "#9c755f", "#bab0ac")


def _draw_modes(ax, series: dict, modes) -> List[float]:
    """A line per mode (median), its 95% CI as a band; unconverged points ringed red, once in
    the legend."""
    xs_all, flagged = [], False
    for m, colour in zip(modes, COLOURS):
        recs = series[m]
        xs = [r["params"]["bytes"] for r in recs]
        ys = [value(r) for r in recs]
        ax.plot(xs, ys, marker="o", markersize=2.5, linewidth=1.3, color=colour, label=m)
        ax.fill_between(xs, [r["stats"].get("ci_low", y) for r, y in zip(recs, ys)],
                        [r["stats"].get("ci_high", y) for r, y in zip(recs, ys)], color=colour,
                        alpha=0.15, linewidth=0)
        bad = [(x, y) for x, y, r in zip(xs, ys, recs) if r.get("converged") is False]
        if bad:
            ax.plot(*zip(*bad), linestyle="none", marker="o", markersize=6, markerfacecolor="none",
                    markeredgecolor="#c0392b", markeredgewidth=0.6,
                    label=None if flagged else "not converged")
            flagged = True
        xs_all += xs
    return xs_all


def memory_bandwidth(runs: list[dict]) -> Optional[Figure]:
    """A row per run and thread count: GB/s vs working set, Cachebench's modes on the left,
    STREAM's kernels and the non-temporal variants on the right."""
    panels = []
    for run in runs:
        counts = sorted({r["params"].get("threads") for r in records(run, "mem-bandwidth", "bandwidth")
                         if isinstance(r["params"].get("threads"), int)})
        for t in counts:
            series = _bandwidth_series(run, t)
            if series:
                panels.append((run, t, series))
    if not panels:
        return None
    fig = new_figure((9.0, 3.4 * len(panels)))
    grid = fig.subplots(len(panels), 2, squeeze=False, sharey="row")
    for row, (run, t, series) in zip(grid, panels):
        pages = next(iter(series.values()))[0]["params"].get("pages")
        for ax, (name, group) in zip(row, GROUPS):
            modes = [m for m in group if m in series]
            if ax is row[1]:
                modes += sorted(m for m in series if m not in MODE_ORDER)
            xs = _draw_modes(ax, series, modes)
            bytes_axis(ax, (xs or [1024, 1 << 20]) + mark_caches(ax, [run]),
                        "working set per thread [bytes]")
            plain_log_y(ax)
            ax.set_title(safe_text(f"{name} ({fig_label(run)}, {t} thread{'s' if t > 1 else ''}, "
                               f"{pages} pages)"), loc="left", fontsize=8)
            if modes:
                legend(ax, fontsize=7)
        row[0].set_ylabel("bandwidth [GB/s]")
    fig.suptitle("Bandwidth vs working set (median, band: 95% CI; application bytes, "
                 "write-allocate not counted)", x=0.01, ha="left", fontsize=10)
    return fig


def memory_contention(runs: list[dict]) -> Optional[Figure]:
    """Left: the measuring core's read bandwidth and latency vs cores streaming beside it.
    Right: per-core bandwidth, one core alone vs every core at once."""
    data = [(run, contention(run)) for run in runs]
    data = [(run, c) for run, c in data if c]
    if not data:
        return None
    fig = new_figure()
    # Constrained layout does not see a twin axis: leave room for its label between the panels.
    fig.get_layout_engine().set(wspace=0.14)
    left, right = fig.subplots(1, 2)
    twin = left.twinx()
    for i, (run, c) in enumerate(data):
        label = safe_text(fig_label(run))
        ks = [r["others"] for r in c["loaded"]]
        colour = KERNEL_COLOURS[i % len(KERNEL_COLOURS)]
        left.plot(ks, [r["bandwidth_gbs"] for r in c["loaded"]], marker="o", color=colour,
                  label=f"{label} bandwidth")
        twin.plot(ks, [r["latency_ns"] for r in c["loaded"]], marker="s", linestyle="--",
                  color=colour, label=f"{label} latency")
        if c["ratio"] is not None:
            x = [2 * i, 2 * i + 0.8]
            right.bar(x, [c["alone_gbs"], c["all_gbs"]], width=0.7, color=[colour, "#bab0ac"])
            right.text(x[1], c["all_gbs"], f" x{c['ratio']:.2f}", ha="center", va="bottom", fontsize=8)
    left.set_xlabel("other cores streaming (k)")
    left.set_ylabel("read bandwidth [GB/s] (solid)")
    twin.set_ylabel("load latency [ns] (dashed)")
    left.set_ylim(bottom=0)
    twin.set_ylim(bottom=0)
    twin.spines["right"].set_visible(True)
    twin.grid(False)
    left.set_xticks(sorted({r["others"] for _, c in data for r in c["loaded"]}))
    left.set_title("One core while k others stream", loc="left", fontsize=9)
    right.set_xticks([2 * i + d for i in range(len(data)) for d in (0, 0.8)])
    right.set_xticklabels([t for _, c in data for t in ("1 core", f"{c['cores'] or '?'} cores")],
                          fontsize=8)
    right.set_ylabel("bandwidth per core [GB/s]")
    right.set_title("Per core: alone vs all at once", loc="left", fontsize=9)
    right.grid(axis="x", visible=False)
    return fig


def memory_latency(runs: list[dict]) -> Figure | None:
    series = series_of(runs, "mem-latency", "latency", "bytes")
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    xs = line_plot(ax, series, "bytes")
    bytes_axis(ax, xs + mark_caches(ax, runs), "working set [bytes]")
    plain_log_y(ax)
    ax.set_ylabel("load latency [ns]")
    ax.set_title("Memory load latency (median, band: 95% CI; dotted: cache sizes)", loc="left")
    return fig


KERNEL_ORDER = ("copy", "scale", "add", "triad")  # STREAM's own order, not alphabetical


def kernel_order(kernels) -> list[str]:
    known = [k for k in KERNEL_ORDER if k in kernels]
    return known + sorted(k for k in kernels if k not in KERNEL_ORDER)


def stream_bandwidth(runs: list[dict]) -> Figure | None:
    panels = [(run, pts) for run in runs for pts in [stream_points(run.get("records") or [])] if pts]
    if not panels:
        return None
    fig = new_figure((max(SIZE[0], 3.4 * len(panels)), SIZE[1]))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    kernels = kernel_order({k for _, pts in panels for k, _ in pts})
    colour = dict(zip(kernels, KERNEL_COLOURS * len(kernels)))
    width = 0.8 / len(kernels)
    flagged = False
    for ax, (run, pts) in zip(axes, panels):
        threads = sorted({t for _, t in pts}, key=lambda t: (0, t) if isinstance(t, int) else (1, str(t)))
        for i, t in enumerate(threads):
            for j, k in enumerate(kernels):
                rec = pts.get((k, t))
                if rec is None:
                    continue
                x = i + (j - (len(kernels) - 1) / 2) * width
                ok = converged(rec)
                flagged |= not ok
                ax.bar(x, value(rec), width * 0.92, color=colour[k],
                       hatch=None if ok else "///", edgecolor=None if ok else "#c0392b")
                s = rec["stats"]
                med = s.get("median")
                if med is not None:
                    err = [[med - s.get("ci_low", med)], [s.get("ci_high", med) - med]]
                    ax.errorbar(x, med, yerr=err, fmt="_", color="black", markersize=width * 40,
                                elinewidth=0.8, capsize=0)
        ax.set_xticks(range(len(threads)))
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.grid(axis="x", visible=False)
        if len(panels) > 1:
            ax.set_title(safe_text(fig_label(run)), fontsize=9)
    axes[0].set_ylabel("bandwidth [GB/s]")
    handles = [Patch(color=colour[k], label=k) for k in kernels]
    handles.append(Line2D([], [], color="black", marker="_", linestyle="none", markersize=8,
                          label="median (95% CI)"))
    if flagged:
        handles.append(Patch(facecolor="white", hatch="///", edgecolor="#c0392b",
                             label="not converged"))
    axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("STREAM bandwidth (bars: best rate; largest array)", x=0.01, ha="left",
                 fontsize=10)
    return fig


register_figure(FigureSpec(SECTION, "Memory load latency vs working set", memory_latency,
                           "mem-latency", ORDER))
register_figure(FigureSpec(SECTION, "STREAM bandwidth per kernel and thread count", stream_bandwidth,
                           "stream", ORDER))
register_figure(FigureSpec(SECTION, "Memory bandwidth vs working set per access mode",
                           memory_bandwidth, "mem-bandwidth", ORDER))
register_figure(FigureSpec(SECTION, "Memory contention: one core under load, one core vs all",
                           memory_contention, "mem-contention", ORDER))


# ---------------------------------------------------------------- tables

def hierarchy_table(run: dict) -> Optional[Table]:
    h = hierarchy(run)
    if not h:
        return None
    rows = [[r["level"], human_bytes(r["size"], approx=True) if r["size"] else "—",
             fmt_num(r["latency_ns"]), fmt_num(r["bandwidth_gbs"]),
             human_bytes(r["expected"]) if r["expected"] else "—", r["flag"] or "agrees"
             if r["expected"] else r["flag"]]
            for r in h["levels"]]
    note = (f"Levels found in {h['source']}: plateaus of the curve; a level's size is where the "
            "curve has covered half the step (in log) to the next plateau. Latency: median on the "
            "plateau; bandwidth: read, one thread, median on the same range. Expected: the "
            "fingerprint's cache of that level (a factor 2 either way agrees). "
            + ("The fingerprint and the curve agree." if h["agrees"] else
               "The fingerprint and the curve DISAGREE: see the last column.")
            + (" " + "; ".join(h["notes"]) if h["notes"] else ""))
    return Table(["level", "size", "latency [ns]", "bandwidth [GB/s]", "fingerprint", "check"],
                 rows, note)


def contention_table(run: dict) -> Optional[Table]:
    c = contention(run)
    if not c:
        return None
    rows = [[r["others"], fmt_num(r["bandwidth_gbs"]), fmt_num(r["bandwidth_ratio"]),
             fmt_num(r["latency_ns"]), fmt_num(r["latency_ratio"])] for r in c["loaded"]]
    note = ""
    if c["ratio"] is not None:
        note = (f"Degradation ratio (per-core bandwidth with all {c['cores']} cores streaming / "
                f"one core alone): {fmt_num(c['alone_gbs'])} -> {fmt_num(c['all_gbs'])} GB/s, "
                f"{c['ratio']:.3g}. ")
    note += "Rows: the measuring core's read bandwidth and load latency while k others stream."
    return Table(["k others", "bandwidth [GB/s]", "vs alone", "latency [ns]", "vs alone"], rows, note)


def matrix_table(run: dict) -> Optional[Table]:
    m = latency_matrix(run)
    if not m:
        return None
    rows = [[f"CPU {c}"] + [fmt_num(m["ns"].get((c, n))) for n in m["nodes"]] for c in m["cpus"]]
    note = f"Main-memory load latency [ns] at {human_bytes(m['bytes'])}, memory bound to each node."
    if len(m["nodes"]) == 1:
        note += " One NUMA node: the matrix has a single column (no remote memory to measure)."
    return Table(["measuring core"] + [f"node {n}" for n in m["nodes"]], rows, note)


register_table(TableSpec(SECTION, "Detected memory hierarchy (as EV7 Table 2.1)", hierarchy_table, order=ORDER))
register_table(TableSpec(SECTION, "Contention: degradation of one core's bandwidth", contention_table, order=ORDER))
register_table(TableSpec(SECTION, "Core x NUMA-node latency matrix", matrix_table, order=ORDER))
