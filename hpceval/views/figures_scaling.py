"""The study's headline figures, as the seeds drew them against processor count: each proxy's
time per unit of work (its best variant per rung, log-log, ideal scaling dashed) and its
parallel efficiency; a table of the best variant per rung and its margin. Every run with the
proxy adds its lines, so `compare` puts two machines' curves on one axis."""
from __future__ import annotations

import textwrap
from typing import Dict, List, Optional

from matplotlib.figure import Figure

from hpceval.analysis.scaling import PROXIES, best_per_rung, seed_axis_rows

from .data import fig_label, fmt_num
from .plot import new_figure, safe_text
from .figures_proxies import log2_ranks
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Scaling with the machine"
ORDER = 45
MIN_RUNGS = 2


def _series(runs: List[dict], bench: str) -> Dict[tuple, List[dict]]:
    """(run label, scaling, problem) -> its rungs, for series with at least MIN_RUNGS."""
    out: Dict[tuple, List[dict]] = {}
    for run in runs:
        for row in best_per_rung(run.get("records") or [], bench):
            out.setdefault((fig_label(run) if len(runs) > 1 else "", row["scaling"],
                            row["problem"]), []).append(row)
    return {k: v for k, v in out.items() if len(v) >= MIN_RUNGS}


def _draw(ax, rows: List[dict], label: str, ideal: bool) -> None:
    ps = [r["nranks"] for r in rows]
    (line,) = ax.plot(ps, [r["time_us"] for r in rows], marker="o", markersize=3, label=label)
    if ideal:
        t0, p0 = rows[0]["time_us"], ps[0]
        flat = rows[0]["scaling"] == "weak"
        ax.plot(ps, [t0 if flat else t0 * p0 / p for p in ps], linestyle="--", linewidth=0.9,
                color=line.get_color(), alpha=0.7)


def scaling_figure(bench: str):
    unit = PROXIES[bench].time_label

    def make(runs: List[dict]) -> Optional[Figure]:
        series = _series(runs, bench)
        if not series:
            return None
        rows = -(-len(series) // 2)          # the legend below the panels, two columns
        fig = new_figure((9.0, 3.6 + 0.25 * rows))
        ax_t, ax_e = fig.subplots(1, 2)
        ranks: List[int] = []
        for (who, kind, problem), rows in sorted(series.items()):
            label = f"{who + ': ' if who else ''}{problem} ({kind})"
            _draw(ax_t, rows, label, ideal=True)
            ax_e.plot([r["nranks"] for r in rows], [r["efficiency"] for r in rows], marker="o",
                      markersize=3, label=label)
            ranks += [r["nranks"] for r in rows]
        for ax in (ax_t, ax_e):
            log2_ranks(ax, ranks)
        ax_t.set_yscale("log")
        ax_t.set_ylabel(f"best variant's time [{unit}]")
        ax_e.set_ylabel("parallel efficiency (vs smallest rung)")
        ax_e.axhline(1.0, color="#999999", linewidth=0.8, linestyle=":")
        handles, labels = ax_t.get_legend_handles_labels()
        fig.legend(handles, [textwrap.fill(l, 60) for l in labels], loc="outside lower center",
                   ncol=2, fontsize=7)
        fig.suptitle(safe_text(f"{bench}: time per unit of work and efficiency against processors "
                           "(best variant per rung; dashed: ideal scaling)"), fontsize=9, x=0.01,
                     ha="left")
        return fig
    make.__name__ = f"{bench}_scaling"          # the figure's file stem (--figures)
    return make


def seed_axes_figure(bench: str):
    """The quantities a seed drew for this proxy against processors (its Scales.seed_axes), a
    panel each, a line per run and problem: the best variant at each rung, as scaling_figure."""
    axes = PROXIES[bench].scales.seed_axes

    def make(runs: List[dict]) -> Optional[Figure]:
        panels = []
        for axis in axes:
            series: Dict[str, List[dict]] = {}
            for run in runs:
                for row in seed_axis_rows(run.get("records") or [], bench, axis):
                    who = fig_label(run) + ": " if len(runs) > 1 else ""
                    series.setdefault(f"{who}{row['problem']} ({row['scaling']})", []).append(row)
            series = {k: v for k, v in series.items() if len(v) >= MIN_RUNGS}
            if series:
                panels.append((axis, series))
        if not panels:
            return None
        fig = new_figure((4.6 * len(panels), 3.6))
        ranks: List[int] = []
        for ax, (axis, series) in zip(fig.subplots(1, len(panels), squeeze=False)[0], panels):
            for label, rows in sorted(series.items()):
                ax.plot([r["nranks"] for r in rows], [r["value"] for r in rows], marker="o",
                        markersize=3, label=label)
                ranks += [r["nranks"] for r in rows]
            log2_ranks(ax, ranks)
            ax.set_yscale("log")
            ax.set_ylabel(axis.label)
            ax.set_title(textwrap.fill(axis.seed, 50), fontsize=8)
        fig.axes[0].legend(fontsize=7)
        return fig
    make.__name__ = f"{bench}_seed_axes"
    return make


def best_table(bench: str):
    def make(run: dict) -> Optional[Table]:
        rows = best_per_rung(run.get("records") or [], bench)
        if len({r["nranks"] for r in rows}) < MIN_RUNGS:
            return None
        body = [[r["problem"], r["scaling"], r["nranks"], r["grid"], r["best"] or "-",
                 fmt_num(r["time_us"]), r["runner_up"] or "-",
                 "-" if r["margin"] is None else f"{100 * r['margin']:.1f}%",
                 f"{r['efficiency']:.2f}"] for r in rows]
        return Table(["problem", "scaling", "ranks", "grid", "best", PROXIES[bench].time_label,
                      "runner-up", "margin", "efficiency"], body,
                     "best: the variant with the lowest median time at that rank count; margin: "
                     "how much slower the runner-up is")
    return make


for _bench in sorted(PROXIES):          # every proxy that declares how it scales
    register_figure(FigureSpec(SECTION, f"{_bench}: against processor count", scaling_figure(_bench),
                               _bench, ORDER))
    register_table(TableSpec(SECTION, f"{_bench}: best variant per rank count", best_table(_bench), order=ORDER))
    if PROXIES[_bench].scales.seed_axes:
        _axes = PROXIES[_bench].scales.seed_axes
        register_figure(FigureSpec(
            SECTION, f"{_bench} as the seeds drew it: " + " and ".join(a.label for a in _axes)
            + " against processors (best variant per rung; "
            + "; ".join(dict.fromkeys(a.seed for a in _axes)) + ")",
            seed_axes_figure(_bench), _bench, ORDER))
