"""Compute-kernel analysis: the parallel shallow water variants relative to the best of their
process grid, (time - min) / min per aspect ratio, as Fig. 5 of the SP/AlphaServer paper."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

from hpceval.analysis.card import Cell, best_matching
from hpceval.analysis.headlines import select, value


def variant_name(params: dict) -> str:
    return f"{params.get('mapping')}/{params.get('transpose')}/{params.get('sum')}"


def parallel_relative(run: dict) -> List[Dict]:
    """Rows {grid, P, Q, truncation, levels, variant, time_s, relative} for every psst run_time
    record; relative = (time - best time of the same grid and problem) / best."""
    recs = [r for r in select(run.get("records") or [], "psst", "run_time") if value(r)]
    best: Dict[tuple, float] = {}
    for r in recs:
        p = r["params"]
        key = (p.get("truncation"), p.get("levels"), p.get("P"), p.get("Q"))
        best[key] = min(best.get(key, float("inf")), value(r))
    rows = []
    for r in recs:
        p = r["params"]
        key = (p.get("truncation"), p.get("levels"), p.get("P"), p.get("Q"))
        rows.append({"grid": f"{p.get('P')}x{p.get('Q')}", "P": p.get("P"), "Q": p.get("Q"),
                     "truncation": p.get("truncation"), "levels": p.get("levels"),
                     "variant": variant_name(p), "time_s": value(r),
                     "relative": (value(r) - best[key]) / best[key]})
    return sorted(rows, key=lambda x: (x["truncation"], x["levels"], x["P"], x["variant"]))


def kernel_rate(benchmark: str) -> Callable[[Dict[str, Any]], Optional[Cell]]:
    """A kernel's best rate (any unit ending in flop/s) over the configurations measured."""
    return best_matching(lambda r: r.get("benchmark") == benchmark and r.get("better") == "higher"
                     and bool(re.search(r"flop/s$", str(r.get("unit") or ""), re.I)), "higher")

