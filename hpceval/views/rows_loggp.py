"""LogGP's rows: one card row per placement, in sections of their own after the MPI rows (a
model's parameters, not a measured point of a curve): L as the value (its CI is the summary
record's), the other parameters beside it; the headline: L of the summary record."""
from typing import Any, Dict

from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import Headline, register_headline, select, size_label


def describe(p: Dict[str, Any]) -> str:
    """The parameters besides L, and where they were measured."""
    g = p["G_us_per_byte"]
    bw = f" ({p['bandwidth_MBps']:,.0f} MB/s)" if p["bandwidth_MBps"] else ""
    fit = p.get("G_fit_bytes") or [None, None]
    span = f" over {size_label(fit[0])} – {size_label(fit[1])}" if fit[0] is not None else ""
    clipped = " (RTT/2 - o_s - o_r < 0: clipped)" if p["L_clipped"] else ""
    return (f"L{clipped}; o_s {p['o_s_us']:.3g} us, o_r {p['o_r_us']:.3g} us, g {p['g_us']:.3g} "
            f"us at {size_label(p['at_bytes'])}; G {g:.3g} us/B{bw}{span}; {p['where']}")


def _cell(where: str):
    def get(run: dict):
        from hpceval.analysis.loggp import loggp_params, summary_record   # numpy: when drawn
        p = loggp_params(run, where)
        return None if p is None else Cell(p["L_us"], describe(p), summary_record(run, where))
    return get


def _rows(records: list):
    for rec in select(records, "loggp", "L")[-1:]:
        yield f"LogGP latency L, {size_label(rec['params']['bytes'])} messages", rec


for _where in ("intra-node", "inter-node"):
    register_card_row(CardRow(f"LogGP {_where}", "LogGP parameters (L, o_s, o_r, g, G)", "us",
                              _cell(_where), order=20))
register_headline(Headline(_rows, order=10))
