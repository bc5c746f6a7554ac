"""Per-rank traces of MPI programs: the PMPI library's raw files (csrc/trace) merged into Chrome
trace-event JSON (merge.py), loading/validating such traces (chrome.py), and writing them as
OTF2 archives (otf2export.py). docs/trace.md.

merge.py (numpy) loads when one of its names is first asked for: the store checks imported
traces with chrome.py, and every command opens the store."""
from hpceval.trace.chrome import TraceError, load, tracks, validate

_MERGE = ("IDLE_CALLS", "NoTraceError", "merge_dir", "summarize")

__all__ = ["IDLE_CALLS", "NoTraceError", "TraceError", "load", "merge_dir", "summarize", "tracks",
           "validate"]


def __getattr__(name: str):
    if name in _MERGE:
        from hpceval.trace import merge
        return getattr(merge, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
