"""The few figures that summarise a run (the machine-card rows the skeleton can fill).
Shared by `hpceval run`/`show` and the report, so they always agree.

Each area or benchmark registers its own headline rows in its views
(hpceval/views/rows_<name>.py, loaded by the CLI and the report); `curve_point` makes the
usual one, a chosen point of a sweep. The order: communication 10, memory 20, proxies 40, new areas 50 by default."""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

from hpceval.discover import DEFAULT_ORDER, place
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


Chooser = Callable[[List[Record], str], Optional[Record]]


def at(target: float, fallback: str) -> Chooser:
    """Chooser: the point at `target`; if absent, the nearest one (log distance) or the largest."""
    def choose(group: List[Record], x: str) -> Optional[Record]:
        exact = [r for r in group if r["params"][x] == target]
        if exact:
            return exact[0]
        if fallback == "largest":
            return max(group, key=lambda r: r["params"][x])
        return min(group, key=lambda r: abs(math.log2(max(r["params"][x], 0.5) / target)))
    return choose


def largest(group: List[Record], x: str) -> Optional[Record]:
    return max(group, key=lambda r: r["params"][x])


Rows = Callable[[List[Record]], Iterable[Tuple[str, Optional[Record]]]]


class Headline(NamedTuple):
    rows: Rows                      # records -> (label, record) pairs; a None record: no row
    order: int = DEFAULT_ORDER      # where its rows go among the areas' (see the module text)


HEADLINES: List[Headline] = []


def register_headline(spec: Headline) -> Headline:
    """Add headline rows; kept in `order`, registration order among equals."""
    return place(HEADLINES, spec)



def curve_point(label: str, benchmark: str, metric: str, x: str, choose: Chooser,
                prefer: Optional[Dict[str, Any]] = None) -> Rows:
    """Rows: the point `choose` picks from the main sweep of `benchmark`'s `metric` over `x`
    (the group with the most points, of those with the `prefer`red params; a record without
    such a key counts as having it), labelled with `label` formatted with the point's size."""
    def rows(records: List[Record]) -> Iterable[Tuple[str, Optional[Record]]]:
        groups = [g for g in _groups(select(records, benchmark, metric), x)
                  if all(g[0]["params"].get(k, v) == v for k, v in (prefer or {}).items())]
        # One row per quantity: the main sweep (the group with the most points) speaks for it.
        for group in sorted(groups, key=len, reverse=True)[:1]:
            rec = choose(group, x)
            if rec is not None:      # the label names the point actually shown
                yield label.format(size_label(rec["params"][x])), rec
    return rows


def headlines(records: List[Record]) -> List[Dict[str, Any]]:
    """[{"label", "record"}] in machine-card order; a record appears once (the rows registered
    so far: hpceval.views.load_rows() registers every benchmark's)."""
    rows: List[Dict[str, Any]] = []
    seen: set = set()
    for spec in HEADLINES:
        for label, rec in spec.rows(records):
            if rec is not None and id(rec) not in seen:     # e.g. the largest set *is* 1 MiB
                seen.add(id(rec))
                rows.append({"label": label, "record": rec})
    return rows


def headline_records(records: List[Record]) -> List[Record]:
    """The records behind the headline rows."""
    return [h["record"] for h in headlines(records)]
