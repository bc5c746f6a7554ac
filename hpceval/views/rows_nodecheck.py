"""nodecheck's populations for the outlier rule (hpceval/analysis/outliers.py): every node's
triad, multiply-add rate and memory latency against the other nodes'."""
from hpceval.analysis.outliers import Population, register_population

register_population(Population("nodecheck", "triad", "node STREAM triad", "node"))
register_population(Population("nodecheck", "fma", "node multiply-add rate", "node"))
register_population(Population("nodecheck", "latency", "node memory latency", "node"))
