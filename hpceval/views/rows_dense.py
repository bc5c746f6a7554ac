"""The dense solve's card rows (the best GFlop/s of each kind) with the card's peaks section
(promised against delivered: the dense rate is the figure a peak is first set against), and its
headline rows (the best per kind and rank count)."""
from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.dense import ORDER, WHAT, best, best_cell, best_per_ranks, one_node_cell, where
from hpceval.analysis.headlines import Headline, register_headline, value
from hpceval.analysis.peaks import card_rows as peak_rows


def _rate(kind: str):
    def get(run: dict) -> Optional[Cell]:
        rec = best(run.get("records") or [], kind)
        return Cell(value(rec), where(rec), rec) if rec else None
    return get


def _headlines(records: List[dict]) -> Iterable[Tuple[str, Optional[dict]]]:
    for (kind, ranks), rec in best_per_ranks(records).items():
        yield f"Dense solve {kind} ({rec['params']['routine']}), {where(rec)}", rec


for _kind in WHAT:
    register_card_row(CardRow("Dense linear algebra", f"Dense solve {WHAT[_kind]}, GFlop/s",
                              "GFlop/s", _rate(_kind), order=ORDER))
for _row in peak_rows(best_cell, one_node_cell):
    register_card_row(_row)
register_headline(Headline(_headlines, order=ORDER))
