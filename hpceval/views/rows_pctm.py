"""pctm's card and headline rows: the best simulated years per day, and each layout's years per
day at the most ranks measured (which layout wins there is the finding)."""
from __future__ import annotations

from typing import List, Optional

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, select, value
from hpceval.views.best import best_point

BENCH, ORDER = "pctm", 45
METRIC = "sim_years_per_day"
COMPONENTS = ("atmosphere", "ocean", "land", "ice", "regrid", "coupler")


def where(p: dict) -> str:
    split = (f"ocean on {p['ocean_ranks']}, atmosphere on {p['atm_ranks']}"
             if p.get("layout") == "concurrent" else "every component on every rank")
    return (f"T{p['truncation']} + {p['nx']}x{p['ny']} ocean, {p['ranks']} ranks, "
            f"{p['layout']} ({split})")


def at_most_ranks(records: List[dict]) -> List[dict]:
    """Each layout's best years per day at the largest rank count measured."""
    recs = [r for r in select(records, BENCH, METRIC) if value(r)]
    if not recs:
        return []
    most = max(int(r["params"]["ranks"]) for r in recs)
    best = {}
    for r in recs:
        lay = r["params"]["layout"]
        if int(r["params"]["ranks"]) == most and (lay not in best or value(r) > value(best[lay])):
            best[lay] = r
    return [best[k] for k in sorted(best)]


def _winner(run: dict) -> Optional[Cell]:
    recs = at_most_ranks(run.get("records") or [])
    if not recs:
        return None
    top = max(recs, key=value)
    return Cell(value(top), where(top["params"]), top)


def _layout_rows(records: List[dict]):
    for rec in at_most_ranks(records):
        yield f"PCTM years per day, {where(rec['params'])}", rec


best_point(BENCH, METRIC, "higher", where, "Coupled climate model simulated years per day "
           "(PCTM-like)", "years/day", "PCTM years per day", order=ORDER)
register_card_row(CardRow("Application rates", "PCTM years per day of the faster layout, most "
                          "ranks measured", "years/day", _winner, order=ORDER))
register_headline(Headline(_layout_rows, order=ORDER))
