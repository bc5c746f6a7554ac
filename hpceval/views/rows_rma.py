"""rma's card rows and headline row: the 8 B put latency under lock_all and flush (passive
target, one flush an operation: what a PGAS runtime's put costs), in a node or across nodes."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, at, curve_point, register_headline, select, value
from hpceval.analysis.msgrate import spans_nodes

SIZE = 8
POINT = {"op": "put", "sync": "flush", "window": 1}


def _cell(across: bool):
    def get(run):
        recs = [r for r in select(run.get("records") or [], "rma", "latency", **POINT)
                if spans_nodes(r) == across]
        exact = [r for r in recs if r["params"]["bytes"] == SIZE]
        if not exact:
            return None
        rec = exact[0]
        return Cell(value(rec), f"8 B, lock_all + flush, {rec['params']['win']} window", rec)
    return get


for _across, _section in ((False, "MPI intra-node"), (True, "MPI inter-node")):
    register_card_row(CardRow(_section, "One-sided put latency", "us", _cell(_across),
                              missing="not measured (hpceval run rma)", order=20))
register_headline(Headline(curve_point("One-sided put latency, {}, flush", "rma", "latency",
                                       "bytes", at(SIZE, "nearest"), prefer=POINT), order=10))
