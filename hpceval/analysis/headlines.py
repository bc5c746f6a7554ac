"""The few figures that summarise a run (the machine-card rows the skeleton can fill).
Shared by `hpceval run`/`show` and the report, so they always agree."""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Dict, List, Optional

from hpceval.quality import best_points

Record = Dict[str, Any]


def value(rec: Record) -> float:
    """The record's own headline statistic (the one its method calls for)."""
    stats = rec.get("stats") or {}
    v = stats.get(rec.get("statistic") or "median")
    return v if v is not None else stats.get("median")


def size_label(n: float, approx: bool = False) -> str:
    """An exact size that cannot be misread: 8 -> '8 B', 65536 -> '64 KiB', 65537 ->
    '65,537 B', 1000000 -> '1,000,000 B' (a binary unit only when it divides the size). With
    `approx` (estimates, memory sizes) three digits in the nearest unit: '976.6 KiB'."""
    for unit, suffix in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(n) >= unit and (approx or float(n) % unit == 0):
            v = n / unit
            return f"{v:.0f} {suffix}" if float(v).is_integer() else f"{v:.4g} {suffix}"
    if float(n).is_integer():
        return f"{n:,.0f} B"
    return f"{n:.4g} B"


# The (benchmark, metric) index of the last few record lists asked about: the card, headlines
# and figures select from one run's records dozens of times, and a run may hold 10^5 records.
# Keyed by id; the list itself is kept (so its id is not reused) with its length (an append
# makes the index stale).
_INDEXES: Dict[int, tuple] = {}
_INDEXES_KEPT = 8


def _by_kind(records: List[Record]) -> Dict[tuple, List[Record]]:
    hit = _INDEXES.pop(id(records), None)
    if hit is None or hit[0] is not records or hit[1] != len(records):
        index: Dict[tuple, List[Record]] = {}
        for r in records:
            index.setdefault((r.get("benchmark"), r.get("metric")), []).append(r)
            index.setdefault((r.get("benchmark"), None), []).append(r)
        hit = (records, len(records), index)
        if len(_INDEXES) >= _INDEXES_KEPT:
            del _INDEXES[next(iter(_INDEXES))]       # the least recently used
    _INDEXES[id(records)] = hit                      # now the most recently used
    return hit[2]


def select(records: List[Record], benchmark: str, metric: Optional[str] = None,
           **params: Any) -> List[Record]:
    """The records of benchmark (and metric) with these params, in their order; a point measured
    more than once (a re-measured headline) appears once, as its best measurement
    (hpceval.quality)."""
    pool = _by_kind(records).get((benchmark, metric), [])
    return best_points(r for r in pool if r.get("benchmark") == benchmark
                       and (metric is None or r.get("metric") == metric)
                       and isinstance(r.get("stats"), dict)
                       and all((r.get("params") or {}).get(k) == v for k, v in params.items()))


def _groups(recs: List[Record], x: str) -> List[List[Record]]:
    """Records split by every param except `x` (ping-pong rank pairs, memory stride/order)."""
    out: Dict[str, List[Record]] = {}
    for r in recs:
        p = r.get("params") or {}
        if isinstance(p.get(x), (int, float)):
            out.setdefault(json.dumps({k: v for k, v in p.items() if k != x}, sort_keys=True),
                           []).append(r)
    return list(out.values())


def _at(target: float, fallback: str) -> Callable[[List[Record], str], Optional[Record]]:
    """Chooser: the point at `target`; if absent, the nearest one (log distance) or the largest."""
    def choose(group: List[Record], x: str) -> Optional[Record]:
        exact = [r for r in group if r["params"][x] == target]
        if exact:
            return exact[0]
        if fallback == "largest":
            return max(group, key=lambda r: r["params"][x])
        return min(group, key=lambda r: abs(math.log2(max(r["params"][x], 0.5) / target)))
    return choose


def _largest(group: List[Record], x: str) -> Optional[Record]:
    return max(group, key=lambda r: r["params"][x])


# The classic memory curve: random order, default placement (a record without these keys is one).
_CLASSIC_CHASE = {"order": "random", "node": -1}

# (label, benchmark, metric, x param, chooser, preferred params); STREAM's choice is made
# separately below.
HEADLINES = [
    ("Ping-pong latency, {}", "pingpong", "latency", "bytes", _at(8, "nearest"), {}),
    ("Ping-pong bandwidth, {}", "pingpong", "bandwidth", "bytes", _at(1 << 20, "largest"), {}),
    ("Memory latency, {}", "mem-latency", "latency", "bytes", _at(16 << 10, "nearest"),
     _CLASSIC_CHASE),
    ("Memory latency, {}", "mem-latency", "latency", "bytes", _at(1 << 20, "nearest"),
     _CLASSIC_CHASE),
    ("Memory latency, largest set ({})", "mem-latency", "latency", "bytes", _largest,
     _CLASSIC_CHASE),
    ("Memory latency, TLB-friendly windows, largest set ({})", "mem-latency", "latency", "bytes",
     _largest, {"order": "window", "node": -1}),
]


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


def headlines(records: List[Record]) -> List[Dict[str, Any]]:
    """[{"label", "record"}] in machine-card order; a record appears once."""
    rows: List[Dict[str, Any]] = []
    seen: set = set()

    def add(label: str, rec: Optional[Record]) -> None:
        if rec is not None and id(rec) not in seen:     # e.g. the largest set *is* 1 MiB
            seen.add(id(rec))
            rows.append({"label": label, "record": rec})

    for label, bench, metric, x, choose, prefer in HEADLINES:
        groups = _groups(select(records, bench, metric), x)
        groups = [g for g in groups if all(g[0]["params"].get(k, v) == v
                                           for k, v in prefer.items())]
        # One row per quantity: the main sweep (the group with the most points) speaks for it.
        for group in sorted(groups, key=len, reverse=True)[:1]:
            rec = choose(group, x)
            if rec is not None:      # the label names the point actually shown
                add(label.format(size_label(rec["params"][x])), rec)
    triad = {t: r for (k, t), r in stream_points(records).items() if k == "triad"}
    if triad:
        add("STREAM triad best, 1 thread", triad.get(1))
        top = max((t for t in triad if isinstance(t, int)), default=None)
        if top is not None:
            add(f"STREAM triad best, {top} threads", triad[top])
    for rec in _best_solver(records):
        add(_solver_label(rec), rec)
    return rows


def headline_records(records: List[Record]) -> List[Record]:
    """The records behind the headline rows."""
    return [h["record"] for h in headlines(records)]


def on_largest_grid(records: List[Record], benchmark: str, metric: str) -> List[Record]:
    """A proxy's untraced records (a traced run's times include the tracer) of `metric` on the
    largest global grid measured: rates of different problem sizes do not compare."""
    recs = [r for r in select(records, benchmark, metric)
            if value(r) is not None and not r["params"].get("traced")]
    size = lambda r: (r["params"].get("nx") or 0) * (r["params"].get("ny") or 0)
    big = max((size(r) for r in recs), default=0)
    return [r for r in recs if size(r) == big]


def _best_solver(records: List[Record]) -> List[Record]:
    """The barotropic solver's fastest configuration on the largest grid measured: its time per
    iteration and simulated days per day."""
    times = on_largest_grid(records, "barotropic", "iteration_time")
    if not times:
        return []
    best = min(times, key=value)
    rate = [r for r in select(records, "barotropic", "sim_days_per_day")
            if r.get("params") == best["params"]]
    return [best] + rate[:1]


def _solver_label(rec: Record) -> str:
    p = rec["params"]
    what = "time per iteration" if rec.get("metric") == "iteration_time" else "simulated days/day"
    return (f"Barotropic solver {p.get('nx')}x{p.get('ny')}, {what} (fastest: "
            f"{p.get('P')}x{p.get('Q')} ranks, {p.get('halo')}/{p.get('sum')})")
