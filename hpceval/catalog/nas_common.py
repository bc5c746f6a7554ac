"""What the NAS Parallel Benchmarks (npb-cg, npb-mg) share in the catalog: NPB's rank rule and
the report hooks of a benchmark whose figure of merit is Mop/s by class (a machine-card and
headline row for its best point, a Mop/s-vs-ranks figure per class)."""
from __future__ import annotations

from hpceval.errors import UsageError

SECTION = "SP2 application set (NAS CG and MG, PHOLD)"   # the report section of all three


def power_of_two(bench: str, n: int) -> None:
    """NPB runs on 1, 2, 4, 8, ... ranks."""
    if n < 1 or n & (n - 1):
        raise UsageError(f"{bench}: {n} ranks: NPB runs on a power of two ranks (1, 2, 4, 8, ...)")


class NasHooks:
    """card_rows, headline_rows and figures of one NPB benchmark (its catalog module's hooks)."""

    def __init__(self, bench: str, what: str, order: int, where=None):
        self.bench, self.what, self.order = bench, what, order
        self.where = where or (lambda p: f"class {p['class']}, {p['ranks']} ranks")

    def _best(self, records: list):
        from hpceval.analysis.headlines import select, value
        recs = [r for r in select(records, self.bench, "mops") if value(r)]
        return max(recs, key=value) if recs else None

    def _rows(self):
        from hpceval.analysis.proxies import BestPoint
        return BestPoint(self._best, lambda rec: self.where(rec["params"]),
                         f"{self.what}, Mop/s", "Mop/s", f"{self.what} Mop/s", order=self.order)

    def card_rows(self):
        return self._rows().card_rows()

    def headline_rows(self):
        return self._rows().headline_rows()

    def figures(self):
        from hpceval.report.figures import FigureSpec, _figure
        from hpceval.report.figures_apps import _points, draw

        def rates(runs):
            pts = _points(runs, self.bench, "mops", lambda p: p["ranks"],
                          lambda p: f"class {p['class']}", lambda p: True)
            if not pts:
                return None
            fig = _figure((6.0, 4.0))
            draw(fig.subplots(1, 1), pts, "ranks", "Mop/s (NPB's operation count)")
            return fig
        return [FigureSpec(SECTION, f"{self.what}: Mop/s vs ranks, per class", rates, self.bench,
                           order=self.order)]
