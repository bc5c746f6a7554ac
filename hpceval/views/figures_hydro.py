"""hydro's figures: cell rate per rank vs cells per rank and weak scaling; cell rate vs working
set on one rank with the cache sizes marked (EV7 fig. 4.1) and the power-of-two dips circled,
the dips' table; the overhead breakdown."""
from __future__ import annotations

from typing import Dict, List

from hpceval.analysis.dips import DIP_FRACTION, Point, power_of_two_dips
from hpceval.analysis.hierarchy import cache_marks, hierarchy
from hpceval.analysis.scaling import extra

from .data import fig_label, fmt_num, records, value
from .figures_apps import rate_vs_size_and_ranks
from .figures_proxies import overhead_specs
from .plot import new_figure, safe_text
from .registry import FigureSpec, Table, TableSpec, register

SECTION, ORDER = "Application proxies", 41


def _points_by_ranks(run: dict) -> Dict[int, List[Point]]:
    """{ranks: [dips.Point]}: hydro's periodic cell rates per rank, x = the block's bytes."""
    out: Dict[int, List[Point]] = {}
    for r in records(run, "hydro", "cell_rate_per_rank"):
        p, s, size = r["params"], r.get("stats") or {}, extra(r, "bytes_per_rank")
        if value(r) and size and p.get("problem") == "periodic":
            out.setdefault(p["P"] * p["Q"] * p["R"], []).append(
                Point((p["bx"], p["by"], p["bz"]), float(size), value(r),
                      s.get("ci_low") or value(r), s.get("ci_high") or value(r)))
    return {n: sorted(pts, key=lambda q: q.size) for n, pts in sorted(out.items())}


def hydro_rates(runs):
    return rate_vs_size_and_ranks(
        runs, "hydro", "cell_rate_per_rank", "cells per rank",
        size=lambda p: p["bx"] * p["by"] * p["bz"], ranks=lambda p: p["P"] * p["Q"] * p["R"],
        keep=lambda p: p.get("problem") == "periodic", ylabel="cell updates per s per rank",
        title="Hydrodynamics (SAGE-like)")


def _cache_figure(runs):
    """Cell rate per rank vs the block's bytes, the cache sizes marked (EV7 fig. 4.1), the
    power-of-two dips circled."""
    series = [(f"{n} rank(s)" + (f" — {fig_label(run)}" if len(runs) > 1 else ""), pts)
              for run in runs for n, pts in _points_by_ranks(run).items()]
    if not series:
        return None
    fig = new_figure((8.0, 4.2))
    ax = fig.subplots()
    circled = False
    for label, pts in series:
        ax.errorbar([q.size for q in pts], [q.rate for q in pts],
                    yerr=[[q.rate - q.ci_low for q in pts], [q.ci_high - q.rate for q in pts]],
                    marker="o", ms=4, capsize=2, label=safe_text(label))
        dips = [row["point"] for row in power_of_two_dips(pts) if row["dip"]]
        ax.plot([q.size for q in dips], [q.rate for q in dips], "o", ms=11, mfc="none",
                color="#d62728", label=None if circled or not dips else "power-of-two dip")
        circled = circled or bool(dips)
    marked = next((run for run in runs if hierarchy(run)), runs[0])   # a latency curve: all levels
    for name, size, detected in cache_marks(marked):
        ax.axvline(size, color="#444444" if detected else "#999999", lw=0.9,
                   ls="-" if detected else ":")
        ax.text(size, 1.0, f" {name}", rotation=90, va="top", fontsize=7,
                transform=ax.get_xaxis_transform())
    ax.set_xscale("log", base=2)
    ax.set_xlabel("working set per rank [bytes] (fields with ghosts + row scratch)")
    ax.set_ylabel("cell updates per s per rank")
    ax.legend(fontsize=7, loc="lower left")
    return fig


def _dips_table(run: dict):
    rows = [[str(n), "x".join(map(str, r["point"].dims)), fmt_num(r["point"].size),
             fmt_num(r["point"].rate), fmt_num(r["expected"]), f"{r['ratio']:.3f}",
             "DIP" if r["dip"] else "no"]
            for n, pts in _points_by_ranks(run).items() for r in power_of_two_dips(pts)]
    if not rows:
        return None
    return Table(["ranks", "block", "bytes", "cells/s per rank", "expected (neighbours)", "ratio",
                  "dip"], rows,
                 "Blocks with a power-of-two leading dimension against the log-log "
                 "interpolation of the nearest non-power-of-two blocks on each side, at the same "
                 f"rank count; a dip is a rate more than {100 * DIP_FRACTION:g}% below it whose "
                 "95% CI lies below the neighbours' (sweep e.g. "
                 "hydro.cells=30x30x30,32x32x32,34x34x34 to look).")


for _spec in [FigureSpec(SECTION, "Hydrodynamics: cell rate per rank vs cells per rank (1 rank) "
                         "and weak scaling", hydro_rates, "hydro", order=ORDER),
              FigureSpec(SECTION, "Hydrodynamics: cell rate vs working set on one rank, cache "
                         "sizes marked, power-of-two dips circled", _cache_figure, "hydro",
                         order=ORDER),
              TableSpec(SECTION, "Hydrodynamics: power-of-two dips", _dips_table, order=ORDER)
              ] + overhead_specs("hydro", "Hydrodynamics (SAGE-like)", ORDER):
    register(_spec)
