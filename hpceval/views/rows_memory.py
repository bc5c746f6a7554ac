"""The memory rows of the machine card (hpceval/analysis/memory.py): latency and bandwidth in
each cache level and in main memory, STREAM on one core and on all. Headlines: memory latency at
16 KiB, 1 MiB and the largest set (the classic random chase, default placement), TLB-friendly
windows; STREAM triad's best rates."""
from hpceval.analysis.card import CardRow, register_card_row
from hpceval.analysis.headlines import Headline, at, curve_point, largest, register_headline
from hpceval.analysis.memory import RANDOM, curve_at_level, stream_headlines, stream_triad


def _lat(quantity, level, like=RANDOM):
    return CardRow("Memory latency", quantity, "ns",
                   curve_at_level("mem-latency", "latency", level, like=like), order=10)


def _bw(quantity, get):
    return CardRow("Memory bandwidth", quantity, "GB/s", get, order=10)


for _row in (_lat("L1", 1), _lat("L2", 2), _lat("L3", 3),
             _lat("Main memory, fully random (TLB misses included)", None),
             _lat("Main memory, TLB-friendly (random in 256 KiB windows)", None,
                  {"order": "window"}),
             *(_bw(f"L{n}", curve_at_level("mem-bandwidth", "bandwidth", n, mode="read"))
               for n in (1, 2, 3)),
             _bw("Main memory, 1 core (STREAM)", stream_triad("one")),
             _bw("Main memory, all cores (STREAM)", stream_triad("all"))):
    register_card_row(_row)

_CLASSIC = {"order": "random", "node": -1}     # a record without these keys is one
for _rows in (curve_point("Memory latency, {}", "mem-latency", "latency", "bytes",
                          at(16 << 10, "nearest"), _CLASSIC),
              curve_point("Memory latency, {}", "mem-latency", "latency", "bytes",
                          at(1 << 20, "nearest"), _CLASSIC),
              curve_point("Memory latency, largest set ({})", "mem-latency", "latency", "bytes",
                          largest, _CLASSIC),
              curve_point("Memory latency, TLB-friendly windows, largest set ({})", "mem-latency",
                          "latency", "bytes", largest, {"order": "window", "node": -1}),
              stream_headlines):
    register_headline(Headline(_rows, order=20))
