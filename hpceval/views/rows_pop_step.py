"""pop-step's card and headline rows (the X1 study's headline): simulated years per day of the
whole time step, its best configuration on the largest grid measured, and the barotropic
phase's share of that configuration's step."""
from __future__ import annotations

from typing import List, Optional

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, select, value
from hpceval.analysis.proxies import on_largest_grid

BENCH, ORDER = "pop-step", 41


def ranks(p: dict) -> int:
    return int(p["P"]) * int(p["Q"])


def where(p: dict) -> str:
    return (f"{p['nx']}x{p['ny']}x{p['nz']}, {ranks(p)} ranks ({p['P']}x{p['Q']}), "
            f"3-D halo {p['clinic_halo']}, {p['halo']}/{p['sum']}")


def best_rate(records: List[dict]) -> Optional[dict]:
    """The highest years per day on the largest grid measured."""
    recs = on_largest_grid(records, BENCH, "sim_years_per_day")
    return max(recs, key=value) if recs else None


def share_of(records: List[dict], rate: dict) -> Optional[dict]:
    """The barotropic share of the configuration of `rate`."""
    return next((r for r in select(records, BENCH, "barotropic_share")
                 if r["params"] == rate["params"]), None)


def _cells(metric: str):
    def cell(run: dict) -> Optional[Cell]:
        recs = run.get("records") or []
        rate = best_rate(recs)
        rec = rate if rate is None or metric == "sim_years_per_day" else share_of(recs, rate)
        return Cell(value(rec), where(rec["params"]), rec) if rec else None
    return cell


def _rows(records: List[dict]):
    rate = best_rate(records)
    if rate is None:
        return
    yield f"POP whole step, simulated years per day, {where(rate['params'])}", rate
    share = share_of(records, rate)
    if share is not None:
        yield f"POP whole step, barotropic share of the step, {where(share['params'])}", share


register_card_row(CardRow("Application rates", "Ocean whole time step (POP-like)", "years/day",
                          _cells("sim_years_per_day"), order=ORDER))
register_card_row(CardRow("Application rates", "Ocean whole step: barotropic share", "%",
                          _cells("barotropic_share"), order=ORDER))
register_headline(Headline(_rows, order=ORDER))
