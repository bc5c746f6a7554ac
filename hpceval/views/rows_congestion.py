"""congestion's card row (hpceval/analysis/congestion.py): the largest congestion impact
factor (ratio of medians) over the victim metrics and aggressor patterns, and where."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.congestion import worst
from hpceval.analysis.outliers import CARD_MISSING, CARD_ORDER, CARD_SECTION


def _worst(run):
    e = worst(run.get("records") or [])
    return None if e is None else Cell(
        round(e["median_ratio"], 2), f"{e['quantity']} beside {e['pattern']} (ratio of medians; "
        f"{e['victims']} victims, {e['aggressors']} aggressors)")


register_card_row(CardRow(CARD_SECTION, "Congestion impact, largest (GPCNeT)", "x", _worst,
                          missing=CARD_MISSING, order=CARD_ORDER))
