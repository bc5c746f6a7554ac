"""Memory figures and tables: bandwidth vs working set per access mode (the detected cache edges
and the fingerprint's cache sizes marked), the contention curves (one core measuring while k
others stream; one core alone vs every core), and as tables the detected hierarchy (the EV7
paper's Table 2.1), the contention degradation and the core x NUMA-node latency matrix.
(Latency vs working set per order / page size is figures.memory_latency: one series per
parameter combination.)"""
from __future__ import annotations

from typing import List, Optional

from matplotlib.figure import Figure

from hpceval.analysis.hierarchy import PAGE_PREFERENCE, contention, hierarchy, latency_matrix

from .data import fmt_num, human_bytes, records, fig_label, value
from .figures import (KERNEL_COLOURS, FigureSpec, _bytes_axis, _figure, _plain_log_y, _text,
                      legend, mark_caches, register_figure)
from .tables import Table, TableSpec, register_table

SECTION = "Memory"
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
    fig = _figure((9.0, 3.4 * len(panels)))
    grid = fig.subplots(len(panels), 2, squeeze=False, sharey="row")
    for row, (run, t, series) in zip(grid, panels):
        pages = next(iter(series.values()))[0]["params"].get("pages")
        for ax, (name, group) in zip(row, GROUPS):
            modes = [m for m in group if m in series]
            if ax is row[1]:
                modes += sorted(m for m in series if m not in MODE_ORDER)
            xs = _draw_modes(ax, series, modes)
            _bytes_axis(ax, (xs or [1024, 1 << 20]) + mark_caches(ax, [run]),
                        "working set per thread [bytes]")
            _plain_log_y(ax)
            ax.set_title(_text(f"{name} ({fig_label(run)}, {t} thread{'s' if t > 1 else ''}, "
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
    fig = _figure()
    # Constrained layout does not see a twin axis: leave room for its label between the panels.
    fig.get_layout_engine().set(wspace=0.14)
    left, right = fig.subplots(1, 2)
    twin = left.twinx()
    for i, (run, c) in enumerate(data):
        label = _text(fig_label(run))
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


register_figure(FigureSpec(SECTION, "Memory bandwidth vs working set per access mode",
                           memory_bandwidth, "mem-bandwidth"))
register_figure(FigureSpec(SECTION, "Memory contention: one core under load, one core vs all",
                           memory_contention, "mem-contention"))


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


register_table(TableSpec(SECTION, "Detected memory hierarchy (as EV7 Table 2.1)", hierarchy_table))
register_table(TableSpec(SECTION, "Contention: degradation of one core's bandwidth", contention_table))
register_table(TableSpec(SECTION, "Core x NUMA-node latency matrix", matrix_table))
