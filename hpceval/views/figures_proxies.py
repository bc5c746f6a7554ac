"""Application-proxy figures and tables: the barotropic solver's variants (time per iteration by
halo x global-sum variant per process grid, as the POP-on-X1 study compared them), strong and
weak scaling, and the parallel overhead breakdown (the CCM/MP-2D overhead figure of the IBM
p690 talk: Comm, plus Imbal, plus Copy, plus Dupl, 1 - Efficiency vs number of processes)."""
from __future__ import annotations

import json
from typing import Dict, List, Optional

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from hpceval.analysis.scaling import (CLOSURE_TOL, CUMULATIVE, extra, nranks, overhead_rows,
                                      problem_name, proxy, strong_scaling, timed, variant_name,
                                      weak_scaling)

from .data import MISSING, fmt_num, records, fig_label, value
from .plot import new_figure, safe_text
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Application proxies"
ORDER = 40
BENCH = "barotropic"
TAB20 = mpl.colormaps["tab20"]
MAX_PANELS = 4
OVERHEAD_PANELS = 3


def _timed(run: dict) -> List[dict]:
    return timed(run.get("records") or [], BENCH)


def _panel_key(params: dict) -> str:
    """What one panel of the variants figure holds: a strong-scaling problem (nx x ny, land)
    or a weak-scaling series (points per rank)."""
    return ("weak: " if params.get("scaling") == "weak" else "") + problem_name(params)


def log2_ranks(ax, ranks) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(ranks))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_xlabel("number of processes")


# ---------------------------------------------------------------- variants

def barotropic_variants(runs: List[dict]) -> Optional[Figure]:
    """Bars: median time per iteration per process grid, one bar per halo/sum variant, the
    95% CI of the median as error bars; a panel per problem (and per run)."""
    panels = []
    for run in runs:
        groups: Dict[str, List[dict]] = {}
        for r in _timed(run):
            groups.setdefault(_panel_key(r["params"]), []).append(r)
        for key in sorted(groups, key=lambda k: (k.startswith("weak"), k)):
            panels.append((run, key, groups[key]))
    if not panels:
        return None
    shown = panels[:MAX_PANELS]
    colour = _variant_colours(variant_name(r["params"]) for _, _, recs in shown for r in recs)
    variants = list(colour)
    fig = new_figure((7.5, 2.2 + 2.0 * len(shown)))
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for ax, (run, key, recs) in zip(axes, shown):
        grids = sorted({(nranks(r["params"]), r["params"].get("P"), r["params"].get("Q"),
                         str(r["params"].get("mapping") or "")) for r in recs})
        mappings = len({g[3] for g in grids}) > 1   # name the rank mapping when it varies
        here = [v for v in variants if any(variant_name(r["params"]) == v for r in recs)]
        width = 0.8 / len(here)
        for vi, var in enumerate(here):
            xs, ys, lo, hi = [], [], [], []
            for gi, (_, P, Q, mapping) in enumerate(grids):
                for r in recs:
                    prm = r["params"]
                    if variant_name(prm) == var and (prm.get("P"), prm.get("Q"), str(
                            prm.get("mapping") or "")) == (P, Q, mapping):
                        s, y = r["stats"], value(r)
                        xs.append(gi + (vi - (len(here) - 1) / 2) * width)
                        ys.append(y)
                        lo.append(max(y - s.get("ci_low", y), 0))
                        hi.append(max(s.get("ci_high", y) - y, 0))
            ax.bar(xs, ys, width * 0.92, color=colour[var], label=var,
                   yerr=[lo, hi], error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": "black"})
        ax.set_xticks(range(len(grids)), [f"{P}x{Q}" + (f"\n{m}" if mappings else "") + f"\n({p})"
                                          for p, P, Q, m in grids])
        # a few huge CIs (a noisy host) must not flatten every bar: clip them, visibly
        tops = [value(r) for r in recs]
        ax.set_ylim(0, min(ax.get_ylim()[1], 2.0 * max(tops)))
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("µs per iteration")
        prefix = f"{fig_label(run)}  " if len(runs) > 1 else ""
        ax.set_title(safe_text(f"{prefix}{key}"), loc="left", fontsize=9)
    axes[-1].set_xlabel("process grid P x Q" + (", rank mapping" if any(
        r["params"].get("mapping") for _, _, recs in shown for r in recs) else "") + " (ranks)")
    handles = {h.get_label(): h for ax in axes for h in ax.get_legend_handles_labels()[0]}
    fig.legend([handles[v] for v in variants if v in handles],
               [v for v in variants if v in handles], title="halo/sum(branch)",
               loc="outside right upper")
    more = f" (first {len(shown)} of {len(panels)} problems)" if len(panels) > len(shown) else ""
    fig.suptitle("Barotropic solver: time per iteration by variant (median, bars: 95% CI)" + more,
                 x=0.01, ha="left", fontsize=10)
    return fig


def _same_params(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _fmt_diff(v) -> str:
    return f"{v:.1e}" if isinstance(v, (int, float)) and not isinstance(v, bool) else MISSING


def variants_table(run: dict) -> Optional[Table]:
    recs = _timed(run)
    if not recs:
        return None
    rates = records(run, BENCH, "sim_days_per_day")
    rows = []
    for r in sorted(recs, key=lambda r: (_panel_key(r["params"]), nranks(r["params"]),
                                         r["params"].get("P") or 0,
                                         str(r["params"].get("mapping") or ""),
                                         variant_name(r["params"]))):
        prm, s = r["params"], r["stats"]
        rate = next((value(x) for x in rates if _same_params(x["params"], prm)), None)
        ci = (f"{fmt_num(s['ci_low'])} – {fmt_num(s['ci_high'])}"
              if s.get("ci_low") is not None and s.get("ci_high") is not None else MISSING)
        rows.append([_panel_key(prm), f"{prm.get('P')} x {prm.get('Q')}",
                     str(prm.get("mapping") or MISSING), str(prm.get("halo")),
                     str(prm.get("sum")), str(prm.get("branch") or MISSING),
                     fmt_num(extra(r, "iterations")), fmt_num(value(r)) +
                     ("" if r.get("converged") is not False else " ⚠"), ci, fmt_num(rate),
                     _fmt_diff(extra(r, "max_rel_diff_vs_direct")),
                     _fmt_diff(extra(r, "max_rel_diff_vs_first_variant")),
                     _fmt_diff(extra(r, "relative_residual"))])
    return Table(["problem", "P x Q", "mapping", "halo", "sum", "branch", "iterations",
                  "µs/iter (median)",
                  "95% CI", "sim days/day", "vs direct", "vs first variant", "rel. residual"], rows,
                 "Time per iteration: the slowest rank's solve time / iterations, median over "
                 "samples; mapping: row (rank = q P + p) or col (rank = p Q + q). "
                 "Verification: largest relative difference of the solution from a "
                 "direct solve (small grids only) and from the first variant run, and the final "
                 "relative residual; a variant that disagrees fails its run.")


# ---------------------------------------------------------------- scaling

def _scaling_rows(run: dict) -> Dict[str, List[dict]]:
    recs = run.get("records") or []
    return {"strong": strong_scaling(recs, BENCH), "weak": weak_scaling(recs, BENCH)}


def _variant_colours(names) -> Dict[str, tuple]:
    """The same colour for a variant in every panel and figure of the section."""
    return {v: TAB20(i % 20) for i, v in enumerate(sorted(set(names)))}


def _base_text(rows: List[dict]) -> str:
    """What the efficiencies of a panel are relative to, in words."""
    if all(r["base_nranks"] == 1 for r in rows):
        if all(r["base"] == "1 rank" for r in rows):
            return "relative to each variant's one-rank run"
        return ("relative to one rank (the fastest one-rank run of the problem\nfor variants "
                "without their own)")
    return "relative to one rank, else to the variant's smallest rank count"


def barotropic_scaling(runs: List[dict]) -> Optional[Figure]:
    """Parallel efficiency vs number of processes: a panel per strong-scaling problem and
    weak-scaling series (up to MAX_PANELS), a line per variant (best process grid at each
    count); a variant's colour is the same in every panel."""
    panels: Dict[tuple, List[tuple]] = {}
    for run in runs:
        for kind, rows in _scaling_rows(run).items():
            groups: Dict[tuple, List[dict]] = {}
            for r in rows:
                groups.setdefault((r["problem"], r["variant"]), []).append(r)
            for (problem, var), ser in groups.items():
                if any(r["nranks"] > r["base_nranks"] for r in ser):
                    panels.setdefault((run.get("id"), kind, problem), []).append((run, var, ser))
    if not panels:
        return None
    keys = sorted(panels, key=lambda k: (str(k[0]), k[1] != "strong", k[2]))[:MAX_PANELS]
    colour = _variant_colours(v for k in keys for _, v, _ in panels[k])
    ncols = 1 if len(keys) == 1 else 2
    nrows = (len(keys) + ncols - 1) // ncols
    fig = new_figure((7.5 if ncols == 1 else 9.0, 1.0 + 3.2 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True).ravel()
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes, keys):
        _, kind, problem = key
        ranks, rows = [], []
        for run, var, ser in panels[key]:
            # the reference point itself (efficiency 1), then the series
            pts = ([(ser[0]["base_nranks"], 1.0)] if ser[0]["base_nranks"] < ser[0]["nranks"]
                   else []) + [(r["nranks"], r["efficiency"]) for r in ser]
            ax.plot(*zip(*pts), marker="o", markersize=3, linewidth=1.3, color=colour[var],
                    label=var)
            ranks += [x for x, _ in pts]
            rows += ser
        ax.axhline(1.0, color="#555555", linestyle=":", linewidth=1)
        log2_ranks(ax, ranks)
        what = "T1 / (p Tp)" if kind == "strong" else "T1 / Tp per iteration"
        run_line = [fig_label(panels[key][0][0])] if len(runs) > 1 else []   # own line: width
        ax.set_title(safe_text("\n".join(run_line + [f"{kind} scaling, {problem}: {what}",
                                                  _base_text(rows)])), loc="left", fontsize=8)
        ax.set_ylabel("parallel efficiency")
    axes[0].set_ylim(bottom=0)
    handles = {h.get_label(): h for ax in axes for h in ax.get_legend_handles_labels()[0]}
    fig.legend([handles[v] for v in colour if v in handles], [v for v in colour if v in handles],
               title="halo/sum(branch)", loc="outside right upper", fontsize=7)
    more = f" (first {len(keys)} of {len(panels)} panels)" if len(panels) > len(keys) else ""
    fig.suptitle("Barotropic solver: parallel efficiency, best process grid per count" + more,
                 x=0.01, ha="left", fontsize=10)
    return fig


def scaling_table(run: dict) -> Optional[Table]:
    rows = []
    for kind, krows in _scaling_rows(run).items():
        for r in krows:
            rows.append([kind, r["problem"], r["variant"], str(r["nranks"]), r["grid"],
                         fmt_num(r["time_us"]), fmt_num(r["speedup"]),
                         f"{100 * r['efficiency']:.1f}%", f"{r['base_nranks']} ({r['base_grid']})"])
    if not any(int(r[3]) > 1 for r in rows):
        return None
    return Table(["scaling", "problem", "variant", "ranks", "best grid", "µs/iter", "speed-up",
                  "efficiency", "relative to ranks (grid)"], rows,
                 "Best process grid (lowest median time per iteration) at each rank count. Strong "
                 "scaling: speed-up T_b / T_p, efficiency p_b T_b / (p T_p); weak scaling "
                 "(fixed points per rank): efficiency T_b / T_p, speed-up p / p_b x T_b / T_p; "
                 "b is the one-rank run, or the smallest rank count measured when there is none.")


# ---------------------------------------------------------------- overhead breakdown

STYLES = {"Comm": ("#4e79a7", "o", "-"), "plus Imbal": ("#f28e2b", "s", "-"),
          "plus Copy": ("#59a14f", "^", "-"), "plus Dupl": ("#b07aa1", "D", "-"),
          "1 - Efficiency": ("#e15759", "v", "--")}


def _overhead_panels(run: dict, bench: str = BENCH) -> List[tuple]:
    """(problem, variant, rows) with at least two rank counts: variants measured on one rank
    themselves first (their curves start at the baseline), then the fastest at the largest
    count."""
    groups: Dict[tuple, List[dict]] = {}
    for r in overhead_rows(run.get("records") or [], bench):
        groups.setdefault((r["problem"], r["variant"]), []).append(r)
    out = [(p, v, rows) for (p, v), rows in groups.items() if len(rows) > 1]
    return sorted(out, key=lambda x: (x[2][0]["baseline"] != "1 rank", -x[2][-1]["nranks"],
                                      x[2][-1]["time_us"], x[0], x[1]))


def barotropic_overhead(runs: List[dict]) -> Optional[Figure]:
    """Cumulative overhead curves in % of p x Tp vs number of processes, as the CCM/MP-2D
    figure: Comm, plus Imbal, plus Copy, plus Dupl, and 1 - Efficiency (the gap up to it is
    the computation's rate change, "other")."""
    return _overhead_figure(runs, BENCH, "Barotropic solver")


def psst_overhead(runs: List[dict]) -> Optional[Figure]:
    """The same for the parallel spectral model (the CCM/MP-2D figure's own kind of code)."""
    return _overhead_figure(runs, "psst", "Parallel shallow water model")


def _overhead_figure(runs: List[dict], bench: str, what: str) -> Optional[Figure]:
    panels = [(run, p, v, rows) for run in runs for p, v, rows in _overhead_panels(run, bench)]
    if not panels:
        return None
    shown = panels[:OVERHEAD_PANELS]
    fig = new_figure((max(7.5, 3.4 * len(shown)), 4.2))
    axes = fig.subplots(1, len(shown), squeeze=False, sharey=True)[0]
    for ax, (run, problem, var, rows) in zip(axes, shown):
        xs = [r["nranks"] for r in rows]
        curves = [r["breakdown"].cumulative() for r in rows]
        for name in CUMULATIVE:
            c, m, ls = STYLES[name]
            ax.plot(xs, [cu[name] for cu in curves], color=c, marker=m, markersize=3.5,
                    linestyle=ls, linewidth=1.4, label=name)
        ax.axhline(0, color="#555555", linewidth=0.6)
        log2_ranks(ax, xs)
        prefix = f"{fig_label(run)}  " if len(runs) > 1 else ""
        borrowed = {r["baseline"] for r in rows} - {"1 rank"}
        ax.set_title(safe_text(f"{prefix}{problem}, {var}" + "".join(
            f"\nbaseline: {b}" for b in sorted(borrowed))), loc="left", fontsize=8)
    axes[0].set_ylabel("overhead [% of p x Tp]")
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    more = (f"; first {len(shown)} of {len(panels)} variants" if len(panels) > len(shown) else "")
    fig.suptitle(f"{what}: parallel overhead breakdown (strong scaling, best grid"
                 + more + ")", x=0.01, ha="left", fontsize=10)
    return fig


def _pct(v: float) -> str:
    text = f"{v:.1f}"
    return "0.0" if text == "-0.0" else text


def overhead_table(run: dict) -> Optional[Table]:
    return _overhead_table(run, BENCH)


def psst_overhead_table(run: dict) -> Optional[Table]:
    return _overhead_table(run, "psst")


def _overhead_table(run: dict, bench: str) -> Optional[Table]:
    rows = []
    for r in overhead_rows(run.get("records") or [], bench):
        pc = r["breakdown"].percent()
        rows.append([r["problem"], r["variant"], str(r["nranks"]), r["grid"], fmt_num(r["time_us"]),
                     *(_pct(pc[k]) for k in ("communication", "imbalance", "copies",
                                                "duplicated", "rate_change", "unattributed",
                                                "overhead")),
                     "yes" if r["closes"] else "NO", r["baseline"]])
    if not rows:
        return None
    return Table(["problem", "variant", "ranks", "grid", proxy(bench).time_label, "comm %", "imbal %", "copy %",
                  "dupl %", "other %", "unattributed %", "1 - E %", "closes", "baseline"], rows,
                 "Shares of sum_r W_r (p x Tp; W_r: each rank's wall time per iteration (step) of the "
                 "timed loop, the mean over every kept sample as the phase timers are, so 1 - E "
                 "here can differ from the scaling table's, which uses medians), against the "
                 "one-rank run (W1, C1, K1, M1: wall, compute, copies, "
                 "communication). 1 - E = (sum W_r - W1) / sum W_r. imbal = sum_r (max(C+K) - "
                 "(C_r+K_r)), at most the communication time; comm = sum M_r - M1 - imbal; copy = "
                 "sum K_r - K1; dupl = (sum F_r - F1) / F1 x C1 (flops); other = sum C_r - C1 - "
                 "dupl (the computation's rate changing with granularity: cache effects; may be "
                 "negative); unattributed = the rest (time outside every phase). The shares add "
                 f"up to 1 - E; 'closes' when |unattributed| <= {100 * CLOSURE_TOL:g}% of "
                 "p x Tp.")


register_figure(FigureSpec(SECTION, "Barotropic solver: time per iteration by variant and "
                                    "process grid", barotropic_variants, BENCH, ORDER))
register_figure(FigureSpec(SECTION, "Barotropic solver: strong and weak scaling efficiency",
                           barotropic_scaling, BENCH, ORDER))
register_figure(FigureSpec(SECTION, "Barotropic solver: parallel overhead breakdown (as "
                                    "CCM/MP-2D on the IBM p690)", barotropic_overhead, BENCH, ORDER))
register_table(TableSpec(SECTION, "Barotropic solver variants", variants_table, order=ORDER))
register_table(TableSpec(SECTION, "Barotropic solver scaling", scaling_table, order=ORDER))
register_table(TableSpec(SECTION, "Barotropic solver overhead shares", overhead_table, order=ORDER))
register_figure(FigureSpec(SECTION, "Parallel shallow water model: parallel overhead breakdown "
                                    "(as CCM/MP-2D on the IBM p690)", psst_overhead, "psst", ORDER))
register_table(TableSpec(SECTION, "Parallel shallow water model overhead shares",
                         psst_overhead_table, order=ORDER))


def overhead_specs(bench: str, what: str, order: int) -> list:
    """The overhead breakdown figure and table of another proxy with per-rank phase timers."""
    return [FigureSpec(SECTION, f"{what}: parallel overhead breakdown (as CCM/MP-2D on the "
                                "IBM p690)", lambda runs: _overhead_figure(runs, bench, what),
                       bench, order),
            TableSpec(SECTION, f"{what} overhead shares", lambda run: _overhead_table(run, bench),
                      order=order)]
