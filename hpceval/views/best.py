"""A proxy's best measured point as one machine-card row ("Application rates") and one headline
row: the fastest or highest record of one metric, and which configuration it is. The LANL
proxies, PHOLD and the NAS benchmarks each declare theirs in one call."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, select, value

Record = Dict[str, Any]
Params = Dict[str, Any]


def best_record(records: List[Record], bench: str, metric: str, better: str,
                keep: Callable[[Params], bool]) -> Optional[Record]:
    """The lowest (better='lower') or highest record of `metric` whose params `keep` accepts."""
    recs = [r for r in select(records, bench, metric) if value(r) and keep(r["params"])]
    return (min if better == "lower" else max)(recs, key=value) if recs else None


def best_point(bench: str, metric: str, better: str, where: Callable[[Params], str],
               quantity: str, unit: str, headline: str, order: int,
               keep: Callable[[Params], bool] = lambda p: True) -> None:
    """Register the card row `quantity` [unit] and the headline row "`headline`, <where>" of
    `bench`'s best `metric`; `where` names the configuration from the record's params."""
    def best(records: List[Record]) -> Optional[Record]:
        return best_record(records, bench, metric, better, keep)

    def cell(run: Dict[str, Any]) -> Optional[Cell]:
        rec = best(run.get("records") or [])
        return Cell(value(rec), where(rec["params"]), rec) if rec else None

    def rows(records: List[Record]) -> Iterable[Tuple[str, Optional[Record]]]:
        rec = best(records)
        if rec is not None:
            yield f"{headline}, {where(rec['params'])}", rec
    register_card_row(CardRow("Application rates", quantity, unit, cell, order=order))
    register_headline(Headline(rows, order=order))
