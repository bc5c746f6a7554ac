"""The eager limit's card rows (hpceval/analysis/eager.py), in the MPI sections: the largest
size still sent eagerly, with the bracket and the late-receive times on either side."""
from hpceval.analysis.card import CardRow, Cell, register_card_row


def _cell(where: str):
    def get(run: dict):
        from hpceval.analysis.eager import eager_limit     # numpy: when a card is drawn
        found = eager_limit(run, where)
        if found is None:
            return None
        s, _ = found
        # No record: the value is a bracket's end, not a statistic of one point (no CI of its own)
        return Cell(s.n_before, f"bracketed {s.n_before:,} - {s.n_after:,} B (eager benchmark): "
                    f"a late receive takes {s.t_before:.3g} us below, {s.t_after:.3g} us above")
    return get


for _where, _section in (("intra-node", "MPI intra-node"), ("inter-node", "MPI inter-node")):
    register_card_row(CardRow(_section, "Eager limit (largest eager message)", "B", _cell(_where),
                              missing="not measured (hpceval run eager; refine > 0 brackets it)",
                              order=20))
