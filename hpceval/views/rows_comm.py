"""The MPI rows of the machine card (hpceval/analysis/comm.py): latency and bandwidth of a rank
pair inside and across nodes, one direction and both; the barrier. Headlines: ping-pong latency
at 8 B and bandwidth at 1 MiB (or the largest size). The half-rate size n_1/2 of the
piecewise Hockney fit (hpceval/analysis/modelsacross.py), and the pages the message buffers got."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.comm import barrier, mpi_point
from hpceval.analysis.headlines import Headline, at, curve_point, register_headline, size_label
from hpceval.quality import field

for _where, _section in (("intra", "MPI intra-node"), ("inter", "MPI inter-node")):
    for _row in (CardRow(_section, "Latency", "us", mpi_point(_where, "latency", 8)),
                 CardRow(_section, "Latency, bi-directional", "us",
                         mpi_point(_where, "latency", 8, "bi")),
                 CardRow(_section, "Bandwidth", "MB/s", mpi_point(_where, "bandwidth", None)),
                 CardRow(_section, "Bandwidth, bi-directional", "MB/s",
                         mpi_point(_where, "bandwidth", None, "bi"))):
        register_card_row(_row._replace(order=20))
register_card_row(CardRow("Collectives", "Barrier", "us", barrier, order=20))
register_card_row(CardRow("Collectives", "Barrier across nodes", "us",
                          lambda run: barrier(run, True), order=20))

register_headline(Headline(curve_point("Ping-pong latency, {}", "pingpong", "latency", "bytes",
                                       at(8, "nearest")), order=10))
register_headline(Headline(curve_point("Ping-pong bandwidth, {}", "pingpong", "bandwidth",
                                       "bytes", at(1 << 20, "largest")), order=10))


def _n_half(run):
    """n_1/2 of the largest messages' region of the piecewise Hockney fit (SP2 Table 3's n_1/2),
    with that region's h and r_inf in the point."""
    from hpceval.analysis.modelsacross import card_n_half   # numpy: when a card is drawn
    found = card_n_half(run)
    if found is None:
        return None
    reg = found["model"].regions[-1]
    return Cell(float(round(found["n_half"])), f"{found['series']}, {size_label(reg.n_lo)} - "
                f"{size_label(reg.n_hi)}: h {reg.t0:.3g} us, r_inf {reg.r_inf:.4g} MB/s")


register_card_row(CardRow("Message-time model (Hockney)", "Half-rate size n_1/2", "B", _n_half,
                          order=20))


def _buffer_pages(run):
    """The pages the communication benchmarks' message buffers got ('thp', 'base', or each with
    its count when they differ) and what was asked for: a figure with base pages is not the
    figure with huge pages (docs/records.md, buffer_pages)."""
    got, asked = {}, set()
    for r in run.get("records") or []:
        pages = field(r, "buffer_pages")
        if pages:
            got[pages] = got.get(pages, 0) + 1
            asked.add(field(r, "buffer_pages_asked") or "thp")
    if not got:
        return None
    text = next(iter(got)) if len(got) == 1 else ", ".join(f"{k} ({n} records)"
                                                            for k, n in sorted(got.items()))
    return Cell(text, "asked: " + ", ".join(sorted(asked)))


register_card_row(CardRow("Message buffers", "Pages", "",
                          _buffer_pages, order=20))
