"""The memory area's analysis for the machine card and the headlines: the point of a size
sweep that sits in one cache level, STREAM's points. Its rows are named in
hpceval/catalog/bench_memory.py."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from hpceval.analysis.card import Cell, _fp, data_caches
from hpceval.analysis.headlines import select, size_label, value
from hpceval.analysis.hierarchy import hierarchy

Run = Dict[str, Any]
Record = Dict[str, Any]


def _cache_sizes(run: Run) -> Dict[int, int]:
    """{level: bytes} of the data caches the card's memory rows are placed by: the levels the
    run's own latency curve shows when they disagree with the reported ones (a VM that reports
    its host's 480 MiB L3 would put "L3" rows in DRAM), else the reported ones."""
    found = hierarchy(run)
    if found and not found["agrees"]:
        detected = [lv["size"] for lv in found["levels"] if lv["level"] != "memory" and lv["size"]]
        if detected:
            return {k + 1: int(size) for k, size in enumerate(detected)}
    return {c["level"]: c["size_bytes"] for c in data_caches(_fp(run))}


def _level_window(run: Run, level: Optional[int]) -> Optional[tuple]:
    """Working sets that sit in cache `level` (above the level below, at most half of it), or in
    main memory (level None: at least twice the last-level cache)."""
    sizes = _cache_sizes(run)
    if not sizes:
        return None
    if level is None:
        return (2 * sizes[max(sizes)], float("inf"))
    if level not in sizes:
        return None
    below = max((s for l, s in sizes.items() if l < level), default=0)
    return (below, sizes[level] / 2)


# The classic chase; records written before other orders existed have no "order" param.
RANDOM = {"order": "random"}


def curve_at_level(benchmark: str, metric: str, level: Optional[int], x: str = "bytes",
                   like: Optional[Dict[str, Any]] = None, **params: Any) -> Callable[[Run], Optional[Cell]]:
    """The point of a size sweep that sits in one cache level (the largest such working set) or
    in main memory (the largest one of all). `like`: params a record must have, or lack."""
    def get(run: Run) -> Optional[Cell]:
        win = _level_window(run, level)
        if win is None:
            return None
        lo, hi = win
        recs = [r for r in select(run.get("records") or [], benchmark, metric, **params)
                if isinstance((r.get("params") or {}).get(x), (int, float)) and lo < r["params"][x] <= hi
                and all(r["params"].get(k, v) == v for k, v in (like or {}).items())]
        if not recs:
            return None
        # Fewest threads first (a single core's view, as the EV7 table gives), then the largest set.
        rec = max(recs, key=lambda r: (-(r["params"].get("threads") or 1), r["params"][x]))
        nt = rec["params"].get("threads")
        extra = f", {nt} thread{'s' if nt != 1 else ''}" if nt is not None else ""
        return Cell(value(rec), f"{x} = {size_label(rec['params'][x])}{extra}", rec)
    return get



def stream_points(records: List[Record]) -> Dict[tuple, Record]:
    """{(kernel, threads): record}; with several array sizes the largest wins (STREAM's rule:
    the arrays must dwarf the caches)."""
    best: Dict[tuple, Record] = {}
    for rec in select(records, "stream", "bandwidth"):
        p = rec.get("params") or {}
        key = (str(p.get("kernel")), p.get("threads"))
        if key not in best or (p.get("array_bytes") or 0) > (best[key]["params"].get("array_bytes") or 0):
            best[key] = rec
    return best


def _triad(records: List[Record]) -> Dict[Any, Record]:
    return {t: r for (k, t), r in stream_points(records).items() if k == "triad"}


def _llc_bytes(run: Run) -> Optional[int]:
    """The last-level cache the run's arrays were sized by: the probed one (a VM often reports
    its host's), else the fingerprint's."""
    used = ((run.get("settings") or {}).get("llc") or {}).get("used")
    if isinstance(used, int) and used > 0:
        return used
    caches = data_caches(_fp(run))
    return caches[-1]["size_bytes"] if caches else None


def stream_triad(threads: str) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        triad = _triad(run.get("records") or [])
        ints = [t for t in triad if isinstance(t, int)]
        if not ints:
            return None
        t = 1 if threads == "one" else max(ints)
        if t not in triad or (threads == "all" and t == 1 and len(ints) == 1 and (_fp(run).get("cores") or 1) > 1):
            return None
        llc = _llc_bytes(run)
        arrays = (triad[t].get("params") or {}).get("array_bytes")
        if llc and isinstance(arrays, (int, float)) and arrays < 2 * llc:
            return None                  # arrays that fit in the caches do not measure memory
        return Cell(value(triad[t]), f"triad, {t} thread{'s' if t != 1 else ''}", triad[t])
    return get



def stream_headlines(records: List[Record]) -> Iterable[Tuple[str, Optional[Record]]]:
    """Headline rows: STREAM triad's best rate on one thread and on the most threads."""
    triad = _triad(records)
    if triad:
        yield "STREAM triad best, 1 thread", triad.get(1)
        top = max((t for t in triad if isinstance(t, int)), default=None)
        if top is not None:
            yield f"STREAM triad best, {top} threads", triad[top]
