"""evh1's card and headline rows: the blast's best zone rate per rank, and the transposes'
share of the step of the best variant at the most ranks measured."""
from __future__ import annotations

from typing import List, Optional

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, select, value
from hpceval.views.best import best_point

BENCH, ORDER = "evh1", 44


def ranks(p: dict) -> int:
    return int(p["P"]) * int(p["Q"])


def where(p: dict) -> str:
    return (f"{p['nx']}x{p['ny']}x{p['nz']} zones ({p['scaling']}), {ranks(p)} ranks "
            f"({p['P']}x{p['Q']}), {p['transpose']}")


def _blast(p: dict) -> bool:
    return p.get("problem") == "blast"


def share_at_most_ranks(records: List[dict]) -> Optional[dict]:
    """The transposes' share of the best variant (zone rate) at the largest rank count."""
    rates = [r for r in select(records, BENCH, "zone_rate_per_rank")
             if _blast(r["params"]) and value(r)]
    if not rates:
        return None
    most = max(ranks(r["params"]) for r in rates)
    best = max((r for r in rates if ranks(r["params"]) == most), key=value)
    share = [r for r in select(records, BENCH, "transpose_share") if r["params"] == best["params"]]
    return share[0] if share else None


def _share_cell(run: dict) -> Optional[Cell]:
    rec = share_at_most_ranks(run.get("records") or [])
    return Cell(value(rec), where(rec["params"]), rec) if rec else None


def _share_rows(records: List[dict]):
    rec = share_at_most_ranks(records)
    if rec is not None:
        yield f"EVH1 transposes' share, {where(rec['params'])}", rec


best_point(BENCH, "zone_rate_per_rank", "higher", where,
           "Split Lagrangian hydrodynamics zone rate per rank (EVH1-like)", "zones/s",
           "EVH1 zone rate per rank", order=ORDER, keep=_blast)
register_card_row(CardRow("Application rates", "EVH1 transposes' share of the step, most ranks "
                          "measured", "%", _share_cell, order=ORDER))
register_headline(Headline(_share_rows, order=ORDER))
