"""The dense solve's figure (hpceval/catalog/bench_dense.py): GFlop/s against ranks, the best NB
and process grid per rank count for each kind and order (its tuned table: tables_tune.py)."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from hpceval.analysis.dense import ORDER
from hpceval.analysis.headlines import select, value

from .data import fig_label
from .figures_apps import draw
from .plot import new_figure
from .registry import FigureSpec, register_figure

SECTION = "Dense linear algebra (AORSA3D's solve, HPL)"


def best_points(runs: List[dict]) -> Dict[str, List[Tuple[int, dict]]]:
    """{"complex n=4096": [(ranks, the best record over NB and grid)]}, one series per kind and
    order (and run, when there are several)."""
    best: Dict[Tuple[str, int], dict] = {}
    for run in runs:
        tag = f" — {fig_label(run)}" if len(runs) > 1 else ""
        for r in select(run.get("records") or [], "dense", "gflops"):
            p = r["params"]
            key = (f"{p['kind']} n={p['n']}{tag}", p["ranks"])
            if value(r) and (key not in best or value(r) > value(best[key])):
                best[key] = r
    out: Dict[str, List[Tuple[int, dict]]] = {}
    for (label, ranks), r in sorted(best.items(), key=lambda kv: kv[0]):
        out.setdefault(label, []).append((ranks, r))
    return out


def rate_vs_ranks(runs: List[dict]) -> Optional[object]:
    pts = best_points(runs)
    if not pts:
        return None
    fig = new_figure((6.0, 4.0))
    draw(fig.subplots(1, 1), pts, "ranks", "GFlop/s (best NB and grid; standard count)")
    return fig


register_figure(FigureSpec(SECTION, "Dense solve: GFlop/s vs ranks, the best block size and "
                           "process grid per rank count, per kind and order", rate_vs_ranks,
                           "dense", order=ORDER))
