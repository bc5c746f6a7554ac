"""hydro: the SAGE-like compressible hydrodynamics proxy (3-D Euler, MUSCL-Hancock + HLLC on a
block of cells per rank; docs/apps_hydro.md). Cells per second vs cells per rank (the EV7
study's figs 4.1-4.3) and weak scaling at a fixed block per rank."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (REPETITION, check_memory, expected_seconds, harness_bytes,
                                    int_tuple, launch_timeout, rank_counts, repetition_args,
                                    spec_arg, words)
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

METRICS = 3                       # step_time, cell_rate, cell_rate_per_rank per point
BYTES_PER_CELL = 8 * 24           # conserved fields, fluxes, row buffers: a generous bound
MIN_RATE = 2e5                    # cell updates per second per rank, pessimistic (time limit)
TYPICAL_RATE = 1e7                # this machine's: 12-23 M cells/s per rank


def _blocks(v: Dict[str, Any]) -> List[tuple]:
    key, form = ("grid", "NXxNYxNZ") if str(v["grid"]).strip() else ("cells", "NXxNYxNZ")
    return [int_tuple(g, key, form, 3) for g in dict.fromkeys(words(v[key], None, key))]


def _npe_fits(text: str, n: int) -> List[str]:
    if not text.strip():
        return []
    p = int_tuple(text.strip(), "npe", "PxQxR", 3)
    if p[0] * p[1] * p[2] != n:
        raise UsageError(f"hydro: --set npe={text} does not fit {n} ranks (P Q R = ranks)")
    return ["--npe", text.strip()]


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    blocks = _blocks(v)
    strong = bool(str(v["grid"]).strip())
    shape = ["--grid" if strong else "--cells", ",".join("x".join(map(str, g)) for g in blocks)]
    fixed = (shape + ["--problem", v["problem"]] + b.param("steps").to_arg(v["steps"])
             + b.param("gamma").to_arg(v["gamma"]) + b.param("cfl").to_arg(v["cfl"])
             + repetition_args(b, v))
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        per_rank = max(x * y * z for x, y, z in blocks) // (n if strong else 1)
        if per_rank < 1:
            raise UsageError(f"hydro: the grid leaves ranks without cells at {n} ranks")
        check_memory(ctx.ranks_per_node(n) * BYTES_PER_CELL * per_rank, ctx, f"hydro np={n}")
        # every sample is `steps` steps; the checks run another few on top
        step_s = per_rank / MIN_RATE * int(v["steps"])
        points = len(blocks)
        specs.append(LaunchSpec(
            b.name, f"hydro np={n} {shape[1]} {'strong' if strong else 'weak'} {v['problem']}",
            "hydro", fixed + _npe_fits(str(v["npe"]), n), n, "core",
            expected_results=METRICS * points,
            estimate_s=expected_seconds(v, points, step_s * MIN_RATE / TYPICAL_RATE),
            timeout_s=launch_timeout(v, points) + 3.0 * (int(v["warmup"]) + 3) * step_s * points))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """BYTES_PER_CELL for every cell of a rank's largest block."""
    strong = spec_arg(spec, "--grid")
    cells = max(x * y * z for x, y, z in (int_tuple(g, "cells", "NXxNYxNZ", 3) for g in
                                           (strong or spec_arg(spec, "--cells")).split(",")))
    return BYTES_PER_CELL * -(-cells // (spec.nranks if strong else 1)) + harness_bytes(v)


register_benchmark(Benchmark(
    "hydro", "proxies",
    "SAGE-like compressible hydrodynamics: 3-D Euler equations, MUSCL-Hancock with an HLLC "
    "Riemann solver, 2-layer halos on a P x Q x R grid; cells per second vs cells per rank and "
    "weak scaling; conservation (periodic) or the exact Sod solution (sod) checked",
    (Param("cells", "str", "8x8x8,16x16x16,30x30x15,32x32x32",
           "cells per rank NXxNYxNZ, comma-separated (weak scaling; SAGE's 13,500 is 30x30x15)"),
     Param("grid", "str", "", "global grids NXxNYxNZ (strong scaling; replaces cells)"),
     Param("npe", "str", "", "process grid PxQxR (empty: MPI_Dims_create's)"),
     Param("problem", "choice", "periodic", "periodic: smooth state, conservation checked; sod: "
           "shock tube along x, checked against the exact solution", choices=("periodic", "sod")),
     Param("steps", "int", 10, "time steps per sample", 1, 1_000_000),
     Param("gamma", "float", 1.4, "ratio of specific heats", 1.0001, 10.0),
     Param("cfl", "float", 0.8, "Courant number", 0.01, 1.0),
     Param("ranks", "str", "", "rank counts to sweep, comma-separated, 'max' = all cores "
           "(empty: --np, else 1)"),
     ) + REPETITION,
    _plan, ranks="--np or the ranks sweep",
    # not sized by it, but its cell-rate figure marks the cache sizes hpceval detects: the
    # planner's probe records the last level with the run
    sized_by_llc=True, memory=_memory, tiny=("cells=8x8x8", "steps=2")))


# ---------------------------------------------------------------- card, headline rows, figures

def _best_rate(records: list):
    from hpceval.analysis.headlines import select, value
    recs = [r for r in select(records, "hydro", "cell_rate_per_rank")
            if r["params"].get("problem") == "periodic" and value(r)]
    return max(recs, key=value) if recs else None


def _where(rec: dict) -> str:
    p = rec["params"]
    return (f"{p['bx']}x{p['by']}x{p['bz']} cells per rank, {p['P'] * p['Q'] * p['R']} ranks "
            f"({p['P']}x{p['Q']}x{p['R']})")


def _rows():
    from hpceval.analysis.proxies import BestPoint
    return BestPoint(_best_rate, _where, "Hydrodynamics cell rate per rank (SAGE-like)",
                     "cells/s", "Hydro cell rate per rank", order=41)


def card_rows():
    return _rows().card_rows()


def headline_rows():
    return _rows().headline_rows()


def _points_by_ranks(run: dict):
    """{ranks: [dips.Point]}: hydro's periodic cell rates per rank, x = the block's bytes."""
    from hpceval.analysis.dips import Point
    from hpceval.analysis.scaling import extra
    from hpceval.report.data import records, value
    out = {}
    for r in records(run, "hydro", "cell_rate_per_rank"):
        p, s, size = r["params"], r.get("stats") or {}, extra(r, "bytes_per_rank")
        if value(r) and size and p.get("problem") == "periodic":
            out.setdefault(p["P"] * p["Q"] * p["R"], []).append(
                Point((p["bx"], p["by"], p["bz"]), float(size), value(r),
                      s.get("ci_low") or value(r), s.get("ci_high") or value(r)))
    return {n: sorted(pts, key=lambda q: q.size) for n, pts in sorted(out.items())}


def _cache_figure(runs):
    """Cell rate per rank vs the block's bytes, the cache sizes marked (EV7 fig. 4.1), the
    power-of-two dips circled."""
    from hpceval.analysis.dips import power_of_two_dips
    from hpceval.analysis.hierarchy import cache_marks
    from hpceval.report.data import fig_label
    from hpceval.report.figures import _figure, _text
    series = [(f"{n} rank(s)" + (f" — {fig_label(run)}" if len(runs) > 1 else ""), pts)
              for run in runs for n, pts in _points_by_ranks(run).items()]
    if not series:
        return None
    fig = _figure((8.0, 4.2))
    ax = fig.subplots()
    circled = False
    for label, pts in series:
        ax.errorbar([q.size for q in pts], [q.rate for q in pts],
                    yerr=[[q.rate - q.ci_low for q in pts], [q.ci_high - q.rate for q in pts]],
                    marker="o", ms=4, capsize=2, label=_text(label))
        dips = [row["point"] for row in power_of_two_dips(pts) if row["dip"]]
        ax.plot([q.size for q in dips], [q.rate for q in dips], "o", ms=11, mfc="none",
                color="#d62728", label=None if circled or not dips else "power-of-two dip")
        circled = circled or bool(dips)
    from hpceval.analysis.hierarchy import hierarchy
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
    from hpceval.analysis.dips import DIP_FRACTION, power_of_two_dips
    from hpceval.report.data import fmt_num
    from hpceval.report.tables import Table
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


def figures():
    from hpceval.report.figures import FigureSpec
    from hpceval.report.figures_proxies import overhead_specs
    from hpceval.report.figures_apps import rate_vs_size_and_ranks
    from hpceval.report.tables import TableSpec

    def hydro_rates(runs):
        return rate_vs_size_and_ranks(
            runs, "hydro", "cell_rate_per_rank", "cells per rank",
            size=lambda p: p["bx"] * p["by"] * p["bz"], ranks=lambda p: p["P"] * p["Q"] * p["R"],
            keep=lambda p: p.get("problem") == "periodic", ylabel="cell updates per s per rank",
            title="Hydrodynamics (SAGE-like)")
    rates = FigureSpec("Application proxies", "Hydrodynamics: cell rate per rank vs cells per "
                       "rank (1 rank) and weak scaling", hydro_rates, "hydro", order=41)
    caches = FigureSpec("Application proxies", "Hydrodynamics: cell rate vs working set on one "
                        "rank, cache sizes marked, power-of-two dips circled", _cache_figure,
                        "hydro", order=41)
    dips = TableSpec("Application proxies", "Hydrodynamics: power-of-two dips", _dips_table)
    return [rates, caches, dips] + overhead_specs("hydro", "Hydrodynamics (SAGE-like)", 41)


# The study: weak scaling at SAGE's 13,500 cells per processor over every rung.
register_study("hydro", cells="30x30x15", ranks="ladder", budget=0.3, min_reps=3, max_reps=20,
               warmup=1)
