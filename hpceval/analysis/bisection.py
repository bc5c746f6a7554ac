"""bisection's analysis (csrc/comm/bisection.c): the effective bisection bandwidth as netgauge
defines it (Hoefler, Schneider, Lumsdaine 2008: the average bandwidth of the connections of
many random bisection patterns): the mean, over every pair of every matching, of the pair's
bandwidth (its own median, MB/s each way); and the aggregate bandwidth's distribution over the
matchings (min, median, max of each matching's median)."""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Optional

from hpceval.analysis.headlines import select, value

Record = Dict[str, Any]


def effective(records: List[Record]) -> Optional[Dict[str, Any]]:
    """{ebb, pairs, matchings, per_matching (each matching's mean pair bandwidth, by matching),
    aggregate (min, median, max over matchings), bytes, seed}; None without pair records."""
    pairs = select(records, "bisection", "pair_bandwidth")
    if not pairs:
        return None
    by_m: Dict[int, List[float]] = {}
    for r in pairs:
        by_m.setdefault(int(r["params"]["matching"]), []).append(value(r))
    agg = [value(r) for r in select(records, "bisection", "aggregate_bandwidth")]
    return {"ebb": statistics.fmean(v for vs in by_m.values() for v in vs),
            "pairs": len(pairs), "matchings": len(by_m),
            "per_matching": {m: statistics.fmean(vs) for m, vs in sorted(by_m.items())},
            "aggregate": (min(agg), statistics.median(agg), max(agg)) if agg else None,
            "bytes": pairs[0]["params"]["bytes"], "seed": pairs[0]["params"]["seed"]}


def lines(run: Dict[str, Any]) -> List[str]:
    """`show`'s lines: the effective bisection bandwidth and the aggregate over matchings."""
    e = effective(run.get("records") or [])
    if e is None:
        return []
    out = [f"effective bisection bandwidth (netgauge: mean over {e['pairs']} pairs of "
           f"{e['matchings']} random matchings, seed {e['seed']}, each pair's median): "
           f"{e['ebb']:.0f} MB/s each way"]
    if e["aggregate"]:
        lo, med, hi = e["aggregate"]
        out.append(f"bisection aggregate bandwidth over {e['matchings']} matchings (each its "
                   f"median): min {lo:.0f}, median {med:.0f}, max {hi:.0f} MB/s")
    return out
