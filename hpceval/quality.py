"""Quality of a measured point: disturbed, converged, how wide its CI is. Used where records
are validated (the driver adds the spread test before storing) and where they are read (the
best of several measurements of one point speaks for it)."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Tuple

Record = Dict[str, Any]

# A point whose CI is this many times wider (relative to its median) than its neighbours' and
# at least SPREAD_FLOOR wide was disturbed while it ran, even if no preemption was seen (a
# remote node, memory traffic from another job).
SPREAD_FACTOR = 5.0
SPREAD_FLOOR = 0.05
NEIGHBOURS = 2          # on each side, in the order the benchmark measured its points

# Benchmarks that subtract a separately measured cost (collectives: the barrier's) clamp the
# difference at 1 ns so that rates stay finite (csrc/comm/collectives.c); a median there is the
# clamp, not a measurement. {benchmark: floor in seconds}
SUBTRACTION_FLOOR_S = {"collectives": 1e-9}


def field(rec: Record, key: str, default: Any = None) -> Any:
    """A key of the record as the binary wrote it or as the store returns it (under extra)."""
    if key in rec:
        return rec[key]
    return (rec.get("extra") or {}).get(key, default)


def disturbed(rec: Record) -> Optional[str]:
    """The reason this point was disturbed, or None."""
    why = field(rec, "disturbed")
    return why if isinstance(why, str) and why else None


def at_floor(rec: Record) -> bool:
    """The point's median sits at its benchmark's subtraction floor (a time of 1 ns, or the
    bandwidth that time gives)."""
    floor = SUBTRACTION_FLOOR_S.get(str(rec.get("benchmark")))
    med = (rec.get("stats") or {}).get("median")
    if floor is None or not isinstance(med, (int, float)):
        return False
    unit = str(rec.get("unit") or "")
    if unit == "us":
        return med <= floor * 1e6 * 1.001
    size = (rec.get("params") or {}).get("bytes")
    if unit == "MB/s" and isinstance(size, (int, float)) and size > 0:
        return med >= size / floor / 1e6 / 1.001
    return False


def rel_ci(rec: Record) -> float:
    """Width of the median's 95% CI relative to the median (inf when unknown)."""
    s = rec.get("stats") or {}
    lo, hi, med = s.get("ci_low"), s.get("ci_high"), s.get("median")
    if lo is None or hi is None or not med:
        return float("inf")
    return abs(hi - lo) / abs(med)


def clean(rec: Record) -> bool:
    return bool(rec.get("converged", True)) and disturbed(rec) is None


def rank(rec: Record) -> Tuple[int, int, float]:
    """Sort key, best first: undisturbed, converged, narrow CI."""
    return (disturbed(rec) is not None, not rec.get("converged", True), rel_ci(rec))


def worth_remeasuring(rec: Record, rep: Dict[str, Any]) -> bool:
    """Disturbed, or unconverged with fewer samples than --max-reps allowed (the budget cut it
    short): measuring again may give a clean point. `rep` is the launch's meta "rep"."""
    if disturbed(rec):
        return True
    n = (rec.get("stats") or {}).get("n") or 0
    return not rec.get("converged", True) and n < (rep.get("max_reps") or float("inf"))


def verdict(rec: Record) -> str:
    """'ok', 'unconverged (CI ±x%)' or 'disturbed: reason' for tables."""
    why = disturbed(rec)
    if why:
        return f"disturbed: {why}"
    if at_floor(rec):
        return "at the subtraction floor: not a measurement"
    if not rec.get("converged", True):
        return f"unconverged (CI ±{50 * rel_ci(rec):.0f}%)"
    return "ok"


def _key(rec: Record) -> str:
    return json.dumps([rec.get("benchmark"), rec.get("metric"), rec.get("params")], sort_keys=True)


def best_points(records: Iterable[Record]) -> List[Record]:
    """One record per point (benchmark, metric, params): the best measured, in the order the
    points were first measured. A re-measured point replaces its disturbed first try."""
    recs = list(records)
    if not any(field(r, "remeasured") for r in recs):
        return recs                    # nothing measured twice (the common case, and cheap)
    best: Dict[str, Record] = {}
    for rec in recs:
        k = _key(rec)
        if k not in best or rank(rec) < rank(best[k]):
            best[k] = rec              # a dict keeps the key's first position
    return list(best.values())


def mark_spread(records: List[Record]) -> int:
    """Flag, in place, points whose spread is far above that of their neighbours of the same
    metric (records of one launch, in the order written). Returns how many were flagged."""
    by_metric: Dict[str, List[Record]] = {}
    for rec in records:
        if isinstance(rec.get("stats"), dict):
            by_metric.setdefault(str(rec.get("metric")), []).append(rec)
    flagged = 0
    for series in by_metric.values():
        widths = [rel_ci(r) for r in series]
        for i, rec in enumerate(series):
            around = [w for j, w in enumerate(widths)
                      if j != i and abs(j - i) <= NEIGHBOURS and w != float("inf")]
            if len(around) < 2 or disturbed(rec):
                continue
            typical = sorted(around)[len(around) // 2]
            if widths[i] >= SPREAD_FLOOR and widths[i] > SPREAD_FACTOR * max(typical, 1e-3):
                rec["disturbed"] = (f"spread {100 * widths[i]:.0f}% of the median, "
                                    f"{widths[i] / max(typical, 1e-3):.0f}x its neighbours'")
                flagged += 1
    return flagged
