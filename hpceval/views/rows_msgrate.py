"""msgrate's card rows and headline rows: the 8 B message rate with every pair of a node at once
(the most pairs measured in one node), and across nodes (hpceval/analysis/msgrate.py)."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, size_label, value
from hpceval.analysis.msgrate import most_pairs_at
from hpceval.analysis.oversubscription import oversubscribed

SIZE = 8


def _label(rec) -> str:
    pairs = rec["params"]["pairs"]
    return f"{size_label(rec['params']['bytes'])}, {pairs} pair{'s' if pairs != 1 else ''}"


def _cell(across: bool):
    def get(run):
        # the most pairs that had a core each: 2 pairs on 2 cores measure the scheduler; an
        # oversubscribed count only when nothing else was measured, and then it says so
        recs = run.get("records") or []
        fair = [r for r in recs if r.get("benchmark") == "msgrate" and not oversubscribed(run, r)]
        rec = most_pairs_at(fair, SIZE, across) or most_pairs_at(recs, SIZE, across)
        if rec is None:
            return None
        over = oversubscribed(run, rec)
        return Cell(value(rec), f"{_label(rec)} at once, window {rec['params']['window']}", rec,
                    f"oversubscribed: {over}" if over else "")
    return get


def _headlines(records):
    # The label names no pair count: runs of nodes of different sizes compare under one row
    # (the record's params say how many pairs).
    for across, where in ((False, "in a node"), (True, "across nodes")):
        rec = most_pairs_at(records, SIZE, across)
        if rec is not None:
            yield f"Message rate, {size_label(rec['params']['bytes'])}, most pairs {where}", rec


for _across, _section in ((False, "MPI intra-node"), (True, "MPI inter-node")):
    register_card_row(CardRow(_section, "Message rate, every pair at once", "Mmsg/s",
                              _cell(_across), missing="not measured (hpceval run msgrate)",
                              order=20))
register_headline(Headline(_headlines, order=10))
