"""Compute-kernel figures and tables: the shallow water model's MFlop/s vs levels per truncation
(as Fig. 1 of the SP/AlphaServer paper), one copy vs one copy per core (node memory contention),
the column-physics kernel vs longitude dimension, and the model's test-case errors."""
from __future__ import annotations

from typing import Optional

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from .data import fmt_num, records, fig_label, value
from hpceval.analysis.kernels import parallel_relative

from .plot import new_figure, line_plot, safe_text, legend, panel_axes
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Compute kernels"
ORDER = 30
TAB10 = mpl.colormaps["tab10"]


def _sst(run: dict, metric: str = "mflops") -> list[dict]:
    """One record per (truncation, levels, copies, scheme): test case 2, alpha 0 when present."""
    recs = [r for r in records(run, "sst", metric) if value(r) is not None]
    tc2 = [r for r in recs if r["params"].get("test") == 2 and not r["params"].get("alpha")]
    return tc2 or recs


def _by(recs: list[dict], key) -> dict:
    out: dict = {}
    for r in recs:
        out.setdefault(key(r), []).append(r)
    return out


def sst_levels(runs: list[dict]) -> Optional[Figure]:
    """MFlop/s per process vs number of levels, a line per truncation (one copy)."""
    panels = []
    for run in runs:
        recs = [r for r in _sst(run) if r["params"].get("copies", 1) == min(
            x["params"].get("copies", 1) for x in _sst(run))]
        if recs:
            panels.append((run, recs))
    if not panels:
        return None
    fig, axes = panel_axes(len(panels))
    for ax, (run, recs) in zip(axes, panels):
        groups = _by(recs, lambda r: (r["params"]["truncation"], r["params"].get("scheme", "")))
        schemes = {s for _, s in groups}
        series = [(f"T{m}" + (f" {s}" if len(schemes) > 1 else ""),
                   sorted(g, key=lambda r: r["params"]["levels"]))
                  for (m, s), g in sorted(groups.items())]
        line_plot(ax, series, "levels")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sorted({r["params"]["levels"] for r in recs})))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("levels transformed together")
        ax.set_title(safe_text(fig_label(run)), loc="left", fontsize=9)
    axes[0].set_ylabel("MFlop/s per process (median)")
    fig.suptitle("Shallow water model: MFlop/s vs levels per truncation (one copy)", x=0.01,
                 ha="left", fontsize=10)
    return fig


def sst_contention(runs: list[dict]) -> Optional[Figure]:
    """MFlop/s per process vs truncation, one copy (solid) vs one per core (dashed)."""
    panels = []
    for run in runs:
        recs = _sst(run)
        copies = sorted({r["params"].get("copies", 1) for r in recs})
        if len(copies) > 1:
            panels.append((run, recs, copies))
    if not panels:
        return None
    fig, axes = panel_axes(len(panels))
    for ax, (run, recs, copies) in zip(axes, panels):
        levels = sorted({r["params"]["levels"] for r in recs})
        for li, lev in enumerate([levels[0], levels[-1]] if len(levels) > 1 else levels):
            for c in copies:
                pts = sorted((r for r in recs if r["params"]["levels"] == lev
                              and r["params"].get("copies", 1) == c),
                             key=lambda r: r["params"]["truncation"])
                if not pts:
                    continue
                ax.plot([r["params"]["truncation"] for r in pts], [value(r) for r in pts],
                        marker="o", markersize=3, color=("#4e79a7", "#e15759")[li % 2],
                        linestyle="-" if c == copies[0] else "--",
                        label=f"L={lev}, {c} cop{'y' if c == 1 else 'ies'}")
        ax.set_xscale("log", base=2)
        ticks = sorted({r["params"]["truncation"] for r in recs})
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"T{v:g}"))
        ax.set_xlabel("truncation")
        legend(ax)
        ax.set_title(safe_text(fig_label(run)), loc="left", fontsize=9)
    axes[0].set_ylabel("MFlop/s per process (median)")
    fig.suptitle("Shallow water model: one core alone vs every core at once", x=0.01, ha="left",
                 fontsize=10)
    return fig


def column_nlon(runs: list[dict]) -> Optional[Figure]:
    series = []
    for run in runs:
        recs = sorted((r for r in records(run, "column", "mflops") if value(r) is not None),
                      key=lambda r: r["params"]["nlon"])
        if recs:
            series.append((fig_label(run), recs))
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    line_plot(ax, series, "nlon")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted({r["params"]["nlon"] for _, recs in series
                                                    for r in recs})))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_xlabel("longitude dimension (columns per chunk; 512 columns in all)")
    ax.set_ylabel("MFlop/s (median)")
    ax.set_title("Column-physics kernel vs longitude dimension (band: 95% CI)", loc="left")
    return fig


def sst_errors_table(run: dict) -> Optional[Table]:
    """One row per test case, truncation, alpha and scheme: the largest error over levels and
    copies (the binary already takes the largest over levels)."""
    rows: dict = {}
    for r in records(run, "sst", "height_error"):
        p, v = r["params"], value(r)
        if v is None:
            continue
        key = (p.get("test", 0), p["truncation"], p.get("alpha", 0), p.get("scheme", ""))
        row = rows.setdefault(key, {"grid": f"{p.get('nlon')}x{p.get('nlat')}",
                                    "days": p.get("days")})
        row[p.get("norm")] = max(v, row.get(p.get("norm"), 0.0))
    if not rows:
        return None
    out = []
    for (test, m, alpha, scheme), row in sorted(rows.items()):
        out.append([str(test), f"T{m} ({row['grid']})", fmt_num(alpha), scheme, fmt_num(row["days"])]
                   + [f"{row[n]:.2e}" if n in row else "" for n in ("l1", "l2", "linf")])
    return Table(["test case", "truncation", "alpha", "scheme", "days", "l1", "l2", "linf"], out,
                 "Normalised height errors (Williamson et al. 1992), largest over levels and "
                 "copies. Test case 2 is compared with the steady solution, test case 1 with the "
                 "exactly rotated cosine bell (its kink limits a spectral model), test case 6 with "
                 "the wave moved at its nondivergent phase speed (not an exact solution); a run "
                 "whose errors are not finite or above the test case's bound (docs/proxies.md) "
                 "fails and reports no rate.")


register_figure(FigureSpec(SECTION, "Shallow water model: MFlop/s vs levels per truncation",
                           sst_levels, "sst", ORDER))
register_figure(FigureSpec(SECTION, "Shallow water model: one core vs all cores", sst_contention,
                           "sst", ORDER))
register_figure(FigureSpec(SECTION, "Column-physics kernel vs longitude dimension", column_nlon,
                           "column", ORDER))
register_table(TableSpec(SECTION, "Shallow water model: test-case height errors", sst_errors_table, order=ORDER))


def psst_variants(runs: list[dict]) -> Optional[Figure]:
    """Bars: (time - best) / best per process grid, one bar per variant (Fig. 5 style)."""
    panels = [(run, rows) for run in runs for rows in [parallel_relative(run)] if rows]
    if not panels:
        return None
    fig = new_figure((max(7.5, 3.8 * len(panels)), 4.0))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (run, rows) in zip(axes, panels):
        grids = list(dict.fromkeys(r["grid"] for r in sorted(rows, key=lambda r: r["P"])))
        variants = sorted({r["variant"] for r in rows})
        width = 0.8 / len(variants)
        for vi, var in enumerate(variants):
            xs, ys = [], []
            for gi, grid in enumerate(grids):
                for r in rows:
                    if r["grid"] == grid and r["variant"] == var:
                        xs.append(gi + (vi - (len(variants) - 1) / 2) * width)
                        ys.append(100 * r["relative"])
            ax.bar(xs, ys, width, label=var, color=TAB10(vi % 10))
        ax.set_xticks(range(len(grids)), [f"P x Q = {g}" for g in grids])
        m, lev = rows[0]["truncation"], rows[0]["levels"]
        ax.set_title(safe_text(f"{fig_label(run)}  T{m}, L={lev}"), loc="left", fontsize=9)
    axes[0].set_ylabel("(time - best) / best of the grid [%]")
    # FFT: alltoallv/pairwise transpose; distributed keeps longitudes split (binary exchange)
    axes[-1].legend(title="mapping/FFT/sum", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Parallel shallow water model: variants relative to the best per aspect ratio",
                 x=0.01, ha="left", fontsize=10)
    return fig


register_figure(FigureSpec(SECTION, "Parallel shallow water model: variants per process grid",
                           psst_variants, "psst", ORDER))
