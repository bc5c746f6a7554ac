"""bisection's card rows (hpceval/analysis/bisection.py): the effective bisection bandwidth
(netgauge's: the mean over every pair of every matching) and the aggregate bandwidth's median
over matchings with its range."""
from hpceval.analysis.bisection import effective
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.outliers import CARD_MISSING, CARD_ORDER, CARD_SECTION


def _ebb(run):
    e = effective(run.get("records") or [])
    return None if e is None else Cell(
        e["ebb"], f"each way, mean of {e['pairs']} pairs' medians over {e['matchings']} random "
        f"matchings (seed {e['seed']})")


def _aggregate(run):
    e = effective(run.get("records") or [])
    if e is None or not e["aggregate"]:
        return None
    lo, med, hi = e["aggregate"]
    return Cell(med, f"median of {e['matchings']} matchings' medians, {lo:.0f} .. {hi:.0f}")


register_card_row(CardRow(CARD_SECTION, "Effective bisection bandwidth (netgauge)", "MB/s", _ebb,
                          missing=CARD_MISSING, order=CARD_ORDER))
register_card_row(CardRow(CARD_SECTION, "Bisection aggregate bandwidth, median over matchings",
                          "MB/s", _aggregate, missing=CARD_MISSING, order=CARD_ORDER))
