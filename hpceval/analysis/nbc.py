"""nbc's analysis (csrc/comm/nbc.c): a collective's point at the most ranks measured, at the size
nearest the one asked for."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from hpceval.analysis.headlines import select

Record = Dict[str, Any]


def most_ranks_at(records: List[Record], op: str, nbytes: int,
                  metric: str = "overlap") -> Optional[Record]:
    """The point of `op` at the largest rank count measured, at the size nearest `nbytes` (log
    distance) among that count's sizes; None if none was."""
    recs = select(records, "nbc", metric, op=op)
    if not recs:
        return None
    top = max(r["params"]["nranks"] for r in recs)
    return min((r for r in recs if r["params"]["nranks"] == top),
               key=lambda r: abs(math.log2(max(r["params"]["bytes"], 1) / nbytes)))


def companion(records: List[Record], rec: Record, metric: str) -> Optional[Record]:
    """The record of another metric at the same point (the pure time beside an overlap)."""
    same = select(records, "nbc", metric, **rec["params"])
    return same[0] if same else None
