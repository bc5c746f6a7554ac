"""netmap's populations for the outlier rule (hpceval/analysis/outliers.py): every link's 8 B
latency and its bandwidth, a node named where most of its links are flagged."""
from hpceval.analysis.outliers import Population, register_population

register_population(Population("netmap", "latency", "link latency, 8 B", "link"))
register_population(Population("netmap", "bandwidth", "link bandwidth", "link"))
