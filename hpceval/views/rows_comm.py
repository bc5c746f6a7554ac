"""The MPI rows of the machine card (hpceval/analysis/comm.py): latency and bandwidth of a rank
pair inside and across nodes, one direction and both; the barrier. Headlines: ping-pong latency
at 8 B and bandwidth at 1 MiB (or the largest size)."""
from hpceval.analysis.card import CardRow, register_card_row
from hpceval.analysis.comm import barrier, mpi_point
from hpceval.analysis.headlines import Headline, at, curve_point, register_headline

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
