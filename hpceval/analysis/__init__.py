"""Analysis: reads stored runs (export format), never the benchmarks or the database directly.
The package imports only the headline helpers: its modules that need numpy or scipy load when
a command uses them."""
from hpceval.analysis.headlines import headlines, select, value

__all__ = ["headlines", "select", "value"]
