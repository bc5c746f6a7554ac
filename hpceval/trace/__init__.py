"""Per-rank traces of MPI programs: the PMPI library's raw files (csrc/trace) merged into Chrome
trace-event JSON (merge.py), loading/validating such traces (chrome.py), and writing them as
OTF2 archives (otf2export.py). docs/trace.md."""
from hpceval.trace.chrome import TraceError, load, tracks, validate
from hpceval.trace.merge import IDLE_CALLS, NoTraceError, merge_dir, summarize

__all__ = ["IDLE_CALLS", "NoTraceError", "TraceError", "load", "merge_dir", "summarize", "tracks",
           "validate"]
