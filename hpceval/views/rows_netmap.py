"""netmap's populations for the outlier rule (hpceval/analysis/outliers.py): every link's 8 B
latency and its bandwidth, a node named where most of its links are flagged; their card rows
(median, count, range) and the row of the nodes and links the rule names; the pairs a map
that lost a node did not measure (hpceval/analysis/netmap.py)."""
from hpceval.analysis.card import CardRow, register_card_row
from hpceval.analysis.netmap import unmeasured_lines
from hpceval.analysis.outliers import (CARD_MISSING, CARD_ORDER, CARD_SECTION, Population,
                                       card_row, flagged_cell, register_population)

for _pop, _unit in ((Population("netmap", "latency", "link latency, 8 B", "link",
                                unmeasured=unmeasured_lines), "us"),
                    (Population("netmap", "bandwidth", "link bandwidth", "link",
                                unmeasured=unmeasured_lines), "MB/s")):
    register_card_row(card_row(register_population(_pop), _unit))
register_card_row(CardRow(CARD_SECTION, "Outliers flagged (nodes, links)", "", flagged_cell,
                          missing=CARD_MISSING, order=CARD_ORDER))
