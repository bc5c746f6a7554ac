"""congestion's analysis (csrc/comm/congestion.c): the congestion impact factor as GPCNeT
states it, per victim metric and aggressor pattern: congested / isolated for the times (8 B
latency, 8 B allreduce), isolated / congested for the bandwidth, so that above 1 is slower
under congestion. Two statistics: the ratio of the medians (the typical sample) and of the
tails (max of the times, min of the bandwidth: the worst sample, GPCNeT's 99th percentile at
these sample counts)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis.headlines import select

Record = Dict[str, Any]
METRICS = (("latency", "8 B latency"), ("bandwidth", "bandwidth"), ("allreduce", "8 B allreduce"))
PATTERNS = ("incast", "alltoall")


def _stat(rec: Record, tail: bool) -> float:
    s = rec["stats"]
    if not tail:
        return s["median"]
    return s["min"] if rec["better"] == "higher" else s["max"]


def impacts(records: List[Record]) -> List[Dict[str, Any]]:
    """One entry per (metric, pattern) measured both alone and congested: metric, quantity,
    pattern, median_ratio, tail_ratio, isolated and congested medians, unit, victims,
    aggressors."""
    recs = select(records, "congestion")
    by = {(r["metric"], r["params"]["condition"]): r for r in recs}
    out = []
    for metric, quantity in METRICS:
        alone = by.get((metric, "isolated"))
        for pattern in PATTERNS:
            busy = by.get((metric, pattern))
            if alone is None or busy is None:
                continue
            ratios = []
            for tail in (False, True):
                a, b = _stat(alone, tail), _stat(busy, tail)
                ratios.append(a / b if alone["better"] == "higher" else b / a)
            out.append({"metric": metric, "quantity": quantity, "pattern": pattern,
                        "median_ratio": ratios[0], "tail_ratio": ratios[1],
                        "isolated": alone["stats"]["median"], "congested": busy["stats"]["median"],
                        "unit": alone["unit"], "victims": alone["params"]["victims"],
                        "aggressors": alone["params"]["aggressors"]})
    return out


def worst(records: List[Record]) -> Optional[Dict[str, Any]]:
    """The entry of the largest median ratio, or None."""
    found = impacts(records)
    return max(found, key=lambda e: e["median_ratio"]) if found else None


def lines(run: Dict[str, Any]) -> List[str]:
    """`show`'s lines: one per metric and pattern."""
    found = impacts(run.get("records") or [])
    if not found:
        return []
    e0 = found[0]
    head = (f"congestion impact (GPCNeT: congested / isolated, bandwidth isolated / congested; "
            f"{e0['victims']} victims, {e0['aggressors']} aggressors):")
    return [head] + [
        f"  {e['quantity']} beside {e['pattern']}: {e['median_ratio']:.2f}x of medians "
        f"({e['isolated']:.4g} -> {e['congested']:.4g} {e['unit']}), {e['tail_ratio']:.2f}x of "
        "tails" for e in found]
