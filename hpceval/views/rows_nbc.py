"""nbc's card row and headline row: the overlap of a 1 MiB iallreduce at the most ranks
measured (the card: that had a core each; hpceval/analysis/nbc.py), its pure time beside it."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, size_label, value
from hpceval.analysis.nbc import companion, most_ranks_at
from hpceval.analysis.oversubscription import oversubscribed

OP, SIZE = "iallreduce", 1 << 20


def _overlap(run):
    # the most ranks that had a core each (4 ranks on 2 cores measure the scheduler: 0%); an
    # oversubscribed count only when nothing else was measured, and then it says so
    recs = run.get("records") or []
    fair = [r for r in recs if r.get("benchmark") == "nbc" and not oversubscribed(run, r)]
    rec = most_ranks_at(fair, OP, SIZE) or most_ranks_at(recs, OP, SIZE)
    if rec is None:
        return None
    p = rec["params"]
    pure = companion(recs, rec, "time_pure")
    beside = f", pure {value(pure):.3g} us" if pure else ""
    over = oversubscribed(run, rec)
    return Cell(value(rec), f"{OP} of {size_label(p['bytes'])}, {p['nranks']} ranks, "
                f"{p['tests']} MPI_Test calls{beside}", rec,
                f"oversubscribed: {over}" if over else "")


def _headlines(records):
    # The label names no rank count: runs of different sizes compare under one row.
    rec = most_ranks_at(records, OP, SIZE)
    if rec is not None:
        yield f"Overlap, {size_label(rec['params']['bytes'])} {OP}, most ranks", rec


register_card_row(CardRow("Collectives", "Overlap of a non-blocking allreduce (IMB-NBC)", "%",
                          _overlap, missing="not measured (hpceval run nbc)", order=20))
register_headline(Headline(_headlines, order=10))
