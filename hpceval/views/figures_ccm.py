"""ccm's figures: the ORNL study's Fig. 7 (CCM/MP-2D's "total computation time" and "parallel
overhead time", each summed over the processors, against processors), per physics balance, and
the overhead breakdown every proxy with phases has."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from matplotlib.figure import Figure

from hpceval.analysis.scaling import record_arrays, strong_scaling

from .data import fig_label
from .figures_proxies import ORDER, SECTION, _overhead_figure, _overhead_table, log2_ranks
from .plot import new_figure, safe_text
from .registry import FigureSpec, Table, TableSpec, register_figure, register_table

BENCH = "ccm"
COLOURS = {"none": "#e15759", "swap": "#4e79a7"}


def split_rows(run: dict) -> Dict[Tuple[str, str], List[Tuple[int, float, float]]]:
    """Per (problem, balance): (ranks, computation, parallel overhead) in us per step summed over
    the ranks: computation the compute phases (work a serial run does too), overhead the rest
    of every rank's wall time (communication, copies, waiting for the slowest)."""
    out: Dict[Tuple[str, str], List[Tuple[int, float, float]]] = {}
    for row in strong_scaling(run.get("records") or [], BENCH):
        a = record_arrays(row["record"])
        if a is None:
            continue
        prm = row["record"]["params"]
        problem = f"{prm.get('nlon')}x{prm.get('nlat')}x{prm.get('levels')}"
        comp = float(a["compute"].sum())
        out.setdefault((problem, str(prm.get("balance"))), []).append(
            (row["nranks"], comp, float(a["wall"].sum()) - comp))
    return {k: sorted(v) for k, v in out.items()}


def ccm_split(runs: List[dict]) -> Optional[Figure]:
    """Fig. 7: computation (solid) and parallel overhead (dashed) per balance, against
    processors; a panel per run (two at most) for its largest problem."""
    panels = []
    for run in runs[:2]:
        rows = split_rows(run)
        if rows:
            problem = max({p for p, _ in rows}, key=lambda p: [int(x) for x in p.split("x")])
            panels.append((run, problem, {b: r for (p, b), r in rows.items() if p == problem}))
    if not panels:
        return None
    fig = new_figure((max(7.5, 4.8 * len(panels)), 4.0))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (run, problem, series) in zip(axes, panels):
        xs = sorted({n for r in series.values() for n, _, _ in r})
        for balance, rows in sorted(series.items()):
            c = COLOURS.get(balance, "#59a14f")
            ax.plot([n for n, _, _ in rows], [x / 1e3 for _, x, _ in rows], color=c,
                    marker="o", markersize=3.5, label=f"computation, {balance}")
            ax.plot([n for n, _, _ in rows], [o / 1e3 for _, _, o in rows], color=c,
                    marker="s", markersize=3.5, linestyle="--", label=f"overhead, {balance}")
        log2_ranks(ax, xs)
        ax.set_ylim(bottom=0)
        prefix = f"{fig_label(run)}  " if len(runs) > 1 else ""
        ax.set_title(safe_text(f"{prefix}{problem}"), loc="left", fontsize=8)
    axes[0].set_ylabel("ms per step, summed over processors")
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    fig.suptitle("CCM-like grid-point side: computation and parallel overhead, summed over "
                 "processors\n(the ORNL study's Fig. 7)", x=0.01, ha="left", fontsize=10)
    return fig


def ccm_overhead(runs: List[dict]) -> Optional[Figure]:
    return _overhead_figure(runs, BENCH, "CCM-like grid-point side")


def ccm_overhead_table(run: dict) -> Optional[Table]:
    return _overhead_table(run, BENCH)


register_figure(FigureSpec(SECTION, "CCM-like grid-point side: computation and parallel overhead "
                                    "per physics balance (the ORNL study's Fig. 7)", ccm_split,
                           BENCH, ORDER))
register_figure(FigureSpec(SECTION, "CCM-like grid-point side: parallel overhead breakdown",
                           ccm_overhead, BENCH, ORDER))
register_table(TableSpec(SECTION, "CCM-like grid-point side overhead shares", ccm_overhead_table,
                         order=ORDER))
