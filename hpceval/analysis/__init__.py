"""Analysis: reads stored runs (export format), never the benchmarks or the database directly."""
from hpceval.analysis.headlines import headlines, select, value
from hpceval.analysis.memory import stream_points

__all__ = ["headlines", "select", "stream_points", "value"]
