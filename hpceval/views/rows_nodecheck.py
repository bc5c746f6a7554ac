"""nodecheck's populations for the outlier rule (hpceval/analysis/outliers.py): every node's
triad, multiply-add rate and memory latency against the other nodes'; their card rows."""
from hpceval.analysis.card import register_card_row
from hpceval.analysis.outliers import Population, card_row, register_population

for _pop, _unit in ((Population("nodecheck", "triad", "node triad bandwidth", "node"), "GB/s"),
                    (Population("nodecheck", "fma", "node multiply-add rate", "node"), "GFLOP/s"),
                    (Population("nodecheck", "latency", "node memory latency", "node"), "ns")):
    register_card_row(card_row(register_population(_pop), _unit))
