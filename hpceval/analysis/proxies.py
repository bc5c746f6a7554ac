"""The application proxies' analysis for the machine card and the headlines: rates on the
largest grid measured, the solver's fastest configuration. Their rows are named in
hpceval/views/rows_proxies.py."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from hpceval.analysis.card import Cell
from hpceval.analysis.headlines import select, value

Run = Dict[str, Any]
Record = Dict[str, Any]


def on_largest_grid(records: List[Record], benchmark: str, metric: str) -> List[Record]:
    """A proxy's untraced records (a traced run's times include the tracer) of `metric` on the
    largest global grid measured: rates of different problem sizes do not compare."""
    recs = [r for r in select(records, benchmark, metric)
            if value(r) is not None and not r["params"].get("traced")]
    size = lambda r: (r["params"].get("nx") or 0) * (r["params"].get("ny") or 0)
    big = max((size(r) for r in recs), default=0)
    return [r for r in recs if size(r) == big]


def app_rate(benchmark: str) -> Callable[[Run], Optional[Cell]]:
    """An application proxy's simulated days per day: the best configuration on the largest
    global grid measured."""
    def get(run: Run) -> Optional[Cell]:
        recs = on_largest_grid(run.get("records") or [], benchmark, "sim_days_per_day")
        if not recs:
            return None
        rec = max(recs, key=value)
        p = rec["params"]
        point = (f"{p.get('nx')}x{p.get('ny')} grid, {p.get('P', 1) * p.get('Q', 1)} ranks "
                 f"({p.get('P')}x{p.get('Q')}), halo {p.get('halo')}, sum {p.get('sum')}")
        return Cell(value(rec), point, rec)
    return get



def solver_headlines(records: List[Record]) -> Iterable[Tuple[str, Optional[Record]]]:
    """Headline rows: the barotropic solver's fastest configuration on the largest grid
    measured, its time per iteration and simulated days per day."""
    times = on_largest_grid(records, "barotropic", "iteration_time")
    if not times:
        return
    best = min(times, key=value)
    rate = [r for r in select(records, "barotropic", "sim_days_per_day")
            if r.get("params") == best["params"]]
    for rec in [best] + rate[:1]:
        yield _solver_label(rec), rec


def _solver_label(rec: Record) -> str:
    p = rec["params"]
    what = "time per iteration" if rec.get("metric") == "iteration_time" else "simulated days/day"
    return (f"Barotropic solver {p.get('nx')}x{p.get('ny')}, {what} (fastest: "
            f"{p.get('P')}x{p.get('Q')} ranks, {p.get('halo')}/{p.get('sum')})")
