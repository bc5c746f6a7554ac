"""sweep's figures: weak-scaling efficiency vs ranks and grind time vs the pipeline's blocking;
the overhead breakdown."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from matplotlib.figure import Figure

from .data import fig_label, records, value
from .figures_apps import draw, draw_lines, points_of
from .figures_proxies import overhead_specs
from .plot import new_figure
from .registry import FigureSpec, register

SECTION, ORDER = "Application proxies", 43


def _weak_efficiency(runs: List[dict]) -> Dict[str, List[Tuple[int, float]]]:
    """{series: [(ranks, t(1 rank) / t(ranks))]} of sweep's weak-scaling iteration times, per
    block per rank, S_N order and blocking; a series needs its one-rank point."""
    out: Dict[str, List[Tuple[int, float]]] = {}
    many = len(runs) > 1
    for run in runs:
        times: Dict[tuple, Dict[int, float]] = {}
        for r in records(run, "sweep", "iteration_time"):
            p = r["params"]
            if value(r) and p.get("scaling") == "weak":
                key = (p["nx"] // p["P"], p["ny"] // p["Q"], p["nz"], p["sn"], p["mk"], p["mmi"])
                times.setdefault(key, {})[p["P"] * p["Q"]] = value(r)
        for (bx, by, bz, sn, mk, mmi), t in sorted(times.items()):
            if 1 in t and len(t) > 1:
                label = (f"{bx}x{by}x{bz}/rank S{sn} mk={mk} mmi={mmi}"
                         + (f" — {fig_label(run)}" if many else ""))
                out[label] = [(n, t[1] / t[n]) for n in sorted(t)]
    return out


def efficiency_and_choices(runs: List[dict]) -> Optional[Figure]:
    """Left: weak-scaling parallel efficiency vs ranks; right: grind time vs mk, one series per
    mmi and rank count (the pipeline's blocking choices)."""
    choices = points_of(runs, "sweep", "grind_time", lambda p: p["mk"],
                      lambda p: f"mmi={p['mmi']}, {p['P'] * p['Q']} rank(s), S{p['sn']}",
                      lambda p: True)
    if not choices:
        return None
    fig = new_figure((10.0, 4.0))
    left, right = fig.subplots(1, 2)
    draw_lines(left, _weak_efficiency(runs), "ranks", "weak-scaling efficiency t(1) / t(n)",
               "no weak-scaling series with a one-rank point", unity=True)
    draw(right, choices, "mk (k-planes per block)", "grind time [ns per cell-angle]", logx=True)
    return fig


for _spec in [FigureSpec(SECTION, "Wavefront transport (Sweep3D-like): weak-scaling efficiency "
                         "vs ranks, grind time vs the pipeline's blocking (mk, mmi)",
                         efficiency_and_choices, "sweep", order=ORDER)
              ] + overhead_specs("sweep", "Wavefront transport (Sweep3D-like)", ORDER):
    register(_spec)
